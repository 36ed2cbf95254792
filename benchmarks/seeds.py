"""Figures over several generated editions: ``benchmarks run NAME --seed 0 --seed 1 ...``.

A mini edition is one draw: which voice says which sentence, which style and background
each clip gets, and which instruction wording each query has all come from its seed,
and so does how the ASR hears its noisy clips. Gaps of one or two queries between
retrievers move from one draw to the next, so a claim such as "instruct is at least as
good as dense" is judged here over several editions:

- each retriever's figures pooled over every query of every edition (a mean over
  queries: an edition with more queries in a group weighs more; INSPIRE-mini's
  Composite drops queries that have no positive, so its editions differ a little), and
  the headline metric of each edition beside it;
- for ``instruct`` against each baseline, the paired difference of the headline metric
  (the same query, both retrievers), pooled, with a 95 % bootstrap interval that
  resamples queries within each edition (the editions themselves are held fixed, so
  the interval is about these editions' queries, not about editions yet to be drawn;
  with a few queries per group, as in the quick slices, it is too narrow), and the
  number of editions in which ``instruct`` was at least as good. The verdict reads the
  interval: ``better`` or ``worse`` where it excludes 0, ``no clear difference`` where
  it holds 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from voxmem.benchmarks.report import Report
from voxmem.errors import BenchmarkDataError
from voxmem.retrievers.metrics import mean_scores

#: the benchmarks whose editions are generated per seed, and each one's headline metric
HEADLINE = {"inspire": "R@10", "voicetrace": "R@10", "squtr": "nDCG@10"}
#: the runners' tables show these benchmarks' figures in percent
PERCENT = {"inspire", "voicetrace"}
#: retrievers that ``instruct`` is not compared with
NOT_BASELINES = {"instruct", "random"}
BOOTSTRAP_DRAWS = 2000
BOOTSTRAP_SEED = 0
#: differences smaller than this are ties (float sums of the same figures)
TIE = 1e-9


@dataclass(frozen=True)
class Edition:
    """One run's results.json, generated from ``seed``."""

    seed: int
    results: dict[str, Any]

    def rows(self) -> dict[str, dict[str, list[dict[str, float]]]]:
        per_query = self.results.get("results", {}).get("per_query")
        if not per_query:
            raise BenchmarkDataError(
                f"the run of seed {self.seed} kept no per-query rows (results.per_query); "
                "rerun it with this version of the benchmark"
            )
        rows: dict[str, dict[str, list[dict[str, float]]]] = per_query["rows"]
        return rows


def pooled(name: str, editions: Sequence[Edition]) -> Report:
    """One report for ``editions`` of benchmark ``name`` (see the module's note)."""
    if name not in HEADLINE:
        raise BenchmarkDataError(
            f"several seeds apply to the generated editions of {', '.join(sorted(HEADLINE))}, "
            f"not to {name}"
        )
    if len(editions) < 2:
        raise BenchmarkDataError("pooling needs the results of at least two editions")
    headline = HEADLINE[name]
    scale = 100.0 if name in PERCENT else 1.0
    per_edition = [e.rows() for e in editions]
    first = per_edition[0]
    retrievers = list(first)
    groups = list(next(iter(first.values())))
    # INSPIRE's pooled "Total" last, as the runner's table has it
    groups = [g for g in groups if g != "Total"] + [g for g in groups if g == "Total"]
    for e, rows in zip(editions, per_edition, strict=True):
        if list(rows) != retrievers or any(set(rows[r]) != set(groups) for r in retrievers):
            raise BenchmarkDataError(
                f"seed {e.seed} ran other retrievers or groups than seed {editions[0].seed} "
                f"({', '.join(rows)} on {', '.join(next(iter(rows.values()), {}))}); "
                "pool runs made with the same options"
            )
        for r in retrievers:
            for g in groups:
                if len(rows[r][g]) != len(rows[retrievers[0]][g]):
                    raise BenchmarkDataError(
                        f"seed {e.seed}: {r} has another number of {g} queries than "
                        f"{retrievers[0]}; its rows cannot be paired"
                    )
    metrics = list(next((rows[0] for rows in first[retrievers[0]].values() if rows), {}))
    family = str(editions[0].results["results"]["per_query"]["family"])
    seeds = [e.seed for e in editions]
    if len(set(seeds)) != len(seeds):
        raise BenchmarkDataError(f"seeds {seeds}: each edition once")
    report = Report(
        name,
        f"{editions[0].results.get('edition', name)}, {len(editions)} editions "
        f"(seeds {', '.join(map(str, seeds))})",
        ["group", "retriever", "queries", *metrics, f"{headline} per edition"],
        meta={
            "seeds": seeds,
            "runs": {str(s): f"seed-{s}/results.json" for s in seeds},
            "bootstrap": {"draws": BOOTSTRAP_DRAWS, "seed": BOOTSTRAP_SEED, "level": 0.95},
            "headline": headline,
            **{
                k: editions[0].results.get("meta", {})[k]
                for k in ("wordings", "versions")
                if k in editions[0].results.get("meta", {})
            },
        },
    )
    means: dict[str, dict[str, dict[str, float]]] = {}
    for g in groups:
        for r in retrievers:
            rows = [row for e in per_edition for row in e[r][g]]
            m = mean_scores(rows)
            means.setdefault(r, {})[g] = m
            each = [mean_scores(e[r][g]).get(headline, float("nan")) for e in per_edition]
            report.rows.append(
                {
                    "group": g,
                    "retriever": r,
                    "queries": len(rows),
                    **{k: scale * v for k, v in m.items()},
                    f"{headline} per edition": " / ".join(f"{scale * v:.3g}" for v in each),
                }
            )
    comparisons: dict[str, dict[str, dict[str, Any]]] = {}
    if "instruct" not in retrievers:
        report.notes.append("instruct was not among the retrievers run: nothing is compared")
    for gi, g in enumerate(groups):
        for bi, b in enumerate(retrievers):
            if b in NOT_BASELINES or "instruct" not in retrievers:
                continue
            c = compare(
                [np.array([row[headline] for row in e["instruct"][g]]) for e in per_edition],
                [np.array([row[headline] for row in e[b][g]]) for e in per_edition],
                # a draw of its own per comparison: each interval is the same whatever
                # else ran
                np.random.default_rng([BOOTSTRAP_SEED, gi, bi]),
            )
            comparisons.setdefault(g, {})[b] = c
            lo, hi = c["interval"]
            report.notes.append(
                f"{g}: instruct - {b} {headline} {scale * c['difference']:+.3g} "
                f"(95 % query-bootstrap interval {scale * lo:+.3g} to {scale * hi:+.3g}); "
                f"instruct at least as good in {c['editions_at_least']} of {len(editions)} "
                f"editions; {c['verdict']}"
            )
    # what every run said alike (the wordings, the published figures); not each run's
    # own ingest and timing lines
    report.notes[:0] = [
        n
        for n in editions[0].results.get("notes", [])
        if all(n in e.results.get("notes", []) for e in editions)
    ]
    report.results = {
        "metrics": editions[0].results.get("results", {}).get("metrics", ""),
        family: means,
        "vs_baselines": comparisons,
        "per_edition": {str(e.seed): e.results["results"].get(family, {}) for e in editions},
    }
    report.published = editions[0].results.get("published", {})
    report.timings = {
        f"seed {e.seed}": float(e.results.get("timings", {}).get("total_s", 0.0)) for e in editions
    }
    return report


def compare(
    ours: Sequence[np.ndarray], theirs: Sequence[np.ndarray], rng: np.random.Generator
) -> dict[str, Any]:
    """``ours`` minus ``theirs``, query by query, over editions (one array each): the
    pooled mean difference, its 95 % bootstrap interval (queries resampled within each
    edition) and in how many editions ours was at least as good."""
    diffs = [a - b for a, b in zip(ours, theirs, strict=True)]
    sizes = [len(d) for d in diffs]
    total = sum(sizes)
    if total == 0:
        raise BenchmarkDataError("no queries to compare")
    pooled_diff = float(sum(d.sum() for d in diffs) / total)
    draws = np.zeros(BOOTSTRAP_DRAWS)
    for d in diffs:
        if len(d):
            picks = rng.integers(0, len(d), size=(BOOTSTRAP_DRAWS, len(d)))
            draws += d[picks].sum(axis=1)
    draws /= total
    lo, hi = (float(x) for x in np.percentile(draws, [2.5, 97.5]))
    at_least = sum(1 for d in diffs if len(d) and d.mean() >= -TIE)
    if lo > TIE:
        verdict = "better"
    elif hi < -TIE:
        verdict = "worse"
    else:
        verdict = "no clear difference"
    return {
        "difference": pooled_diff,
        "interval": [lo, hi],
        "editions_at_least": at_least,
        "queries": total,
        "verdict": verdict,
    }
