"""What the retrieval benchmarks share besides the harness: timings, progress, data
folders, reports and plots."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from voxmem.benchmarks import pools
from voxmem.benchmarks.pools import PoolError, Role, Wordings
from voxmem.benchmarks.registry import WORDING_ROLES
from voxmem.benchmarks.synth import ClipCache
from voxmem.retrievers.baselines import RETRIEVERS
from voxmem.settings import Settings

DEFAULT_RETRIEVERS = tuple(RETRIEVERS)


def progress(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )


@dataclass
class Timer:
    """Seconds spent per retriever (and on shared query encoding)."""

    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, key: str, t0: float) -> None:
        self.seconds[key] = self.seconds.get(key, 0.0) + time.perf_counter() - t0


def check_retrievers(names: Iterable[str] | None, allowed: Sequence[str]) -> list[str]:
    from voxmem.errors import BenchmarkDataError

    chosen = list(names or allowed)
    unknown = [n for n in chosen if n not in allowed]
    if unknown:
        raise BenchmarkDataError(
            f"unknown retriever(s) {', '.join(unknown)}; this benchmark runs: " + ", ".join(allowed)
        )
    return chosen


def take(items: Sequence[Any], limit: int | None) -> list[Any]:
    return list(items if limit is None else items[:limit])


# -- plots -----------------------------------------------------------------------------


def bar_plot(
    values: Mapping[str, Mapping[str, float]],
    path: Path,
    title: str,
    ylabel: str,
    published: Mapping[str, float] | None = None,
) -> Path:
    """Grouped bars: one group per split (outer key of each retriever's values), one bar
    per retriever; ``published`` figures as black marks labelled as such."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    retrievers = list(values)
    groups = list(dict.fromkeys(g for r in retrievers for g in values[r]))
    fig, ax = plt.subplots(figsize=(max(7.0, 1.6 * len(groups) + 3.5), 4.2))
    width = 0.8 / max(1, len(retrievers))
    x = np.arange(len(groups))
    for i, r in enumerate(retrievers):
        ys = [values[r].get(g, np.nan) for g in groups]
        ax.bar(x + (i - (len(retrievers) - 1) / 2) * width, ys, width, label=r)
    if published:
        for j, g in enumerate(groups):
            if g in published:
                ax.plot([x[j] - 0.4, x[j] + 0.4], [published[g]] * 2, "k--", lw=1)
        ax.plot([], [], "k--", lw=1, label="published best (real data)")
    ax.set_xticks(x, groups, rotation=15 if len(groups) > 4 else 0)
    return _finish(fig, ax, path, title, ylabel)


def line_plot(
    values: Mapping[str, Mapping[str, float]],
    path: Path,
    title: str,
    xlabel: str,
    ylabel: str,
    published: Mapping[str, Mapping[str, float]] | None = None,
) -> Path:
    """One line per retriever; ``published`` series (other data) dashed and grey."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.0, 4.2))
    for r, series in values.items():
        xs = list(series)
        ax.plot(xs, [series[x] for x in xs], marker="o", label=r)
    for label, series in (published or {}).items():
        xs = list(series)
        ax.plot(xs, [series[x] for x in xs], "--", color="grey", marker="x", lw=1, label=label)
    ax.set_xlabel(xlabel)
    return _finish(fig, ax, path, title, ylabel)


def _finish(fig: Any, ax: Any, path: Path, title: str, ylabel: str) -> Path:
    """Title, y label, the legend outside the axes, and the PNG written."""
    import matplotlib.pyplot as plt

    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7, bbox_to_anchor=(1.01, 1), loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def pivot(
    results: Mapping[str, Mapping[str, Mapping[str, float]]], metric: str
) -> dict[str, dict[str, float]]:
    """``results[retriever][split][metric]`` -> ``{retriever: {split: value}}``."""
    return {
        r: {s: m[metric] for s, m in splits.items() if metric in m} for r, splits in results.items()
    }


class WriteMini(Protocol):
    def __call__(
        self,
        folder: Path,
        seed: int,
        quick: bool,
        cache: ClipCache,
        console: Console,
        wordings: Wordings,
    ) -> Path: ...


def wording_rng(seed: int, *stream: int) -> np.random.Generator:
    """The stream a mini edition draws its instruction wordings from, apart from the one
    its queries are drawn from: the queries (anchors, positives, clips) are the same
    whichever wordings phrase them."""
    return np.random.default_rng([seed, *stream, 99])


def check_wordings_role(role: str) -> str:
    """``role`` if it is one of the mini editions' wording roles; else a ``PoolError``."""
    if role not in WORDING_ROLES:
        raise PoolError(
            f"--wordings {role!r}: the mini editions have {' and '.join(WORDING_ROLES)} wordings"
        )
    return role


def data_folder(
    name: str,
    label: str,
    write_mini: WriteMini,
    version: int,
    *,
    data_dir: Path | None,
    seed: int,
    quick: bool,
    console: Console,
    wordings: str = "test",
    data_has_instructions: bool = True,
) -> tuple[Settings, Path, str]:
    """Settings, the folder to read and the edition's name: ``data_dir`` as given, or the
    mini edition generated (once per generator version, seed, wording role and slice) in
    the cache, its instructions drawn from ``pools.wordings(f"{name}-mini", wordings)``.
    ``data_has_instructions`` false: the run phrases the real data's instructions from
    the wordings too, and the edition's name says which."""
    role = check_wordings_role(wordings)
    settings = bench_settings(mini=data_dir is None)
    if data_dir is not None:
        said = "" if data_has_instructions else f" ({role} wordings)"
        return settings, data_dir, f"{label} from {data_dir}{said}"
    folder = write_mini(
        settings.cache_dir / "bench-data" / f"{name}-mini-v{version}-s{seed}-w{role}"
        f"{'-quick' if quick else ''}",
        seed,
        quick,
        ClipCache(settings.cache_dir / "synth"),
        console,
        pools.wordings(f"{name}-mini", cast(Role, role)),
    )
    return (
        settings,
        folder,
        f"{label}-mini (generated, {role} wordings" + (", quick slice)" if quick else ")"),
    )


def wordings_used(role: str, data_dir: Path | None, data_has_instructions: bool = True) -> str:
    """What phrased a run's instructions, for its report's meta: the wording role, or
    ``"data"`` when real data brings its own."""
    return "data" if data_dir is not None and data_has_instructions else role


def wordings_note(edition: str, used: str) -> str:
    """The summary's line on which instruction wordings a run was measured on."""
    if used == "test":
        source = pools.get_pool(f"{edition}/test").source
        return (
            f"Instructions: test wordings (benchmarks/data/{source}, held out and frozen: "
            "the instruction parser and planner were never trained or tuned on them)."
        )
    if used == "dev":
        return (
            f"Instructions: dev wordings ({edition}'s own tables, which the instruction "
            "parser and planner were tuned on: instruct's figures here are tuning figures)."
        )
    return "Instructions: the data's own (--wordings applies to the generated mini editions)."


def timings(timer: Timer, start: float) -> dict[str, float]:
    """A report's timings: each part's seconds and the whole run's."""
    return {
        **{k: round(v, 2) for k, v in timer.seconds.items()},
        "total_s": time.perf_counter() - start,
    }


def bench_settings(mini: bool) -> Settings:
    """The user's settings; the mini editions are English, so their ASR skips language
    detection unless a language is configured."""
    settings = Settings()
    if mini and settings.asr.language is None:
        settings.asr = settings.asr.model_copy(update={"language": "en"})
    return settings
