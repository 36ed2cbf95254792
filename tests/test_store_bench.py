from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from voxmem.benchmarks.registry import Options, get_runner
from voxmem.errors import BenchmarkDataError


def _run(tmp_path: Path, splits: list[str]) -> object:
    return get_runner("store").run(
        out=tmp_path / "store",
        seed=0,
        quick=True,
        console=Console(file=io.StringIO()),
        data_dir=None,
        options=Options(splits=splits),
    )


def test_the_store_benchmark_measures_the_sizes_asked_for(tmp_path: Path) -> None:
    """``benchmarks run store --split 300``: one size, every figure measured, and the
    memory verified after its forget and rebuild (the run asserts it)."""
    report = _run(tmp_path, ["300"])
    (row,) = report.rows  # type: ignore[attr-defined]
    assert row["segments"] == 300 and row["backend"] == "embedded"
    for key in ("insert_per_s", "four_at_once_p95_ms", "bare_four_p95_ms", "forget_s"):
        assert row[key] > 0, key
    assert row["filtered_p50_ms"] <= row["filtered_p95_ms"]
    assert row["bare_filtered_p95_ms"] > 0
    # the forget's steps, timed where they run, add up to no more than the whole
    steps = [row[f"forget_{k}_s"] for k in ("catalog", "index", "check")]
    assert all(s > 0 for s in steps), steps
    assert sum(steps) <= row["forget_s"]
    assert row["rebuild_s"] > 0


def test_a_size_above_the_rebuild_ceiling_skips_the_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rebuilding a million turns would outlast the rest of the run: above REBUILD_MAX
    the rebuild is not timed (empty), and the report says so."""
    from voxmem.benchmarks import store_bench

    monkeypatch.setattr(store_bench, "REBUILD_MAX", 200)
    report = _run(tmp_path, ["300"])
    (row,) = report.rows  # type: ignore[attr-defined]
    assert row["rebuild_s"] is None and row["forget_s"] > 0
    assert (tmp_path / "store" / "store.png").stat().st_size > 0
    assert any("up to 200 segments" in n for n in report.notes)  # type: ignore[attr-defined]


def test_a_store_split_that_is_not_a_size_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BenchmarkDataError, match="sizes"):
        _run(tmp_path, ["ten"])
