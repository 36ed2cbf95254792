"""Benchmarks by name. A runner takes an output folder, a seed, ``quick`` and an optional
folder of real data in the benchmark's published format."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from rich.console import Console

from voxmem.benchmarks.report import Report


class RunFn(Protocol):
    def __call__(
        self, *, out: Path, seed: int, quick: bool, console: Console, data_dir: Path | None
    ) -> Report: ...


@dataclass(frozen=True)
class Runner:
    name: str
    description: str
    run: RunFn


def _voices(
    *, out: Path, seed: int, quick: bool, console: Console, data_dir: Path | None
) -> Report:
    from voxmem.benchmarks.voices import run_voices

    return run_voices(out=out, seed=seed, quick=quick, console=console)


def _probes(
    *, out: Path, seed: int, quick: bool, console: Console, data_dir: Path | None
) -> Report:
    from voxmem.benchmarks.probes.run import run_probes

    return run_probes(out=out, seed=seed, quick=quick, console=console, data_dir=data_dir)


def _store(*, out: Path, seed: int, quick: bool, console: Console, data_dir: Path | None) -> Report:
    from voxmem.benchmarks.store_bench import run_store

    return run_store(out=out, seed=seed, quick=quick, console=console)


def _plans(*, out: Path, seed: int, quick: bool, console: Console, data_dir: Path | None) -> Report:
    from voxmem.benchmarks.plans_bench import run_plans

    return run_plans(out=out, seed=seed, quick=quick, console=console)


def _recall(
    *, out: Path, seed: int, quick: bool, console: Console, data_dir: Path | None
) -> Report:
    from voxmem.benchmarks.recall_bench import run_recall

    return run_recall(out=out, seed=seed, quick=quick, console=console)


RUNNERS: dict[str, Runner] = {
    r.name: r
    for r in [
        Runner(
            "voices",
            "the synthetic voice, style and background set: render cost and "
            "levels per voice and style",
            _voices,
        ),
        Runner(
            "probes",
            "each encoder on its own, in Dynamic-SUPERB's task format: speaker EER, style and "
            "environment accuracy, ASR WER, diarization DER, throughput",
            _probes,
        ),
        Runner(
            "store",
            "the memory store at 1k, 10k and 100k segments: insert rate, search latency with "
            "and without filters, four-space search, forget, rebuild, disk per segment",
            _store,
        ),
        Runner(
            "plans",
            "instruction parsing: plan accuracy per attribute and per same/target kind on "
            "held-out wordings",
            _plans,
        ),
        Runner(
            "recall",
            "instruction-aware query latency at 10k segments, with and without a reference clip",
            _recall,
        ),
    ]
}


def get_runner(name: str) -> Runner:
    try:
        return RUNNERS[name]
    except KeyError:
        raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(sorted(RUNNERS))}") from None
