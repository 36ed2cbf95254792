"""Benchmarks by name. A runner takes an output folder, a seed, ``quick`` and an optional
folder of real data in the benchmark's published format."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rich.console import Console

from voxmem.benchmarks.report import Report

#: where the retrieval mini editions' instruction wordings come from: ``dev``, the
#: editions' own tables (the instruction parser and planner were tuned on them), or
#: ``test``, the frozen held-out files (``data/instructions/*_test.json``)
WORDING_ROLES = ("dev", "test")
#: the engines ``benchmarks run store --backend`` measures
BACKENDS = ("embedded", "server")


@dataclass(frozen=True)
class Options:
    """What a user narrows a run to: splits (or subsets, or conditions), queries per
    split, retrievers; and which wordings (``WORDING_ROLES``) phrase the generated mini
    editions' instructions."""

    splits: list[str] | None = None
    limit: int | None = None
    retrievers: list[str] | None = None
    wordings: str = "test"
    #: the store benchmark's engines: ``embedded`` or ``server``
    backend: str = "embedded"


class RunFn(Protocol):
    def __call__(
        self,
        *,
        out: Path,
        seed: int,
        quick: bool,
        console: Console,
        data_dir: Path | None,
        options: Options,
    ) -> Report: ...


@dataclass(frozen=True)
class Runner:
    name: str
    description: str
    run: RunFn


def _voices(
    *, out: Path, seed: int, quick: bool, console: Console, data_dir: Path | None, **_: object
) -> Report:
    from voxmem.benchmarks.voices import run_voices

    return run_voices(out=out, seed=seed, quick=quick, console=console)


def _probes(
    *, out: Path, seed: int, quick: bool, console: Console, data_dir: Path | None, **_: object
) -> Report:
    from voxmem.benchmarks.probes.run import run_probes

    return run_probes(out=out, seed=seed, quick=quick, console=console, data_dir=data_dir)


def _store(
    *,
    out: Path,
    seed: int,
    quick: bool,
    console: Console,
    data_dir: Path | None,
    options: Options | None = None,
    **_: object,
) -> Report:
    from voxmem.benchmarks.store_bench import run_store

    backend = options.backend if options else "embedded"
    sizes = None
    if options and options.splits:  # --split 10000: only that many segments
        bad = [s for s in options.splits if not s.isdigit() or int(s) < 100]
        if bad:
            from voxmem.errors import BenchmarkDataError

            raise BenchmarkDataError(
                f"unknown split {bad[0]!r}; the store's splits are sizes of 100 or more, "
                "e.g. --split 10000"
            )
        sizes = [int(s) for s in options.splits]
    return run_store(out=out, seed=seed, quick=quick, console=console, backend=backend, sizes=sizes)


def _plans(
    *, out: Path, seed: int, quick: bool, console: Console, data_dir: Path | None, **_: object
) -> Report:
    from voxmem.benchmarks.plans_bench import run_plans

    return run_plans(out=out, seed=seed, quick=quick, console=console)


def _recall(
    *, out: Path, seed: int, quick: bool, console: Console, data_dir: Path | None, **_: object
) -> Report:
    from voxmem.benchmarks.recall_bench import run_recall

    return run_recall(out=out, seed=seed, quick=quick, console=console)


def _routing(
    *, out: Path, seed: int, quick: bool, console: Console, data_dir: Path | None, **_: object
) -> Report:
    from voxmem.benchmarks.routing_bench import run_routing

    return run_routing(out=out, seed=seed, quick=quick, console=console)


def _agent(
    *, out: Path, seed: int, quick: bool, console: Console, data_dir: Path | None, **_: object
) -> Report:
    from voxmem.benchmarks.agent_bench import run_agent_bench

    return run_agent_bench(out=out, seed=seed, quick=quick, console=console)


def _voice(
    *, out: Path, seed: int, quick: bool, console: Console, data_dir: Path | None, **_: object
) -> Report:
    from voxmem.benchmarks.voice_bench import run_voice

    return run_voice(out=out, seed=seed, quick=quick, console=console)


def _inspire(**kw: Any) -> Report:
    from voxmem.benchmarks.retrieval.inspire import run_inspire

    return run_inspire(**kw)


def _voicetrace(**kw: Any) -> Report:
    from voxmem.benchmarks.retrieval.voicetrace import run_voicetrace

    return run_voicetrace(**kw)


def _contextdialog(**kw: Any) -> Report:
    from voxmem.benchmarks.retrieval.contextdialog import run_contextdialog

    return run_contextdialog(**kw)


def _squtr(**kw: Any) -> Report:
    from voxmem.benchmarks.retrieval.squtr import run_squtr

    return run_squtr(**kw)


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
            "routing",
            "the agent's memory/no-memory decision and its plan (speaker, role, style, "
            "environment, time, topic) on a frozen pool of conversational requests",
            _routing,
        ),
        Runner(
            "agent",
            "a scripted spoken conversation through the whole agent with the shipped models: "
            "per-node latency p50/p95 (first audio after the user's turn) at 10k stored turns",
            _agent,
        ),
        Runner(
            "voice",
            "voxmem serve with synthetic callers streaming in real time: end of speech to "
            "first reply audio p50/p95 at 1, 4 and 8 sessions, per stage, and barge-in",
            _voice,
        ),
        Runner(
            "recall",
            "instruction-aware query latency at 10k segments, with and without a reference clip",
            _recall,
        ),
        Runner(
            "inspire",
            "INSPIRE instruction-aware speech retrieval (continuation, speaker, style, "
            "composite), every retriever, Recall@k / NDCG@k",
            _inspire,
        ),
        Runner(
            "voicetrace",
            "VoiceTrace who-said-what retrieval, single- and multi-speaker documents, "
            "hit-rate R@k / NDCG@k",
            _voicetrace,
        ),
        Runner(
            "squtr",
            "SQuTR spoken query to text retrieval at clean, 20, 10 and 0 dB, "
            "nDCG@10 / MRR@10 / Recall@10",
            _squtr,
        ),
        Runner(
            "contextdialog",
            "ContextDialog spoken multi-turn context recall through the agent: "
            "supporting-turn recall@1/@3 and answer accuracy, user vs assistant side, "
            "no memory / dense RAG / bm25 / instruct / oracle",
            _contextdialog,
        ),
    ]
}


def get_runner(name: str) -> Runner:
    try:
        return RUNNERS[name]
    except KeyError:
        raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(sorted(RUNNERS))}") from None
