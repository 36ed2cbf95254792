"""The look-in-memory decision after a short history (``routing_bench``): how a
tentative route is judged, the personal pools' schema, and that a test pool's errors
are not listed. The figures themselves come from ``benchmarks run routing``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from voxmem.agent.route import Router
from voxmem.benchmarks import routing_bench
from voxmem.benchmarks.pools import PoolSchemaError, get_pool, load_personal_pool


def _item(question: str, memory: bool, kind: str, history: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "id": "x",
        "history": [{"role": r, "text": t} for r, t in history],
        "question": question,
        "kind": kind,
        "memory": memory,
        "support": 0 if memory else None,
        "answer": None,
    }


HISTORY = [
    ("user", "My train to the conference leaves from the north station."),
    ("agent", "Book a window seat on the left for the coast."),
]


@pytest.fixture(scope="module")
def router() -> Router:
    return Router(agent_name="Vox")


def test_a_tentative_question_counts_only_when_the_history_holds_its_words(
    router: Router,
) -> None:
    asked = _item("which station does my train leave from?", True, "user_fact", HISTORY)
    assert routing_bench.judge_personal(router, asked) == {
        "decision": True,
        "rules_only": False,
    }
    absent = _item("where's my umbrella?", False, "absent", HISTORY)
    assert router.route(absent["question"], ()).tentative
    assert routing_bench.judge_personal(router, absent)["decision"]
    # "my" asks about the user: the agent's turns do not answer it
    theirs = _item("which seat is my window seat?", False, "absent", HISTORY[1:] + HISTORY[1:])
    assert router.route(theirs["question"], ()).speaker == "self"
    assert routing_bench.judge_personal(router, theirs)["decision"]
    ruled = _item("What did I say about the train?", True, "user_fact", HISTORY)
    assert routing_bench.judge_personal(router, ruled) == {"decision": True, "rules_only": True}


def test_scores_are_split_by_kind(router: Router) -> None:
    items = [
        _item("which station does my train leave from?", True, "user_fact", HISTORY),
        _item("what should I pack?", False, "advice", HISTORY),
        _item("where's my umbrella?", True, "user_fact", HISTORY),
    ]
    scored = routing_bench.score_personal(router, items)
    assert scored["counts"]["all"] == [2, 1, 3]
    assert scored["counts"]["user_fact"] == [1, 0, 2]
    assert scored["counts"]["advice"] == [1, 1, 1]
    assert [w["question"] for w in scored["wrong"]] == ["where's my umbrella?"]


def test_personal_rows_that_break_the_schema_are_refused(tmp_path: Path) -> None:
    good = _item("which station?", True, "user_fact", HISTORY)
    bad_kind = {**good, "kind": "gossip"}
    bad_memory = {**good, "kind": "advice"}
    bad_support = {**good, "support": 9}
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (good, bad_kind, bad_memory, bad_support)))
    pool = replace(get_pool("routing/personal_dev"), source=str(path))
    with pytest.raises(PoolSchemaError) as err:
        load_personal_pool(pool)
    assert "line 2" in str(err.value) and "line 3" in str(err.value)
    assert "line 4" in str(err.value) and "line 1" not in str(err.value)


def test_a_test_pools_errors_are_not_listed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        routing_bench.main(["--pool", "routing/personal_test", "--errors"])
    assert "test pool" in capsys.readouterr().err


def test_spoken_questions_are_what_the_recognizer_hears(tmp_path: Path) -> None:
    """The shipped synthetic voice and whisper: the question reaches the router as the
    settings' ASR hears the first benchmark voice say it. What whisper hears of one
    synthetic voice differs between CPUs (on one machine "which stationed as my train
    leave from."), so the words are checked against the recognizer's own reading of the
    same clip, and only for the gist against the written question."""
    from voxmem.benchmarks.retrieval.contextdialog_mini import USER_VOICES
    from voxmem.benchmarks.synth import Utterance, render
    from voxmem.memory.encoders.factory import transcriber
    from voxmem.settings import Settings

    question = "Which station does my train leave from?"
    item = _item(question, True, "user_fact", HISTORY)
    (heard,) = routing_bench.spoken([item], tmp_path)
    assert heard["history"] == item["history"] and heard["question"] != ""
    clip = render(Utterance(question, USER_VOICES[0]), tmp_path)
    assert heard["question"] == transcriber(Settings()).transcribe(clip).text.strip()
    words = set(heard["question"].lower().replace("?", " ").replace(".", " ").split())
    assert len(words & {"which", "station", "does", "my", "train", "leave", "from"}) >= 4
