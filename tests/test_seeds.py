"""Figures pooled over several generated editions (``benchmarks run NAME --seed ...``):
the pooling and the paired comparison on made-up runs, and the command's plumbing with
a stand-in runner. The real runners' per-query rows are checked by the quick run of
SQuTR-mini over two seeds in test_retrieval_bench."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from voxmem.benchmarks.seeds import Edition, compare, pooled
from voxmem.errors import BenchmarkDataError


def _run(seed: int, scores: dict[str, dict[str, list[float]]]) -> dict[str, Any]:
    """A results.json of a retrieval run: ``scores[retriever][group]`` per query."""
    rows = {
        r: {g: [{"nDCG@10": v, "R@10": min(1.0, 2 * v)} for v in vs] for g, vs in groups.items()}
        for r, groups in scores.items()
    }
    return {
        "benchmark": "squtr",
        "edition": "SQuTR-mini (generated, test wordings)",
        "notes": ["Instructions: test wordings (held out).", f"ingest took {seed} s"],
        "timings": {"total_s": 10.0 + seed},
        "published": {"source": "SQuTR paper"},
        "results": {
            "metrics": "trec_eval",
            "per_query": {"family": "per_condition", "rows": rows},
            "per_condition": {
                r: {g: {"nDCG@10": float(np.mean(vs))} for g, vs in groups.items()}
                for r, groups in scores.items()
            },
        },
    }


def test_the_paired_difference_and_its_interval() -> None:
    rng = np.random.default_rng(0)
    same = [np.array([0.2, 0.5, 1.0]), np.array([0.0, 0.3])]
    tie = compare(same, same, rng)
    assert tie["difference"] == 0.0 and tie["interval"] == [0.0, 0.0]
    assert tie["editions_at_least"] == 2 and tie["verdict"] == "no clear difference"
    worse = compare([np.zeros(20)] * 3, [np.ones(20)] * 3, rng)
    assert worse["difference"] == -1.0 and worse["interval"][1] < 0
    assert worse["editions_at_least"] == 0 and worse["verdict"] == "worse"
    better = compare([np.ones(20)] * 2, [np.r_[np.zeros(10), np.ones(10)]] * 2, rng)
    assert better["interval"][0] > 0 and better["verdict"] == "better"
    # one query of 40 lost by a whole point, the rest tied: below, but the interval holds 0
    ours = [np.ones(20), np.r_[np.ones(19), 0.0]]
    close = compare(ours, [np.ones(20), np.ones(20)], rng)
    assert close["difference"] == pytest.approx(-1 / 40)
    assert close["interval"][0] < 0 <= close["interval"][1]
    assert close["editions_at_least"] == 1 and close["verdict"] == "no clear difference"


def test_pooled_figures_are_the_mean_over_every_query_of_every_edition() -> None:
    a = _run(0, {"instruct": {"clean": [1.0, 0.5]}, "bm25": {"clean": [0.5, 0.5]},
                 "random": {"clean": [0.0, 0.0]}})  # fmt: skip
    b = _run(1, {"instruct": {"clean": [0.0, 0.5]}, "bm25": {"clean": [1.0, 0.5]},
                 "random": {"clean": [0.5, 0.0]}})  # fmt: skip
    report = pooled("squtr", [Edition(0, a), Edition(1, b)])
    assert report.meta["seeds"] == [0, 1] and "2 editions (seeds 0, 1)" in report.edition
    by = {(r["group"], r["retriever"]): r for r in report.rows}
    assert by["clean", "instruct"]["nDCG@10"] == pytest.approx(0.5)
    assert by["clean", "instruct"]["queries"] == 4
    assert by["clean", "bm25"]["nDCG@10 per edition"] == "0.5 / 0.75"
    vs = report.results["vs_baselines"]["clean"]
    assert set(vs) == {"bm25"}  # not random, not instruct itself
    assert vs["bm25"]["difference"] == pytest.approx(-0.125)
    assert vs["bm25"]["editions_at_least"] == 1
    assert report.results["per_condition"]["bm25"]["clean"]["nDCG@10"] == pytest.approx(0.625)
    # the wording note every run shares is kept; each run's own notes are not
    assert report.notes[0].startswith("Instructions:")
    assert not any("ingest took" in n for n in report.notes)
    assert any(n.startswith("clean: instruct - bm25 nDCG@10 -0.125") for n in report.notes)
    assert report.timings == {"seed 0": 10.0, "seed 1": 11.0}


def test_runs_that_cannot_be_pooled_are_refused() -> None:
    a = _run(0, {"instruct": {"clean": [1.0]}, "bm25": {"clean": [0.5]}})
    other = _run(1, {"instruct": {"clean": [1.0]}, "dense": {"clean": [0.5]}})
    with pytest.raises(BenchmarkDataError, match="other retrievers"):
        pooled("squtr", [Edition(0, a), Edition(1, other)])
    short = _run(1, {"instruct": {"clean": [1.0, 1.0]}, "bm25": {"clean": [0.5]}})
    with pytest.raises(BenchmarkDataError, match="cannot be paired"):
        pooled("squtr", [Edition(0, a), Edition(1, short)])
    old = json.loads(json.dumps(a))
    del old["results"]["per_query"]
    with pytest.raises(BenchmarkDataError, match="no per-query rows"):
        pooled("squtr", [Edition(0, a), Edition(1, old)])
    with pytest.raises(BenchmarkDataError, match="at least two"):
        pooled("squtr", [Edition(0, a)])
    with pytest.raises(BenchmarkDataError, match="not to plans"):
        pooled("plans", [Edition(0, a), Edition(1, a)])


def test_the_command_runs_an_edition_per_seed_and_pools_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from voxmem.benchmarks import cli, registry
    from voxmem.benchmarks.report import Report

    asked: list[tuple[int, Path]] = []

    def fake_run(*, out: Path, seed: int, **_: Any) -> Report:
        asked.append((seed, out))
        r = _run(seed, {"instruct": {"clean": [0.5, 0.5 * seed]}, "bm25": {"clean": [0.5, 0.5]}})
        return Report("squtr", r["edition"], ["x"], notes=r["notes"], results=r["results"])

    monkeypatch.setitem(registry.RUNNERS, "squtr", registry.Runner("squtr", "stand-in", fake_run))
    args = ["run", "squtr", "--seed", "0", "--seed", "1", "--out", str(tmp_path)]
    result = CliRunner().invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    assert asked == [(0, tmp_path / "squtr" / "seed-0"), (1, tmp_path / "squtr" / "seed-1")]
    for s in (0, 1):
        assert json.loads((tmp_path / "squtr" / f"seed-{s}" / "results.json").read_text())
    pooled_json = json.loads((tmp_path / "squtr" / "results.json").read_text())
    assert pooled_json["meta"]["seeds"] == [0, 1]
    assert pooled_json["results"]["vs_baselines"]["clean"]["bm25"]["editions_at_least"] == 1
    assert "instruct - bm25" in (tmp_path / "squtr" / "summary.md").read_text()
    assert "instruct - bm25" in result.output

    # one seed writes where it always did
    asked.clear()
    one = CliRunner().invoke(cli.app, ["run", "squtr", "--seed", "2", "--out", str(tmp_path / "o")])
    assert one.exit_code == 0 and asked == [(2, tmp_path / "o" / "squtr")]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "plans", "--seed", "0", "--seed", "1"], "plans takes one"),
        (["run", "squtr", "--seed", "0", "--seed", "1", "--data-dir", "."], "--data-dir is one"),
        (["run", "squtr", "--seed", "3", "--seed", "3"], "give each seed once"),
    ],
)
def test_several_seeds_where_they_do_not_apply_is_a_usage_error(
    args: list[str], message: str
) -> None:
    from typer.testing import CliRunner

    from voxmem.benchmarks import cli

    result = CliRunner().invoke(cli.app, args)
    assert result.exit_code == 2 and message in result.output
