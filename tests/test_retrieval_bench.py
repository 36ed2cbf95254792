"""The retrieval benchmarks: real-format fixtures written here (independently of the
generators) and read through the real loaders; malformed folders; cached ingests; and
each benchmark's --quick slice end to end with the shipped models."""

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


def _clip(freq: float = 300.0, seconds: float = 0.6) -> bytes:
    t = np.arange(int(16_000 * seconds)) / 16_000
    return flac_bytes(Audio((0.3 * np.sin(2 * np.pi * freq * t)).astype(np.float32)))


# -- INSPIRE ------------------------------------------------------------------------------

DOC_FIELDS = {
    "text": "hello",
    "title": "",
    "speaking_style": "default",
    "speaker": "p225",
    "environmental_sound": "N/A",
    "type": "t",
    "source": "s",
}


def _inspire_folder(
    root: Path,
    *,
    drop: str | None = None,
    bad_positive: bool = False,
    extra: tuple[bytes, ...] | list[bytes] = (),
    duplicate_id: bool = False,
) -> Path:
    """A folder as `hf download lca0503/INSPIRE` lays it out (one split, two shards);
    ``extra`` documents go into the second shard."""
    clips = [_clip(200 + 50 * i) for i in range(4)] + list(extra)
    docs = [
        {
            "audio": {"bytes": clip, "path": f"{i}.wav"},
            "audio_id": f"{i:05d}",
            **DOC_FIELDS,
        }
        for i, clip in enumerate(clips)
    ]
    if duplicate_id:
        docs[2]["audio_id"] = "00001"
    queries = [
        {
            **docs[0],
            "relevance": "speaker",
            "instruction": "Find this speaker.",
            "positive_documents": ["00001", "00002"],
            "excluded_ids": ["00000"],
        },
        {
            **docs[3],
            "relevance": "speaker",
            "instruction": "Same voice please.",
            "positive_documents": ["00009" if bad_positive else "00002"],
            "excluded_ids": ["N/A"],
        },
    ]
    if drop:
        for r in queries:
            r.pop(drop)
    (root / "document").mkdir(parents=True)
    (root / "query").mkdir()
    pq.write_table(pa.Table.from_pylist(docs[:2]), root / "document/VCTK-00000-of-00002.parquet")
    pq.write_table(pa.Table.from_pylist(docs[2:]), root / "document/VCTK-00001-of-00002.parquet")
    pq.write_table(pa.Table.from_pylist(queries), root / "query/VCTK-00000-of-00001.parquet")
    (root / "README.md").write_text(
        "---\nconfigs:\n- config_name: document\n  data_files:\n  - split: VCTK\n"
        "    path: document/VCTK-*\n- config_name: query\n  data_files:\n  - split: VCTK\n"
        "    path: query/VCTK-*\n---\n# INSPIRE\n"
    )
    return root


def test_inspire_loader_reads_the_published_layout(tmp_path: Path) -> None:
    from voxmem.benchmarks.retrieval.inspire import load_split, splits_in

    folder = _inspire_folder(tmp_path / "inspire")
    assert splits_in(folder) == ["VCTK"]
    split = load_split(folder, "VCTK")
    assert [d.id for d in split.documents] == ["00000", "00001", "00002", "00003"]
    assert [q.id for q in split.queries] == ["00000", "00001"]
    assert split.queries[0].positives == ["00001", "00002"]
    assert split.queries[0].excluded == ["00000"]
    assert split.queries[1].excluded == ["N/A"]
    assert split.documents[3].audio == _clip(350)
    assert load_split(folder, "VCTK", limit=1).queries[0].instruction == "Find this speaker."


def test_inspire_loader_finds_shards_without_a_readme(tmp_path: Path) -> None:
    from voxmem.benchmarks.retrieval.inspire import load_split, splits_in

    folder = _inspire_folder(tmp_path / "inspire")
    (folder / "README.md").unlink()
    assert splits_in(folder) == ["VCTK"]
    assert len(load_split(folder, "VCTK").documents) == 4


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"drop": "positive_documents"}, "missing column(s) positive_documents"),
        ({"bad_positive": True}, "document id(s) 00009 not found"),
    ],
)
def test_inspire_loader_reports_what_is_wrong(
    tmp_path: Path, kwargs: dict[str, Any], message: str
) -> None:
    from voxmem.benchmarks.retrieval.inspire import load_split

    folder = _inspire_folder(tmp_path / "inspire", **kwargs)
    with pytest.raises(BenchmarkDataError, match=re.escape(message)):
        load_split(folder, "VCTK")


def test_inspire_loader_names_the_missing_split(tmp_path: Path) -> None:
    from voxmem.benchmarks.retrieval.inspire import load_split

    folder = _inspire_folder(tmp_path / "inspire")
    with pytest.raises(BenchmarkDataError, match=r"no document files for split 'Expresso'.*VCTK"):
        load_split(folder, "Expresso")


# -- VoiceTrace ---------------------------------------------------------------------------


def _voicetrace_folder(root: Path, card_naming: bool, missing_audio: bool = False) -> Path:
    sub = root / "multi"
    (sub / "audio").mkdir(parents=True)
    rows = []
    for i in range(2):
        q, d = sub / "audio" / f"q{i}.flac", sub / "audio" / f"d{i}.flac"
        q.write_bytes(_clip(300 + i))
        if not (missing_audio and i == 1):
            d.write_bytes(_clip(400 + i))
        row: dict[str, Any] = {
            "id": f"m{i}",
            "query_text": "What did this speaker say about the budget?",
            "document_audio_text": "[S1]: hello [S2]: the budget",
            "query_audio_speaker_ids": "['seamless_1304A']",
            "document_audio_speaker_ids": "['seamless_1304A' 'seamless_1305A']",
            "source": "seamless",
        }
        if card_naming:
            row["query_audio"] = {"bytes": q.read_bytes(), "path": q.name}
            row["document_audio"] = {"bytes": None, "path": f"audio/d{i}.flac"}
        else:
            row["query_audio_path"] = f"audio/q{i}.flac"
            row["document_audio_path"] = f"audio/d{i}.flac"
        rows.append(row)
    pq.write_table(pa.Table.from_pylist(rows), sub / "data.parquet")
    return root


@pytest.mark.parametrize("card_naming", [False, True])
def test_voicetrace_loader_accepts_both_column_namings(tmp_path: Path, card_naming: bool) -> None:
    from voxmem.benchmarks.retrieval.voicetrace import load_subset

    rows = load_subset(_voicetrace_folder(tmp_path / "vt", card_naming), "multi")
    assert [r.id for r in rows] == ["m0", "m1"]
    assert rows[0].document_speakers == ["seamless_1304A", "seamless_1305A"]
    assert rows[0].query_speakers == ["seamless_1304A"]
    assert rows[1].document_audio == _clip(401)
    assert rows[1].query_audio == _clip(301)


def test_voicetrace_loader_reports_missing_audio_and_subsets(tmp_path: Path) -> None:
    from voxmem.benchmarks.retrieval.voicetrace import load_subset

    folder = _voicetrace_folder(tmp_path / "vt", False, missing_audio=True)
    with pytest.raises(BenchmarkDataError, match=r"row m1: document audio 'audio/d1.flac' not"):
        load_subset(folder, "multi")
    with pytest.raises(BenchmarkDataError, match=r"single/data\.parquet not found"):
        load_subset(folder, "single")


def test_voicetrace_speaker_id_strings() -> None:
    from voxmem.benchmarks.retrieval.voicetrace import speaker_ids

    assert speaker_ids("['seamless_1304A' 'seamless_1305A']") == [
        "seamless_1304A",
        "seamless_1305A",
    ]
    assert speaker_ids("['a', 'b']") == ["a", "b"]
    assert speaker_ids(["x"]) == ["x"]
    assert speaker_ids("solo") == ["solo"]
    assert speaker_ids(None) == []


# -- SQuTR --------------------------------------------------------------------------------


def _squtr_folder(root: Path, alt_keys: bool = False, bad_qrel: bool = False) -> Path:
    sub = root / "en" / "fiqa"
    (sub / "qrels").mkdir(parents=True)
    (sub / "corpus.jsonl").write_text(
        "".join(
            json.dumps({"_id": f"c{i}", "title": "", "text": f"text {i}"}) + "\n" for i in range(3)
        )
    )
    qk, ck = ("query_id", "corpus_id") if alt_keys else ("query-id", "corpus-id")
    qrels = [
        {qk: "q1", ck: "c0", "score": 2},
        {qk: "q1", ck: "c9" if bad_qrel else "c1", "score": 1},
    ]
    (sub / "qrels" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in qrels))
    (sub / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "a question"}) + "\n")
    for cond in ("clean", "noise_snr_20", "noise_snr_10", "noise_snr_0"):
        (sub / f"audio_{cond}").mkdir()
        (sub / f"audio_{cond}" / "q1.wav").write_bytes(_clip())
        row: dict[str, Any] = {"_id": "q1", "text": "a question", "audio": "q1.wav"}
        if cond != "clean":
            row |= {"snr_db": int(cond.rsplit("_", 1)[1]), "noise_id": "n1"}
        (sub / f"queries_with_audio_{cond}.jsonl").write_text(json.dumps(row) + "\n")
    return root


@pytest.mark.parametrize("alt_keys", [False, True])
def test_squtr_loader_reads_every_condition(tmp_path: Path, alt_keys: bool) -> None:
    from voxmem.benchmarks.retrieval.harness import read
    from voxmem.benchmarks.retrieval.squtr import load_subset, subsets_in

    root = _squtr_folder(tmp_path / "squtr", alt_keys)
    (folder,) = subsets_in(root)
    assert subsets_in(folder) == [folder]
    subset = load_subset(folder)
    assert subset.qrels == {"q1": {"c0": 2, "c1": 1}}
    assert set(subset.queries) == {"clean", "noise_snr_20", "noise_snr_10", "noise_snr_0"}
    text, audio = subset.queries["noise_snr_0"]["q1"]
    assert (text, read(audio)) == ("a question", _clip())
    assert subset.corpus["c2"] == ("", "text 2")


def test_squtr_loader_reports_unresolved_ids_and_missing_audio(tmp_path: Path) -> None:
    from voxmem.benchmarks.retrieval.squtr import load_subset

    root = _squtr_folder(tmp_path / "squtr", bad_qrel=True)
    folder = root / "en" / "fiqa"
    (folder / "audio_noise_snr_0" / "q1.wav").unlink()
    with pytest.raises(BenchmarkDataError) as err:
        load_subset(folder)
    assert "corpus id c9 (query q1) is not in corpus.jsonl" in str(err.value)
    assert "noise_snr_0: audio q1.wav of query q1 not found" in str(err.value)
    (folder / "qrels" / "test.jsonl").unlink()
    with pytest.raises(BenchmarkDataError, match=r"qrels/test\.jsonl not found"):
        load_subset(folder)


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
        [str(VENV_BIN / "benchmarks"), "run", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
    )


def _bench_here(*args: str, cache: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``benchmarks run ARGS`` through the command's own code in this process (the
    executable itself is run by the test below): the shipped models this session has
    loaded already are reused rather than loaded again by a new process."""
    from typer.testing import CliRunner

    from voxmem.benchmarks.cli import app

    monkeypatch.setenv("VOXMEM_CACHE_DIR", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = CliRunner().invoke(app, ["run", *args])
    # what a process would print as a traceback, and exit 1 with
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def test_a_malformed_folder_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _inspire_folder(tmp_path / "inspire", drop="excluded_ids")
    proc = _bench("inspire", "--data-dir", str(folder), "--out", str(tmp_path), cache=tmp_path)
    assert proc.returncode == 1
    assert "BenchmarkDataError" in proc.stdout and "excluded_ids" in proc.stdout
    result = _bench_here(
        "inspire",
        "--retrievers",
        "bm25,nope",
        "--data-dir",
        str(folder),
        "--split",
        "VCTK",
        cache=tmp_path,
        monkeypatch=monkeypatch,
    )
    assert result.exit_code == 1, result.output


@pytest.fixture(scope="module")
def bench_cache(tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config) -> Path:
    """One cache for the quick runs: clips are shared, ingests are per benchmark."""
    return Path(pytestconfig.cache.mkdir("voxmem-bench"))


@pytest.mark.models
@pytest.mark.parametrize(
    ("name", "splits", "metric"),
    [
        ("inspire", ["Dialogue", "SameSpeaker", "SpeakerStyle", "Composite", "Total"], "R@10"),
        ("voicetrace", ["single", "multi", "mixed"], "R@1"),
        ("squtr", ["clean", "noise_snr_20", "noise_snr_10", "noise_snr_0"], "nDCG@10"),
    ],
)
def test_quick_run_end_to_end(
    name: str,
    splits: list[str],
    metric: str,
    bench_cache: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # SQuTR-mini on two editions: what results.json and summary.md say is their pooled
    # figures (its quick slice is the cheapest to run twice)
    seeds = ["--seed", "0", "--seed", "1"] if name == "squtr" else []
    run = _bench_here(
        name, "--quick", *seeds, "--out", str(tmp_path), cache=bench_cache, monkeypatch=monkeypatch
    )
    assert run.exit_code == 0, run.output[-3000:]
    folder = tmp_path / name
    result = json.loads((folder / "results.json").read_text())
    assert result["benchmark"] == name and "mini" in result["edition"]
    per_split = next(v for k, v in result["results"].items() if k.startswith("per_"))
    assert set(per_split) >= {"random", "instruct"}
    for split in splits:
        ours, chance = per_split["instruct"][split][metric], per_split["random"][split][metric]
        assert 0.0 <= chance <= 1.0 and 0.0 <= ours <= 1.0
        if name != "squtr" or split == "clean":
            assert ours > chance, (split, ours, chance)
    assert result["published"]
    for plot in result["plots"]:
        assert (folder / plot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = (folder / "summary.md").read_text()
    assert "instruct" in summary and "published" in summary.lower()
    if seeds:
        assert result["meta"]["seeds"] == [0, 1] and "2 editions" in result["edition"]
        each = [json.loads((folder / f"seed-{s}" / "results.json").read_text()) for s in (0, 1)]
        assert [e["meta"]["seed"] for e in each] == [0, 1]
        # the pooled figure is the mean over both editions' queries
        for split in splits:
            editions = [e["results"]["per_condition"]["instruct"][split][metric] for e in each]
            n = [len(e["results"]["per_query"]["keys"][split]) for e in each]
            pooled = sum(f * k for f, k in zip(editions, n, strict=True)) / sum(n)
            assert per_split["instruct"][split][metric] == pytest.approx(pooled)
        # each edition's own report has its plots
        for plot in each[0]["plots"]:
            assert (folder / "seed-0" / plot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert each[0]["plots"]
        vs = result["results"]["vs_baselines"]["clean"]["bm25"]
        assert vs["queries"] == 2 * each[0]["rows"][0]["queries"]
        assert vs["interval"][0] <= vs["difference"] <= vs["interval"][1]
        assert "instruct - bm25 nDCG@10" in summary
    # a rerun reuses the cached ingest, says so, and reports its own time (asked for
    # other pools, queries and retrievers: none of them is part of the ingest's key)
    if name == "voicetrace":
        again = _bench_here(
            name,
            "--quick",
            "--split",
            "mixed",
            "--limit",
            "1",
            "--retrievers",
            "random",
            "--out",
            str(tmp_path / "again"),
            cache=bench_cache,
            monkeypatch=monkeypatch,
        )
        assert again.exit_code == 0, again.output[-3000:]
        rerun = json.loads((tmp_path / "again" / name / "results.json").read_text())
        ingest = rerun["results"]["ingest"]["voicetrace"]
        assert ingest["cached"] and ingest["ingested"] == 0
        assert rerun["timings"]["ingest"] == round(ingest["seconds"], 2)
        assert "voicetrace: ingest cached" in (tmp_path / "again" / name / "summary.md").read_text()


# -- the harness ---------------------------------------------------------------------------


def _burst(seconds: float = 0.6) -> bytes:
    """Sound above the silence floor, but only a 40 ms click: no turn is found in it."""
    x = np.zeros(int(16_000 * seconds), np.float32)
    t = np.arange(640) / 16_000
    x[4000:4640] = 0.3 * np.sin(2 * np.pi * 500 * t)
    return flac_bytes(Audio(x))


def _silence(seconds: float = 0.6) -> bytes:
    return flac_bytes(Audio(np.zeros(int(16_000 * seconds), np.float32)))


@pytest.fixture
def fakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The shipped runners with fake encoders, and their settings' folders under tmp."""
    from voxmem.memory.encoders.fake import fake_perception
    from voxmem.memory.perception import Perception

    perception = fake_perception("what did she say about the budget")
    monkeypatch.setattr(Perception, "from_settings", classmethod(lambda cls, s: perception))
    monkeypatch.setenv("VOXMEM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("VOXMEM_DATA_DIR", str(tmp_path / "data"))
    return perception


def _settings(tmp_path: Path, **update: Any) -> Any:
    from voxmem.settings import Settings

    return Settings(cache_dir=tmp_path / "cache", data_dir=tmp_path / "data", **update)


class _Counting:
    """Counts the recordings the diarizer is asked about (one per ingested document)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.calls = inner, 0

    def __call__(self, audio: Audio) -> Any:
        self.calls += 1
        return self.inner(audio)


def test_ingest_cache_is_keyed_by_content_code_and_settings(
    tmp_path: Path, fakes: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rich.console import Console

    from voxmem.benchmarks.retrieval import harness

    quiet = Console(quiet=True)
    settings = _settings(tmp_path)
    docs = [harness.Document("a", _clip(200)), harness.Document("b", _clip(300))]
    first = harness.ingest("t", docs, settings, fakes, quiet)
    assert not first.cached and sorted(first.doc_of.values()) == ["a", "b"]
    segments = first.memory.stats("bench")["segments"]
    first.memory.close()
    again = harness.ingest("t", docs, settings, fakes, quiet)
    assert again.cached and again.doc_of == first.doc_of and again.ingested == 0
    assert again.build_seconds == pytest.approx(first.build_seconds)
    assert again.summary()["cached"] and "ingest cached" in again.note()
    assert again.memory.stats("bench")["segments"] == segments == again.turns
    again.memory.close()

    def rebuilt(documents: list[Any], s: Any) -> bool:
        store = harness.ingest("t", documents, s, fakes, quiet)
        store.memory.close()
        return not store.cached

    assert rebuilt([docs[0], harness.Document("b", _clip(310))], settings)
    assert rebuilt(docs, _settings(tmp_path, asr={"variant": "small"}))
    # what decodes the queries' clips stores nothing: the ingest is the same
    assert not rebuilt(docs, _settings(tmp_path, asr={"reference_variant": "tiny.en"}))
    # the code that produces the vectors is part of the key: a changed source file
    source = tmp_path / "encoder.py"
    source.write_text("SCALE = 1\n")
    files = harness._package_files()
    monkeypatch.setattr(harness, "_package_files", lambda: [*files, source])
    try:
        harness.code_digest.cache_clear()  # as a new process would
        assert rebuilt(docs, settings)
        assert not rebuilt(docs, settings)
        source.write_text("SCALE = 2\n")
        harness.code_digest.cache_clear()
        assert rebuilt(docs, settings)
    finally:
        harness.code_digest.cache_clear()


def test_an_interrupted_ingest_resumes_where_it_stopped(tmp_path: Path, fakes: Any) -> None:
    from rich.console import Console

    from voxmem.benchmarks.retrieval import harness

    class Stop(Exception):
        pass

    def stop_at_third(key: str) -> None:
        if key == "d2":
            raise Stop

    settings = _settings(tmp_path)
    docs = _six_documents()
    fakes.diarizer = counting = _Counting(fakes.diarizer)
    with pytest.raises(Stop):
        # stopped after the third document was stored, before it was journaled
        harness.ingest("t", docs, settings, fakes, Console(quiet=True), after_store=stop_at_third)
    assert counting.calls == 3
    counting.calls = 0
    store = harness.ingest("t", docs, settings, fakes, Console(quiet=True))
    assert counting.calls == 3  # d3, d4, d5: d2 is in the memory already and is kept
    assert store.resumed == 3 and store.ingested == 3 and not store.cached
    assert sorted(store.doc_of.values()) == [f"d{i}" for i in range(6)]
    recordings = {s.recording_id for s in store.memory.list("bench", limit=1000)}
    assert recordings == set(store.doc_of)  # nothing stored twice
    store.memory.close()
    again = harness.ingest("t", docs, settings, fakes, Console(quiet=True))
    assert again.cached and counting.calls == 3
    again.memory.close()


_KILLED_CHILD = """
import sys, time
from pathlib import Path
from rich.console import Console
from tests.test_retrieval_bench import _settings, _six_documents
from voxmem.benchmarks.retrieval import harness
from voxmem.memory.encoders.fake import fake_perception

def stored(key):
    print("STORED", key, flush=True)
    if key >= "d2":
        time.sleep(5)

harness.ingest("t", _six_documents(), _settings(Path(sys.argv[1])), fake_perception("w"),
               Console(quiet=True), after_store=stored)
"""


def _six_documents() -> list[Any]:
    from voxmem.benchmarks.retrieval import harness

    return [harness.Document(f"d{i}", _clip(200 + 40 * i)) for i in range(6)]


def test_an_ingest_killed_mid_run_resumes_without_storing_twice(tmp_path: Path) -> None:
    import signal

    from rich.console import Console

    from tests.conftest import ROOT
    from voxmem.benchmarks.retrieval import harness
    from voxmem.memory.encoders.fake import fake_perception

    child = subprocess.Popen(
        [str(VENV_BIN / "python"), "-c", _KILLED_CHILD, str(tmp_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    try:
        for line in child.stdout:
            if line.strip() == "STORED d2":
                child.send_signal(signal.SIGKILL)
                break
    finally:
        child.kill()
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL
    perception = fake_perception("w")
    perception.diarizer = counting = _Counting(perception.diarizer)
    store = harness.ingest(
        "t", _six_documents(), _settings(tmp_path), perception, Console(quiet=True)
    )
    assert store.resumed == 3 and store.ingested == counting.calls == 3
    assert sorted(store.doc_of.values()) == [f"d{i}" for i in range(6)]
    assert {s.recording_id for s in store.memory.list("bench", limit=1000)} == set(store.doc_of)
    store.memory.close()


def test_ingest_prints_throughput_and_an_estimate(tmp_path: Path, fakes: Any) -> None:
    from rich.console import Console

    from voxmem.benchmarks.retrieval import harness

    console = Console(record=True, width=200)
    docs = [harness.Document(f"d{i}", _clip(200 + 40 * i)) for i in range(5)]
    store = harness.ingest("t", docs, _settings(tmp_path), fakes, console)
    store.memory.close()
    text = console.export_text()
    assert "ingesting t: 5 document(s)" in text
    assert re.search(r"ingesting t: [\d.]+ documents/s .*left, .* in all", text)
    assert store.summary()["documents_per_s"] > 0


def test_a_document_with_no_turns_ranks_last_and_is_reported(tmp_path: Path, fakes: Any) -> None:
    from rich.console import Console

    from voxmem.benchmarks.registry import Options
    from voxmem.benchmarks.retrieval import harness
    from voxmem.benchmarks.retrieval.inspire import load_split, run_inspire
    from voxmem.retrievers.baselines import Query

    folder = _inspire_folder(tmp_path / "inspire", extra=[_burst(), _silence()])
    out = tmp_path / "out"
    retrievers = ["random", "bm25", "dense", "speaker"]
    restarts: list[int] = []
    fakes.restart_sampling = lambda: restarts.append(1)
    report = run_inspire(
        out=out,
        seed=0,
        quick=False,
        console=Console(quiet=True),
        data_dir=folder,
        options=Options(retrievers=retrievers),
    )
    ingest = report.results["ingest"]["inspire-VCTK"]
    assert ingest["documents"] == 6 and ingest["no_turns"] == 2
    # the ASR's sampling restarted before the fresh ingest and before the queries
    assert len(restarts) == 2
    assert set(ingest["documents_with_no_turns"]) == {"00004", "00005"}
    assert "SilentAudio" in ingest["documents_with_no_turns"]["00005"]
    assert any("2 document(s) with no turns, ranked last: 00004" in n for n in report.notes)
    assert {r["retriever"] for r in report.rows} == set(retrievers)
    # each query's rows: the same queries in the same order for every retriever, and
    # their means are the split's figures
    per_query = report.results["per_query"]
    assert per_query["family"] == "per_split"
    assert per_query["keys"]["VCTK"] == [f"VCTK/{q.id}" for q in load_split(folder, "VCTK").queries]
    for r in retrievers:
        rows = per_query["rows"][r]["VCTK"]
        assert len(rows) == len(per_query["keys"]["VCTK"])
        for metric, mean in report.results["per_split"][r]["VCTK"].items():
            assert sum(row[metric] for row in rows) / len(rows) == pytest.approx(mean)
    # reopened from the cache: both rank last for every retriever
    split = load_split(folder, "VCTK")
    store = harness.ingest(
        "inspire-VCTK",
        [harness.Document(d.id, d.blob) for d in split.documents],
        _settings(tmp_path),
        fakes,
        Console(quiet=True),
    )
    assert store.cached and len(restarts) == 2  # a cached ingest hears nothing
    for r in retrievers:
        scores = harness.document_scores(r, store, Query("Find this speaker."), harness.Timer())
        assert list(scores) == [d.id for d in split.documents]
        heard = [v for k, v in scores.items() if k not in ("00004", "00005")]
        assert scores["00004"] == scores["00005"] == float("-inf") < min(heard)
    store.memory.close()


def _two_subsets(root: Path) -> Path:
    """VoiceTrace's layout with two subsets whose ``id`` column restarts at 0."""
    for n, subset in enumerate(("single", "multi")):
        sub = root / subset
        (sub / "audio").mkdir(parents=True)
        rows = []
        for i in range(3):
            clip = _clip(200 + 150 * i + 60 * n)
            (sub / "audio" / f"{i}.flac").write_bytes(clip)
            rows.append(
                {
                    "id": i,
                    "query_text": "What did this speaker say about the budget?",
                    "query_audio_path": f"audio/{i}.flac",
                    "document_audio_path": f"audio/{i}.flac",
                    "document_audio_text": "the budget",
                    "query_audio_speaker_ids": "['a']",
                    "document_audio_speaker_ids": "['a']",
                }
            )
        pq.write_table(pa.Table.from_pylist(rows), sub / "data.parquet")
    return root


def test_voicetrace_keys_documents_and_queries_by_subset_and_row(
    tmp_path: Path, fakes: Any
) -> None:
    from rich.console import Console

    from voxmem.benchmarks.registry import Options
    from voxmem.benchmarks.retrieval.voicetrace import load_subset, run_voicetrace

    folder = _two_subsets(tmp_path / "vt")
    keys = [r.key for s in ("single", "multi") for r in load_subset(folder, s)]
    assert keys == ["single:0", "single:1", "single:2", "multi:0", "multi:1", "multi:2"]
    report = run_voicetrace(
        out=tmp_path / "out",
        seed=0,
        quick=False,
        console=Console(quiet=True),
        data_dir=folder,
        options=Options(retrievers=["speaker"]),
    )
    assert report.results["ingest"]["voicetrace"]["documents"] == 6
    queries = {r["pool"]: r["queries"] for r in report.rows}
    assert queries == {"single": 3, "multi": 3, "mixed": 6}
    # each query is its own document's clip: its voice finds it first in every pool
    for pool in ("single", "multi", "mixed"):
        assert report.results["per_pool"]["speaker"][pool]["R@1"] == 1.0


def test_ambiguous_ids_are_refused_by_name(tmp_path: Path) -> None:
    from voxmem.benchmarks.retrieval.harness import AmbiguousIds
    from voxmem.benchmarks.retrieval.inspire import load_split
    from voxmem.benchmarks.retrieval.squtr import load_subset

    folder = _inspire_folder(tmp_path / "inspire", duplicate_id=True)
    with pytest.raises(AmbiguousIds, match=r"audio_id: 1 id\(s\) used more than once: '00001'"):
        load_split(folder, "VCTK")
    root = _squtr_folder(tmp_path / "squtr")
    corpus = root / "en" / "fiqa" / "corpus.jsonl"
    corpus.write_text(corpus.read_text() + json.dumps({"_id": "c2", "text": "again"}) + "\n")
    with pytest.raises(AmbiguousIds, match=r"'c2' \(2 times\)") as err:
        load_subset(root / "en" / "fiqa")
    assert err.value.duplicates == {"c2": 2} and isinstance(err.value, BenchmarkDataError)


# -- the mini editions' instruction wordings ---------------------------------------------


@pytest.fixture
def fake_speech(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The generators' ``render`` as a short tone per utterance (no TTS engine); returns
    the utterances they asked for."""
    import hashlib

    from voxmem.benchmarks.retrieval import inspire, squtr, voicetrace
    from voxmem.benchmarks.synth import conversation

    asked: list[Any] = []

    def render(u: Any, cache: Any = None) -> Audio:
        asked.append(u)
        h = int(hashlib.sha256(repr(u).encode()).hexdigest()[:6], 16)
        t = np.arange(6_400) / 16_000
        return Audio((0.3 * np.sin(2 * np.pi * (150 + h % 500) * t)).astype(np.float32))

    for module in (inspire, squtr, voicetrace, conversation):
        monkeypatch.setattr(module, "render", render)
    return asked


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def _inspire_filled(table: Any, kind: str) -> set[str]:
    """Every text a kind's templates give, filled with the role's own slot words."""
    from voxmem.benchmarks.pools import placeholders
    from voxmem.benchmarks.retrieval.inspire import an

    styles = [v for vs in table["values:style"].values() for v in vs]
    envs = [e for es in table["values:environment"].values() for e in es]
    out = set()
    for t in table[kind]:
        for v in styles if "v" in placeholders(t) else [""]:
            for e in envs if "e" in placeholders(t) else [""]:
                out.add(an(t.format(v=v, e=e)))
    return out


def _write(module: Any, edition: str, role: str, root: Path) -> Path:
    from rich.console import Console

    from voxmem.benchmarks.pools import wordings
    from voxmem.benchmarks.synth import ClipCache

    folder = root / role
    module.write_mini(
        folder, 0, True, ClipCache(root / "synth"), Console(quiet=True), wordings(edition, role)
    )
    return folder


def test_inspire_mini_instructions_come_from_the_chosen_wordings(
    tmp_path: Path, fake_speech: list[Any]
) -> None:
    from voxmem.benchmarks.pools import wordings
    from voxmem.benchmarks.retrieval import inspire

    dev, test = wordings("inspire-mini", "dev"), wordings("inspire-mini", "test")
    kinds = [k for k in test if not k.startswith("values:")]
    dev_texts = {_norm(t) for k in kinds for t in _inspire_filled(dev, k)}
    splits = {}
    for role in ("dev", "test"):
        folder = _write(inspire, "inspire-mini", role, tmp_path)
        splits[role] = {s: inspire.load_split(folder, s) for s in inspire.MINI_SPLITS}
    seen = set()
    for name in inspire.MINI_SPLITS:
        d, t = splits["dev"][name], splits["test"][name]
        assert [x.id for x in d.documents] == [x.id for x in t.documents]
        assert [x.audio for x in d.documents] == [x.audio for x in t.documents]
        # the same queries, only phrased differently
        same = [
            (q.id, q.relevance, q.positives, q.excluded, q.text, q.speaker, q.audio)
            for q in d.queries
        ]
        assert same == [
            (q.id, q.relevance, q.positives, q.excluded, q.text, q.speaker, q.audio)
            for q in t.queries
        ]
        assert t.queries, name
        for q in t.queries:
            kind = ("composite:" if name == "Composite" else "") + q.relevance
            assert q.instruction in _inspire_filled(test, kind), (name, q.instruction)
            assert _norm(q.instruction) not in dev_texts, q.instruction
            seen.add(kind)
        for q in d.queries:
            kind = ("composite:" if name == "Composite" else "") + q.relevance
            assert q.instruction in _inspire_filled(dev, kind), (name, q.instruction)
    # the quick slice asks every plain kind and most composite types (some find no positive)
    assert {k for k in kinds if not k.startswith("composite:")} <= seen
    assert len(seen) >= len(kinds) - 2


def test_voicetrace_mini_questions_come_from_the_chosen_wordings(
    tmp_path: Path, fake_speech: list[Any]
) -> None:
    from voxmem.benchmarks.pools import wordings
    from voxmem.benchmarks.retrieval import voicetrace
    from voxmem.benchmarks.retrieval.facts import FACTS

    def filled(role: str) -> set[str]:
        templates = wordings("voicetrace-mini", role)["question"]
        return {t.format(t=f.topic) for t in templates for f in FACTS}

    rows = {}
    for role in ("dev", "test"):
        folder = _write(voicetrace, "voicetrace-mini", role, tmp_path)
        rows[role] = [r for s in voicetrace.SUBSETS for r in voicetrace.load_subset(folder, s)]

    def judged(r: Any) -> tuple[Any, ...]:
        return (r.key, r.document_text, r.query_speakers, r.document_speakers, r.query_audio)

    assert [judged(r) for r in rows["dev"]] == [judged(r) for r in rows["test"]]
    assert {r.subset for r in rows["test"]} == {"single", "multi"}
    dev_texts = {_norm(t) for t in filled("dev")}
    assert all(r.question in filled("dev") for r in rows["dev"])
    for r in rows["test"]:
        assert r.question in filled("test") and _norm(r.question) not in dev_texts, r.question


def test_squtr_instructions_come_from_the_chosen_wordings(
    tmp_path: Path, fakes: Any, fake_speech: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rich.console import Console

    from voxmem.benchmarks.pools import wordings
    from voxmem.benchmarks.registry import Options
    from voxmem.benchmarks.retrieval import harness, squtr

    asked: list[Any] = []
    run = harness.run

    def recording(task: Any, *args: Any, **kwargs: Any) -> Any:
        asked.extend(task.asks)
        return run(task, *args, **kwargs)

    monkeypatch.setattr(harness, "run", recording)
    asks, reports = {}, {}
    for role in ("dev", "test"):
        asked.clear()
        reports[role] = squtr.run_squtr(
            out=tmp_path / role,
            seed=0,
            quick=True,
            console=Console(quiet=True),
            data_dir=None,
            options=Options(retrievers=["bm25"], wordings=role),
        )
        asks[role] = list(asked)
    assert [(a.key, a.judgement) for a in asks["dev"]] == [
        (a.key, a.judgement) for a in asks["test"]
    ]
    assert {a.instruction for a in asks["dev"]} == {squtr.INSTRUCTION}
    test = wordings("squtr-mini", "test")["instruction"]
    for a in asks["test"]:
        assert a.instruction == squtr.instruction_for(a.key, {"instruction": test})
        assert a.instruction in test and _norm(a.instruction) != _norm(squtr.INSTRUCTION)
    assert len({a.instruction for a in asks["test"]}) > 1
    report = reports["test"]
    assert report.meta["wordings"] == "test" and reports["dev"].meta["wordings"] == "dev"
    assert report.edition == "SQuTR-mini (generated, test wordings, quick slice)"
    assert any(n.startswith("Instructions: test wordings") for n in report.notes)
    assert "squtr_mini_test.json" in report.markdown()
    # real data has no instruction either: the chosen wordings phrase it too
    folder = _squtr_folder(tmp_path / "real")
    real = squtr.run_squtr(
        out=tmp_path / "real-out",
        seed=0,
        quick=False,
        console=Console(quiet=True),
        data_dir=folder,
        options=Options(retrievers=["bm25"], splits=["clean"]),
    )
    assert real.meta["wordings"] == "test" and real.edition.endswith("(test wordings)")
    assert asked[-1].instruction == squtr.instruction_for("q1", {"instruction": test})


def test_mini_folders_are_kept_apart_per_wording_role(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rich.console import Console

    from voxmem.benchmarks.pools import EDITIONS, PoolError, wordings
    from voxmem.benchmarks.retrieval import common

    monkeypatch.setenv("VOXMEM_CACHE_DIR", str(tmp_path / "cache"))
    written: list[tuple[Path, Any]] = []

    def write_mini(folder: Path, seed: int, quick: bool, cache: Any, console: Any, w: Any) -> Path:
        written.append((folder, w))
        return folder

    for edition in EDITIONS:
        name = edition.removesuffix("-mini")
        names, labels = [], []
        for role in ("dev", "test"):
            _, folder, label = common.data_folder(
                name,
                name.upper(),
                write_mini,
                7,
                data_dir=None,
                seed=3,
                quick=True,
                console=Console(quiet=True),
                wordings=role,
            )
            assert written[-1][1] == wordings(edition, role)
            names.append(folder.name)
            labels.append(label)
        assert names == [f"{name}-mini-v7-s3-wdev-quick", f"{name}-mini-v7-s3-wtest-quick"]
        assert labels[1] == f"{name.upper()}-mini (generated, test wordings, quick slice)"
    with pytest.raises(PoolError, match="dev and test"):
        common.data_folder(
            "inspire",
            "INSPIRE",
            write_mini,
            1,
            data_dir=None,
            seed=0,
            quick=False,
            console=Console(quiet=True),
            wordings="train",
        )


def test_the_wordings_option_defaults_to_test_and_refuses_others(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from voxmem.benchmarks.cli import app
    from voxmem.benchmarks.registry import Options

    assert Options().wordings == "test"
    result = CliRunner().invoke(
        app, ["run", "inspire", "--wordings", "nonsense", "--out", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "--wordings 'nonsense'" in result.output and "dev or test" in result.output
    assert not (tmp_path / "inspire").exists()
    assert "--wordings" in CliRunner().invoke(app, ["run", "--help"]).output
