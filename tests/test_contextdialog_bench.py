"""ContextDialog: fixtures in voxmem's ContextDialog format written here (JSON lines plus
audio, and a Hugging Face parquet snapshot with ``{bytes, path}`` audio), independently
of the generator, read through the real loader; malformed folders with their exact
messages; the answer metrics; the mini edition's scripts; and ``--quick`` end to end
through the agent with the shipped models."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.conftest import VENV_BIN
from voxmem.audio import Audio, flac_bytes
from voxmem.errors import BenchmarkDataError


def _clip(freq: float = 300.0) -> bytes:
    t = np.arange(8_000) / 16_000
    return flac_bytes(Audio((0.3 * np.sin(2 * np.pi * freq * t)).astype(np.float32)))


def _utterances() -> list[dict[str, Any]]:
    said = [
        ("human", "My sister's name is Emma.", "alice"),
        ("gpt", "I'd recommend a lemon tart.", None),
        ("human", "My sister is called Laura.", "bob"),
        ("gpt", "Rice is always safe.", None),
    ]
    return [
        {
            "conv_id": "c1",
            "utterance_id": f"u{i}",
            "from": sender,
            "value": text,
            "emotion": "neutral" if sender == "human" else None,
            "audpath": f"audio/u{i}.flac" if sender == "human" else None,
            "speaker": speaker,
        }
        for i, (sender, text, speaker) in enumerate(said)
    ]


def _questions() -> list[dict[str, Any]]:
    return [
        {
            "qa_id": "q0",
            "conv_id": "c1",
            "question": "What did I say my sister's name was?",
            "question_audio": "audio/q0.flac",
            "answer": "Emma",
            "supporting_utterance_id": "u0",
            "supporting_from": "human",
        },
        {
            "qa_id": "q1",
            "conv_id": "c1",
            "question": "What dessert did you recommend?",
            "question_audio": "audio/q1.flac",
            "answer": "lemon tart",
            "supporting_utterance_id": "u1",
            "supporting_from": "gpt",
        },
    ]


def _jsonl_folder(
    root: Path,
    utterances: list[dict[str, Any]] | None = None,
    questions: list[dict[str, Any]] | None = None,
    split: str = "test_freq",
) -> Path:
    """The JSON-lines layout, written by hand."""
    folder = root / split
    (folder / "audio").mkdir(parents=True)
    for i in (0, 2):
        (folder / "audio" / f"u{i}.flac").write_bytes(_clip(200 + i))
    for i in (0, 1):
        (folder / "audio" / f"q{i}.flac").write_bytes(_clip(400 + i))
    for name, rows in (
        ("dialogues", _utterances() if utterances is None else utterances),
        ("questions", _questions() if questions is None else questions),
    ):
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (root / "contextdialog.json").write_text('{"format": "voxmem-contextdialog", "version": 1}')
    return root


def _as_struct(value: str | None, root: Path) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"bytes": (root / value).read_bytes(), "path": Path(value).name}


def _parquet_folder(root: Path, *, readme: bool = True, rename: str | None = None) -> Path:
    """A Hugging Face snapshot (configs dialogues and questions, audio as {bytes, path}
    structs) of the JSON-lines fixture written under ``root/src``."""
    (root / "src").mkdir()
    _jsonl_folder(root / "src", split="test_rare")
    src = root / "src" / "test_rare"
    snap = root / "snap"
    utts = [{**u, "audpath": _as_struct(u["audpath"], src)} for u in _utterances()]
    qs = [{**q, "question_audio": _as_struct(q["question_audio"], src)} for q in _questions()]
    if rename:
        for q in qs:
            q["supporting_turn"] = q.pop(rename)
    for config, rows in (("dialogues", utts), ("questions", qs)):
        (snap / config).mkdir(parents=True)
        pq.write_table(
            pa.Table.from_pylist(rows), snap / config / "test_rare-00000-of-00001.parquet"
        )
    if readme:
        (snap / "README.md").write_text(
            "---\nconfigs:\n- config_name: dialogues\n  data_files:\n  - split: test_rare\n"
            "    path: dialogues/test_rare-*\n- config_name: questions\n  data_files:\n"
            "  - split: test_rare\n    path: questions/test_rare-*\n---\n# ContextDialog\n"
        )
    return snap


# -- the loader ----------------------------------------------------------------------------


def test_loader_reads_the_jsonl_layout(tmp_path: Path) -> None:
    from voxmem.benchmarks.retrieval.contextdialog_data import load_split, splits_in

    folder = _jsonl_folder(tmp_path)
    assert splits_in(folder) == ["test_freq"]
    split = load_split(folder, "test_freq")
    assert split.layout == "jsonl"
    d = split.dialogues["c1"]
    assert [u.utterance_id for u in d.utterances] == ["u0", "u1", "u2", "u3"]
    assert [u.side for u in d.utterances] == ["user", "assistant", "user", "assistant"]
    assert [u.speaker for u in d.utterances] == ["alice", "user", "bob", "user"]
    assert d.utterances[0].audio == (folder / "test_freq/audio/u0.flac").read_bytes()
    assert d.utterances[1].audio is None  # the agent speaks gpt turns itself
    assert [(q.qa_id, q.side, q.answer) for q in split.questions] == [
        ("q0", "user", "Emma"),
        ("q1", "assistant", "lemon tart"),
    ]
    assert load_split(folder, "test_freq", limit=1).questions[0].qa_id == "q0"


@pytest.mark.parametrize("readme", [True, False])
def test_loader_reads_a_parquet_snapshot(tmp_path: Path, readme: bool) -> None:
    from voxmem.benchmarks.retrieval.contextdialog_data import load_split, splits_in

    snap = _parquet_folder(tmp_path, readme=readme)
    assert splits_in(snap) == ["test_rare"]
    split = load_split(snap, "test_rare")
    assert split.layout == "parquet"
    assert split.dialogues["c1"].utterances[2].audio == _clip(202)
    assert split.questions[1].audio == _clip(401)
    assert split.questions[1].supporting_utterance_id == "u1"


def test_a_snapshot_with_other_columns_names_found_and_expected(tmp_path: Path) -> None:
    from voxmem.benchmarks.retrieval.contextdialog_data import load_split

    snap = _parquet_folder(tmp_path, rename="supporting_utterance_id")
    with pytest.raises(BenchmarkDataError) as err:
        load_split(snap, "test_rare")
    message = str(err.value)
    assert "1 problem(s)" in message
    assert (
        "found columns qa_id, conv_id, question, question_audio, answer, supporting_from, "
        "supporting_turn; expected qa_id, conv_id, question, question_audio, answer, "
        "supporting_utterance_id, supporting_from (voxmem ContextDialog format v1, config "
        "questions); missing supporting_utterance_id"
    ) in message


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    from voxmem.benchmarks.retrieval.contextdialog_data import load_split

    utts = _utterances()
    utts[1]["from"] = "bot"
    utts[2]["audpath"] = "audio/gone.flac"
    del utts[3]["value"]
    utts.append({**utts[0]})  # the same utterance id twice
    qs = _questions()
    qs[0]["supporting_utterance_id"] = "u9"
    qs[1]["conv_id"] = "c7"
    qs.append({**_questions()[0], "qa_id": "q2", "supporting_from": "gpt"})
    qs.append({**_questions()[0], "qa_id": "q3", "question_audio": "audio/nope.flac"})
    qs.append({**_questions()[0]})  # q0 again
    folder = _jsonl_folder(tmp_path, utts, qs)
    with pytest.raises(BenchmarkDataError) as err:
        load_split(folder, "test_freq")
    message = str(err.value)
    expected = [
        "dialogue c1 utterance u1: from 'bot' is not human or gpt",
        "dialogue c1 utterance u2: audio 'audio/gone.flac' not found",
        "dialogues.jsonl line 4: missing field(s) value (an utterance has conv_id, "
        "utterance_id, from, value, audpath; emotion, speaker optional)",
        "dialogue c1 utterance u0: utterance_id used twice in this dialogue",
        "question q0: supporting_utterance_id u9 is not an utterance of dialogue c1",
        "question q1: conv_id c7 is not a dialogue of this split",
        "question q2: supporting_from 'gpt' but utterance u0 is from 'human'",
        "question q3: question audio 'audio/nope.flac' not found",
        "question q0: qa_id used twice",
    ]
    assert f"{len(expected)} problem(s)" in message
    for line in expected:
        assert line in message, line


def test_missing_files_split_and_version(tmp_path: Path) -> None:
    from voxmem.benchmarks.retrieval.contextdialog_data import load_split

    folder = _jsonl_folder(tmp_path)
    with pytest.raises(BenchmarkDataError, match=r"no split 'test_rare'.*splits found: test_freq"):
        load_split(folder, "test_rare")
    (folder / "test_freq" / "questions.jsonl").unlink()
    (folder / "contextdialog.json").write_text('{"format": "voxmem-contextdialog", "version": 9}')
    with pytest.raises(BenchmarkDataError) as err:
        load_split(folder, "test_freq")
    message = str(err.value)
    assert "2 problem(s)" in message
    assert re.search(r"questions\.jsonl not found", message)
    assert "version 9; this voxmem reads 'voxmem-contextdialog' version 1" in message


# -- metrics and the mini edition's scripts --------------------------------------------------


def test_answer_metrics() -> None:
    from voxmem.benchmarks.retrieval.contextdialog_scores import (
        contains_answer,
        normalize_answer,
        recall_at,
        token_f1,
    )

    assert normalize_answer("The Lemon-Tart!") == "lemon tart"
    assert contains_answer('I told you: "a simple lemon tart."', "Lemon tart") == 1.0
    assert contains_answer("lemon tarts are nice", "lemon tart") == 0.0  # whole words
    assert contains_answer("anything", "") == 0.0
    assert token_f1("the lemon tart", "lemon tart") == 1.0
    assert token_f1("a simple lemon tart", "lemon tart") == pytest.approx(0.8)
    assert token_f1("rice", "lemon tart") == 0.0
    assert recall_at(["u2", "u0"], "u0", 1) == 0.0 and recall_at(["u2", "u0"], "u0", 3) == 1.0


def test_aggregate_splits_by_side_and_split() -> None:
    from voxmem.benchmarks.retrieval.contextdialog_scores import Asked, aggregate, routing

    def asked(qa: str, split: str, side: str, ranking: list[str], reply: str) -> Asked:
        a = Asked(qa, split, "c1", side, "?", "lemon tart", "u1")
        a.rankings = {"dense": ranking, "instruct": ranking[::-1]}
        a.replies = {"dense@1": reply, "dense@3": reply, "instruct": "no", "none": ""}
        a.route = {"intent": "recall", "speaker": "agent" if side == "assistant" else "any"}
        a.speaker_is_support = True if side == "user" else None
        return a

    rows = [
        asked("q0", "test_freq", "user", ["u1", "u2"], "a lemon tart"),
        asked("q1", "test_freq", "assistant", ["u2", "u1"], "rice"),
        asked("q2", "test_rare", "assistant", ["u3", "u4", "u1"], "Lemon tart!"),
    ]
    figures = aggregate(rows, ["none", "dense", "instruct"], ["test_freq", "test_rare"])
    dense = figures["recall"]["dense"]
    assert dense["test_freq"]["user"] == {"R@1": 1.0, "R@3": 1.0, "questions": 1}
    assert dense["all"]["assistant"]["R@1"] == 0.0
    assert dense["all"]["assistant"]["R@3"] == 1.0
    assert dense["all"]["all"]["R@1"] == pytest.approx(1 / 3)
    assert figures["recall"]["instruct"]["test_freq"]["assistant"]["R@1"] == 1.0
    assert set(figures["answers"]) == {"none", "dense@1", "dense@3", "instruct"}
    assert figures["answers"]["dense@1"]["all"]["all"]["containment"] == pytest.approx(2 / 3)
    assert figures["answers"]["none"]["all"]["all"]["containment"] == 0.0
    routed = routing(rows)
    assert routed["assistant"]["asked_about as expected"] == 1.0
    assert routed["user"]["asked_about as expected"] == 0.0
    assert routed["user"]["asking voice taken for the supporting turn's speaker"] == 1.0
    assert "asking voice taken for the supporting turn's speaker" not in routed["assistant"]


def test_mini_scripts_ask_about_facts_said_once() -> None:
    from voxmem.benchmarks.retrieval.contextdialog_mini import TOPICS, USER_VOICES, _script

    rng = np.random.default_rng(0)
    for d in range(len(TOPICS) // 2):
        for users in (["a"], ["a", "b"]):
            turns, questions = _script(d, (TOPICS[2 * d], TOPICS[2 * d + 1]), users, rng)
            assert len(turns) == (12 if len(users) == 1 else 16)
            assert [t["from"] for t in turns] == ["human", "gpt"] * (len(turns) // 2)
            sides = [q["supporting_from"] for q in questions]
            assert sorted(sides) == ["gpt", "gpt", "human", "human"]
            # two users: each asks about the topic they led
            assert {q["speaker"] for q in questions} == set(users)
    assert "piper-joe" not in USER_VOICES  # the agent's own voice


def test_a_fact_said_twice_is_a_script_error() -> None:
    from voxmem.benchmarks.retrieval.contextdialog_mini import TOPICS, _script

    twice = TOPICS[0].__class__(
        **{**TOPICS[0].__dict__, "user_near": "We had chicken curry yesterday too."}
    )
    with pytest.raises(BenchmarkDataError, match=r"answer 'chicken curry' is said in"):
        _script(0, (twice, TOPICS[1]), ["a"], np.random.default_rng(0))


def test_mini_questions_are_worded_and_spoken_from_the_chosen_wordings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hashlib

    from rich.console import Console

    from voxmem.benchmarks.pools import wordings
    from voxmem.benchmarks.retrieval import contextdialog_mini
    from voxmem.benchmarks.retrieval.contextdialog_data import SPLITS, load_split
    from voxmem.benchmarks.synth import ClipCache

    spoken: list[Any] = []

    def render(u: Any, cache: Any = None) -> Audio:  # a tone per utterance, no TTS engine
        spoken.append(u)
        h = int(hashlib.sha256(repr(u).encode()).hexdigest()[:6], 16)
        t = np.arange(6_400) / 16_000
        return Audio((0.3 * np.sin(2 * np.pi * (150 + h % 500) * t)).astype(np.float32))

    monkeypatch.setattr(contextdialog_mini, "render", render)
    tables = {role: wordings("contextdialog-mini", role) for role in ("dev", "test")}
    kind = {"human": "user_question", "gpt": "agent_question"}
    dev_questions = {
        q.casefold()
        for by_answer in tables["dev"].values()
        for qs in by_answer.values()
        for q in qs
    }
    loaded, voices = {}, {}
    for role, table in tables.items():
        spoken.clear()
        folder = tmp_path / role
        contextdialog_mini.write_mini(
            folder, 0, True, ClipCache(tmp_path / "synth"), Console(quiet=True), table
        )
        loaded[role] = [load_split(folder, s) for s in SPLITS]
        voices[role] = {(u.text, u.voice) for u in spoken}

    def judged(split: Any) -> tuple[Any, ...]:
        dialogues = [
            (u.utterance_id, u.sender, u.value, u.speaker, u.emotion, u.audio)
            for d in split.dialogues.values()
            for u in d.utterances
        ]
        questions = [
            (q.qa_id, q.conv_id, q.answer, q.supporting_utterance_id, q.supporting_from)
            for q in split.questions
        ]
        return dialogues, questions

    assert [judged(s) for s in loaded["dev"]] == [judged(s) for s in loaded["test"]]
    for role, table in tables.items():
        for split in loaded[role]:
            assert len(split.questions) == 4
            for q in split.questions:
                assert q.question in table[kind[q.supporting_from]][q.answer], (role, q.question)
                if role == "test":
                    assert q.question.casefold() not in dev_questions, q.question
                # spoken as worded, in a voice of a user of its dialogue
                users = {u.speaker for u in split.dialogues[q.conv_id].utterances}
                assert any(v in users for t, v in voices[role] if t == q.question), q.question
    test_texts = {t for t, _ in voices["test"]}
    assert not test_texts & {t for by in tables["dev"].values() for qs in by.values() for t in qs}


# -- the command ---------------------------------------------------------------------------


def _bench(*args: str, cache: Path, timeout: int = 900) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(Path.home()),
        "COLUMNS": "200",
        "VOXMEM_CACHE_DIR": str(cache),
        "HF_HUB_OFFLINE": "1",
    }
    return subprocess.run(
        [str(VENV_BIN / "benchmarks"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
    )


def _bench_here(*args: str, cache: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``benchmarks ARGS`` through the command's own code in this process (a new process
    would import the stack again); its exit code and what it printed."""
    from types import SimpleNamespace

    from typer.testing import CliRunner

    from voxmem.benchmarks.cli import app

    monkeypatch.setenv("VOXMEM_CACHE_DIR", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = CliRunner().invoke(app, list(args))
    # what a process would print as a traceback, and exit 1 with
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return SimpleNamespace(returncode=result.exit_code, stdout=result.output)


def test_the_command_lists_it_and_rejects_bad_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "contextdialog" in _bench_here("list", cache=tmp_path, monkeypatch=monkeypatch).stdout
    utts = _utterances()
    utts[1]["from"] = "bot"
    folder = _jsonl_folder(tmp_path / "data", utts)
    run = ("run", "contextdialog", "--out", str(tmp_path / "out"))
    # the executable itself, once
    proc = _bench(*run, "--data-dir", str(folder), cache=tmp_path)
    assert proc.returncode == 1
    assert "BenchmarkDataError" in proc.stdout and "from 'bot'" in proc.stdout
    proc = _bench_here(
        *run,
        "--retrievers",
        "dense,nope",
        "--data-dir",
        str(folder),
        cache=tmp_path,
        monkeypatch=monkeypatch,
    )
    assert proc.returncode == 1 and "unknown retriever(s) nope" in proc.stdout
    proc = _bench_here(*run, "--split", "test_often", cache=tmp_path, monkeypatch=monkeypatch)
    assert proc.returncode == 1 and "unknown split test_often" in proc.stdout


@pytest.mark.models
def test_quick_run_end_to_end(
    tmp_path: Path, pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    # in this process (the executable itself is run by the test above): the shipped
    # models this session has loaded already are reused
    cache = Path(pytestconfig.cache.mkdir("voxmem-bench"))
    proc = _bench_here(
        "run",
        "contextdialog",
        "--quick",
        "--out",
        str(tmp_path),
        cache=cache,
        monkeypatch=monkeypatch,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    folder = tmp_path / "contextdialog"
    result = json.loads((folder / "results.json").read_text())
    assert result["benchmark"] == "contextdialog" and "mini" in result["edition"]
    recall, answers = result["results"]["recall"], result["results"]["answers"]
    assert set(recall) == {"random", "bm25", "dense", "instruct"}
    assert set(answers) == {"none", "dense@1", "dense@3", "bm25@3", "instruct", "oracle"}
    for split in ("test_freq", "test_rare", "all"):
        for side in ("user", "assistant", "all"):
            assert 0.0 <= recall["instruct"][split][side]["R@1"] <= 1.0
    everything = recall["instruct"]["all"]["all"]
    assert everything["questions"] == 8  # two dialogues, four questions each
    # the agent finds supporting turns better than chance, and its answers carry them
    assert everything["R@1"] > recall["random"]["all"]["all"]["R@1"]
    assert answers["instruct"]["all"]["all"]["containment"] > 0.0
    assert answers["none"]["all"]["all"]["containment"] == 0.0  # extractive, no memory
    assert result["results"]["utterances not stored"] == {}
    assert result["results"]["routing"]["all"]["questions"] == 8
    assert (
        result["published"][
            "dense RAG (e5-large-v2 over ASR transcripts) top-1 supporting-utterance recall"
        ]
        == 0.58
    )
    for plot in result["plots"]:
        assert (folder / plot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = (folder / "summary.md").read_text()
    assert "instruct" in summary and "a different dataset" in summary
    asked = json.loads((folder / "questions.json").read_text())
    assert len(asked) == 8 and all(a["transcript"] for a in asked)
