"""Each benchmark's own ranking metrics, with its own rules.

- INSPIRE: drop the query's excluded ids, rank the rest, break exact score ties
  with a seeded random draw (seed 42); Recall@k over all positives (denominator
  not capped at k); NDCG@k with binary gains and an ideal of min(|pos|, k) hits.
- VoiceTrace: one positive per query; R@k is a hit rate, NDCG@k is
  1/log2(rank + 1) when the positive is within k.
- trec_eval (SQuTR): graded gains from qrels, nDCG@k with gain = relevance and
  log2(rank + 1) discount, MRR@k and Recall@k over documents with relevance > 0;
  score ties broken by document id, in descending order as trec_eval does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

INSPIRE_SEED = 42
INSPIRE_KS = (1, 5, 10, 20, 50, 100)


def inspire_ranking(
    scores: Mapping[str, float], excluded: Iterable[str] = (), seed: int = INSPIRE_SEED
) -> list[str]:
    """Candidate ids best first: excluded ids removed, exact ties in a seeded random order."""
    skip = {e for e in excluded if e != "N/A"}
    ids = [d for d in scores if d not in skip]
    if not ids:
        return []
    s = np.array([scores[d] for d in ids], dtype=np.float64)
    draw = np.random.default_rng(seed).random(len(ids))
    order = np.lexsort((draw, -s))
    return [ids[i] for i in order]


def recall_at_k(ranking: Sequence[str], positives: Iterable[str], k: int) -> float:
    pos = set(positives)
    if not pos:
        raise ValueError("a query without positives has no recall")
    return len(set(ranking[:k]) & pos) / len(pos)


def ndcg_at_k(ranking: Sequence[str], positives: Iterable[str], k: int) -> float:
    """Binary-gain NDCG; the ideal ranks min(|positives|, k) hits first."""
    pos = set(positives)
    if not pos:
        raise ValueError("a query without positives has no NDCG")
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranking[:k]) if d in pos)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(pos), k)))
    return dcg / ideal


def inspire_scores(
    scores: Mapping[str, float],
    positives: Sequence[str],
    excluded: Sequence[str] = (),
    ks: Sequence[int] = INSPIRE_KS,
    seed: int = INSPIRE_SEED,
) -> dict[str, float]:
    """Recall@k and NDCG@k of one INSPIRE query."""
    ranking = inspire_ranking(scores, excluded, seed)
    out = {f"R@{k}": recall_at_k(ranking, positives, k) for k in ks}
    out |= {f"N@{k}": ndcg_at_k(ranking, positives, k) for k in ks}
    return out


def voicetrace_scores(
    ranking: Sequence[str], positive: str, ks: Sequence[int] = (1, 3, 5, 10)
) -> dict[str, float]:
    """Hit-rate R@k and single-positive NDCG@k."""
    rank = ranking.index(positive) + 1 if positive in ranking else None
    out = {}
    for k in ks:
        hit = rank is not None and rank <= k
        out[f"R@{k}"] = 1.0 if hit else 0.0
        out[f"NDCG@{k}"] = 1.0 / math.log2(rank + 1) if hit and rank is not None else 0.0
    return out


def trec_ranking(scores: Mapping[str, float]) -> list[str]:
    """Score descending; ties by document id descending (trec_eval's order)."""
    return [d for d, _ in sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


def trec_scores(
    scores: Mapping[str, float], qrels: Mapping[str, int], k: int = 10
) -> dict[str, float]:
    """nDCG@k (graded), MRR@k and Recall@k for one query."""
    relevant = {d: g for d, g in qrels.items() if g > 0}
    if not relevant:
        raise ValueError("a query without relevant documents cannot be scored")
    ranking = trec_ranking(scores)[:k]
    dcg = sum(relevant.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranking))
    ideal_gains = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal_gains))
    first = next((i for i, d in enumerate(ranking) if d in relevant), None)
    return {
        f"nDCG@{k}": dcg / idcg,
        f"MRR@{k}": 0.0 if first is None else 1.0 / (first + 1),
        f"Recall@{k}": len(set(ranking) & set(relevant)) / len(relevant),
    }


def mean_scores(rows: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Per-metric mean over queries (the benchmarks' per-split figures)."""
    if not rows:
        return {}
    return {key: float(np.mean([r[key] for r in rows])) for key in rows[0]}
