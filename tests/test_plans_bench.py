"""Pools with roles (hash-checked test pools, validated rows) and the plan scorer."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from voxmem.benchmarks import plans_bench
from voxmem.benchmarks.plans_bench import UnknownPlanner, content_ok, resolve_planner, score
from voxmem.benchmarks.pools import (
    POOLS,
    FrozenPoolChanged,
    PlanRow,
    Pool,
    PoolSchemaError,
    UnknownPool,
    get_pool,
    load_personal_pool,
    load_plan_pool,
    load_routing_pool,
)
from voxmem.benchmarks.routing_bench import load_pool
from voxmem.retrievers.instruction import InstructionParser
from voxmem.retrievers.plan import Constraint, RetrievalPlan, TimeWindow

NAMES = ("Ana", "Bo")


def _row(**kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": "r1",
        "lang": "en",
        "family": "topic",
        "text": "what did Ana say about the budget",
        "has_reference": False,
        "content": "budget",
        "content_from_reference": False,
        "speaker": "target:Ana",
        "style": "any",
        "environment": "any",
        "role": None,
        "time": None,
    }
    return {**base, **kw}


def _pool(
    tmp_path: Path, rows: Sequence[object], role: str = "dev", sha: str | None = None
) -> Pool:
    path = tmp_path / "pool.jsonl"
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Pool("tiny", role, "plan", str(path), sha256=sha, speaker_names=NAMES)


def _sha(pool: Pool) -> str:
    return hashlib.sha256(pool.path.read_bytes()).hexdigest()


def test_every_test_pool_matches_its_frozen_hash_and_schema() -> None:
    tests = [p for p in POOLS.values() if p.role == "test"]
    assert {p.name for p in tests} >= {
        "plans/test_v13",
        "routing/test",
        "routing/personal_test",
    }
    # retired test pools stay frozen
    retired = [POOLS[f"plans/test_v{n}"] for n in (12, 11, 10, 9, 8, 7, 6, 5, 4, 3)]
    for pool in [*tests, *retired]:
        assert pool.sha256 == _sha(pool), pool.name
    for name in (
        "plans/test_v13",
        "plans/test_v12",
        "plans/test_v11",
        "plans/test_v10",
        "plans/test_v9",
        "plans/test_v8",
        "plans/test_v7",
        "plans/test_v6",
        "plans/test_v5",
        "plans/test_v4",
        "plans/test_v3",
    ):
        rows = load_plan_pool(name)
        assert len(rows) >= 300
        assert len({r.text for r in rows}) == len(rows)
        assert sum(r.lang != "en" for r in rows) >= 40
    assert len(load_routing_pool()) == len(load_pool()) == 368
    assert len(load_personal_pool("routing/personal_test")) == 252
    assert len(load_personal_pool("routing/personal_dev")) == 232


def test_template_pools_name_attributes_that_exist() -> None:
    for pool in POOLS.values():
        if pool.schema != "templates":
            continue
        module, _, names = pool.source.partition(":")
        spec = importlib.util.find_spec(module)
        assert spec and spec.origin, module
        tree = ast.parse(Path(spec.origin).read_text())
        defined = {
            t.id
            for node in tree.body
            if isinstance(node, (ast.Assign, ast.AnnAssign))
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name)
        }
        for name in names.split(","):
            attr = re.match(r"\s*(\w+)", name)
            assert attr and attr.group(1) in defined, pool.source


def test_a_changed_test_pool_is_refused(tmp_path: Path) -> None:
    pool = _pool(tmp_path, [_row()], role="test")
    pool = replace(pool, sha256=_sha(pool))
    assert [r.id for r in load_plan_pool(pool)] == ["r1"]
    pool.path.write_text(pool.path.read_text() + json.dumps(_row(id="r2")) + "\n")
    with pytest.raises(FrozenPoolChanged, match="frozen"):
        load_plan_pool(pool)
    with pytest.raises(FrozenPoolChanged, match="no sha256"):
        load_plan_pool(replace(pool, sha256=None))
    routing = replace(get_pool("routing/test"), source=str(pool.path))
    with pytest.raises(FrozenPoolChanged):
        load_routing_pool(routing)


def test_bad_rows_are_refused_with_every_problem_listed(tmp_path: Path) -> None:
    rows = [
        _row(),
        "{not json",
        _row(id="r3", style="target:grumpy"),
        _row(id="r4", speaker="same"),
        _row(id="r5", content="mortgage"),
        _row(id="r1"),
        {k: v for k, v in _row(id="r7").items() if k != "time"},
        _row(id="r8", content="budget", content_from_reference=True, has_reference=True),
        _row(id="r9", speaker="target:Cy", role="boss", time="tomorrow"),
    ]
    with pytest.raises(PoolSchemaError) as err:
        load_plan_pool(_pool(tmp_path, rows))
    msg = str(err.value)
    assert "line 2: not JSON" in msg
    for line, words in [
        (3, "style 'target:grumpy'"),
        (4, "need has_reference"),
        (5, "['mortgage'] are not in the text"),
        (6, "repeats"),
        (7, "missing 'time'"),
        (8, "content is null when"),
        (9, "speaker 'target:Cy'"),
        (9, "role 'boss'"),
        (9, "time 'tomorrow'"),
    ]:
        assert re.search(rf"line {line}: [^;]*{re.escape(words)}", msg), (line, words)
    assert "line 1:" not in msg
    with pytest.raises(UnknownPool):
        get_pool("plans/nope")


class FakePlanner:
    """Plans looked up by instruction text."""

    def __init__(self, plans: dict[str, RetrievalPlan]) -> None:
        self.plans = plans
        self.calls: list[tuple[str, bool, tuple[str, ...]]] = []

    def parse(
        self, instruction: str, has_reference: bool = False, speaker_names: Sequence[str] = ()
    ) -> RetrievalPlan:
        self.calls.append((instruction, has_reference, tuple(speaker_names)))
        return self.plans[instruction]


def _plan_row(**kw: object) -> PlanRow:
    return PlanRow(**_row(**kw))


def test_scorer_counts_a_hand_made_pool() -> None:
    rows = [
        # right in every part
        _plan_row(id="a", text="what did Ana say about the budget"),
        # style wrong (same asked, any planned)
        _plan_row(
            id="b",
            text="this voice, same mood",
            has_reference=True,
            content=None,
            speaker="same",
            style="same",
        ),
        # right; content taken from the reference, time and role set
        _plan_row(
            id="c",
            lang="de",
            family="qa",
            text="beantworte das",
            has_reference=True,
            content=None,
            content_from_reference=True,
            speaker="any",
            role="agent",
            time="yesterday",
        ),
        # content words right but the time is missed, and a target style is wrong
        _plan_row(
            id="d",
            lang="de",
            text="Bo, gestern, Miete, wütend",
            content="Miete",
            speaker="target:Bo",
            style="target:angry",
            time="yesterday",
        ),
    ]
    planner = FakePlanner(
        {
            "what did Ana say about the budget": RetrievalPlan(
                content="the budget", speaker=Constraint("target", "Ana")
            ),
            "this voice, same mood": RetrievalPlan(speaker=Constraint("same")),
            "beantworte das": RetrievalPlan(
                content_from_reference=True, role="agent", time=TimeWindow(label="yesterday")
            ),
            "Bo, gestern, Miete, wütend": RetrievalPlan(
                content="die Miete",
                speaker=Constraint("target", "Bo"),
                style=Constraint("target", "sad"),
            ),
        }
    )
    got = score(planner, rows, NAMES)
    assert planner.calls[1] == ("this voice, same mood", True, NAMES)
    assert got["whole plan"] == (2, 4)
    assert got["whole plan @en"] == (1, 2)
    assert got["whole plan @not-en"] == (1, 2)
    assert got["whole plan @de"] == (1, 2)
    assert got["whole plan {qa}"] == (1, 1)
    assert got["content"] == (4, 4)
    assert got["content (words)"] == (2, 2)
    assert got["content (reference)"] == (1, 1)
    assert got["content (none)"] == (1, 1)
    assert got["speaker"] == (4, 4)
    assert got["speaker (target)"] == (2, 2)
    assert got["style"] == (2, 4)
    assert got["style (same)"] == (0, 1)
    assert got["style (target)"] == (0, 1)
    assert got["style (any)"] == (2, 2)
    assert got["style @not-en"] == (1, 2)
    assert got["time"] == (3, 4)
    assert got["time (set)"] == (1, 2)
    assert got["role (agent)"] == (1, 1)


@pytest.mark.parametrize(
    ("lang", "gold", "planned", "ok"),
    [
        ("en", "budget", "the budget", True),
        ("en", "kids soccer practice", "the kids' soccer practice", True),
        ("en", "budget", "budget meeting on friday", True),  # two extra words
        ("en", "budget", "budget meeting on friday morning", False),  # three
        ("en", "budget meeting", "budget", False),  # a key word missing
        ("en", "budget", None, False),
        ("en", None, None, True),
        ("en", None, "find clips", False),
        ("es", "presupuesto", "el presupuesto", True),
        ("ja", "予算", "予算について", True),
        ("ja", "予算", "予算と来年の計画全体", False),
        ("ja", "会議 日程", "会議の日程", True),
        # Korean particles only where they end a word: 서울에서 keeps 서울
        ("ko", "예산", "예산에 대해", True),
        ("ko", "예산", "서울에서 예산 이야기", False),
    ],
)
def test_content_matching(lang: str, gold: str | None, planned: str | None, ok: bool) -> None:
    row = _plan_row(lang=lang, content=gold)
    assert content_ok(row, RetrievalPlan(content=planned)) is ok


def test_content_from_the_reference_wants_no_words() -> None:
    row = _plan_row(content=None, content_from_reference=True, has_reference=True)
    assert content_ok(row, RetrievalPlan(content_from_reference=True))
    assert not content_ok(row, RetrievalPlan(content="the answer", content_from_reference=True))
    assert not content_ok(row, RetrievalPlan(content="the answer"))
    assert not content_ok(_plan_row(), RetrievalPlan(content_from_reference=True))


def test_a_style_no_turn_carries_is_right_only_when_its_notice_names_the_gold() -> None:
    row = _plan_row(content="budget", style="target:crying")
    mapped = InstructionParser(planner="lexicon").parse("her sobbing about the budget")
    assert str(mapped.style) == "target:sad" and mapped.notices[0].asked == "crying"
    assert plans_bench.judge(row, mapped)["style"]
    # the stored label without the notice, or a notice naming another label: wrong
    bare = replace(mapped, notices=())
    assert not plans_bench.judge(row, bare)["style"]
    other = replace(mapped, notices=(replace(mapped.notices[0], asked="laughing"),))
    assert not plans_bench.judge(row, other)["style"]
    assert plans_bench.judge(_plan_row(content="budget", style="target:sad"), bare)["style"]


def test_planners_are_named_or_loaded_by_entry_point() -> None:
    lexicon = resolve_planner("lexicon")
    assert isinstance(lexicon, InstructionParser) and lexicon.kind == "lexicon"
    trained = resolve_planner("trained")
    assert isinstance(trained, InstructionParser) and trained.kind == "trained"
    # each name plans as itself: the lexicon reads "the same speaker" in its own way, and
    # neither falls back to the other without a notice
    for planner in (lexicon, trained):
        plan = planner.parse("what did the same speaker say about the budget", True)
        assert plan.speaker.mode == "same" and "budget" in (plan.content or "")
        assert not any(n.kind == "fallback" for n in plan.notices)
    loaded = resolve_planner("voxmem.benchmarks.plans_bench:_lexicon")
    assert isinstance(loaded, InstructionParser)
    with pytest.raises(UnknownPlanner):
        resolve_planner("nonsense")
    with pytest.raises(UnknownPlanner):
        resolve_planner("voxmem.benchmarks.plans_bench:missing")


def test_run_plans_labels_each_pool_with_its_role(tmp_path: Path) -> None:
    report = plans_bench.run_plans(
        out=tmp_path,
        seed=0,
        quick=True,
        console=Console(quiet=True),
        pools=["plans/tune", "plans/fresh"],
    )
    whole = {(r["pool"], r["role"]) for r in report.rows if r["part"] == "whole plan"}
    assert whole == {("plans/tune", "train"), ("plans/fresh", "dev")}
    assert all(r["n"] == 60 for r in report.rows if r["part"] == "whole plan")
    assert report.meta["pools"]["plans/fresh"]["role"] == "dev"
