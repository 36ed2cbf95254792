"""Each benchmark's own ranking metrics, with the rules of its published evaluation code.

Every rule below was read from the reference's own code; the tests compare these
functions with those rules (reimplemented from the scripts) and with trec_eval
(``pytrec_eval``) and ``ranx`` on randomised cases with ties and empty-positive queries.

INSPIRE (``lca0503/INSPIRE``)
  - ``calculate_score.py``, the script every embedding model is scored with:
    drop the query's excluded ids, draw one ``rng.random()`` per remaining candidate
    (in candidate order) and sort by score descending, then draw ascending. ``rng`` is
    one ``random.Random(42)`` made once per run: it runs on across the queries in
    order (and across the splits), so each query gets its own tie order.
    :func:`inspire_ranking` with a stream from :func:`inspire_stream`, made once per
    retriever and run.
  - ``text_extractor/bm25_retriever.py``: the same exclusions (ignoring ``"N/A"``),
    then a stable sort by score descending: ties keep document order.
    :func:`inspire_document_order_ranking`.
  - Recall@k = |top k & positives| / |positives| (not capped at k); NDCG@k with binary
    gains and an ideal of min(|positives|, k) hits, discount log2(rank + 1).
  - A query with no positives scores 0 on every metric and counts in the mean.

VoiceTrace (``caml-labs/VoiceTrace``, ``evaluate_baseline.py``)
  - candidates in ascending id order, then a stable sort by score descending: ties by
    document id ascending (:func:`voicetrace_ranking`).
  - one positive per query; R@k is a hit rate, NDCG@k = 1/log2(rank + 1) when the
    positive is within k (the ideal is 1). A query whose positive is missing
    (``None``, or not among the candidates) scores 0 and counts in the mean.

trec_eval (SQuTR), matching trec_eval 9 as ``pytrec_eval`` runs it, on the same run:
  - scores are compared as float32 (trec_eval keeps them in a C ``float``), ties by
    document id descending (``strcmp``, which is code point order for UTF-8);
  - relevant means grade >= 1; gains are the grades (a grade below 1 gains nothing, a
    negative one included); discount log2(rank + 1);
  - nDCG@k over the qrels' grades sorted descending as the ideal (``ndcg_cut_k``),
    Recall@k (``recall_k``), MRR@k (``recip_rank`` with the run cut at k) and MAP
    (``map``, over the whole ranking); each is 0 when the query has no relevant document,
    and such a query counts in the mean (trec_eval evaluates every query that has a line
    in the qrels; one with no line at all it skips, and here it would score 0).
  - ``ranx`` computes the same figures but orders tied scores with an unstable sort, so
    it agrees with these functions only where the run has no ties.

Not a reference rule: a NaN score ranks as ``-inf`` (the references leave its place
undefined). Exact ties are exact equality of the scores as given (INSPIRE compares
cosines in the dtype of its stored vectors; trec_eval in float32).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

import numpy as np

INSPIRE_SEED = 42
INSPIRE_KS = (1, 5, 10, 20, 50, 100)
VOICETRACE_KS = (1, 3, 5, 10)

#: the INSPIRE tie rules: a shared random stream, or document order (its BM25 script)
InspireTies = random.Random | Literal["document"]


def _score(value: float) -> float:
    return float("-inf") if math.isnan(value) else value


def inspire_stream(seed: int = INSPIRE_SEED) -> random.Random:
    """The one tie-breaking stream of an INSPIRE run: make it once per retriever and run,
    and score that retriever's queries in order with it."""
    return random.Random(seed)


def inspire_ranking(
    scores: Mapping[str, float], excluded: Iterable[str] = (), *, rng: random.Random
) -> list[str]:
    """Candidate ids best first, by ``calculate_score.py``'s rule.

    Every excluded id is dropped; one draw from ``rng`` is taken for each remaining
    candidate, in the mapping's order, and ties in score go to the smaller draw. ``rng``
    advances by the number of candidates, so the next query gets a different order.
    """
    skip = set(excluded)
    ids = [d for d in scores if d not in skip]
    draws = np.array([rng.random() for _ in ids], dtype=np.float64)
    if not ids:
        return []
    s = np.array([_score(scores[d]) for d in ids], dtype=np.float64)
    order = np.lexsort((draws, -s))
    return [ids[i] for i in order]


def inspire_document_order_ranking(
    scores: Mapping[str, float], excluded: Iterable[str] = ()
) -> list[str]:
    """Candidate ids best first, by ``bm25_retriever.py``'s rule: ties keep the mapping's
    (document) order. ``"N/A"`` in ``excluded`` is a placeholder, not an id."""
    skip = {e for e in excluded if e != "N/A"}
    ids = [d for d in scores if d not in skip]
    return sorted(ids, key=lambda d: _score(scores[d]), reverse=True)


def recall_at_k(ranking: Sequence[str], positives: Iterable[str], k: int) -> float:
    """INSPIRE Recall@k: positives in the top k over all positives; 0 without positives."""
    pos = set(positives)
    if not pos:
        return 0.0
    return len(set(ranking[:k]) & pos) / len(pos)


def ndcg_at_k(ranking: Sequence[str], positives: Iterable[str], k: int) -> float:
    """INSPIRE binary-gain NDCG; the ideal ranks min(|positives|, k) hits first; 0 without
    positives."""
    pos = set(positives)
    if not pos:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranking[:k]) if d in pos)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(pos), k)))
    return dcg / ideal


def inspire_metrics(
    ranking: Sequence[str], positives: Iterable[str], ks: Sequence[int] = INSPIRE_KS
) -> dict[str, float]:
    """Recall@k and NDCG@k of one INSPIRE query from its ranking."""
    pos = set(positives)
    out = {f"R@{k}": recall_at_k(ranking, pos, k) for k in ks}
    out |= {f"N@{k}": ndcg_at_k(ranking, pos, k) for k in ks}
    return out


def inspire_scores(
    scores: Mapping[str, float],
    positives: Iterable[str],
    excluded: Iterable[str] = (),
    ks: Sequence[int] = INSPIRE_KS,
    *,
    ties: InspireTies,
) -> dict[str, float]:
    """Recall@k and NDCG@k of one INSPIRE query.

    ``ties`` chooses the rule: the run's stream from :func:`inspire_stream` (the rule of
    ``calculate_score.py``) or ``"document"`` (the rule of INSPIRE's BM25 script, ties in
    the order of ``scores``).
    """
    if ties == "document":
        ranking = inspire_document_order_ranking(scores, excluded)
    elif isinstance(ties, random.Random):
        ranking = inspire_ranking(scores, excluded, rng=ties)
    else:
        raise ValueError(f"ties must be a random.Random stream or 'document', not {ties!r}")
    return inspire_metrics(ranking, positives, ks)


def voicetrace_ranking(scores: Mapping[str, float]) -> list[str]:
    """Candidate ids best first by ``evaluate_baseline.py``'s rule: ids ascending, then a
    stable sort by score descending (ties by id ascending)."""
    return sorted(sorted(scores), key=lambda d: _score(scores[d]), reverse=True)


def voicetrace_scores(
    ranking: Sequence[str], positive: str | None, ks: Sequence[int] = VOICETRACE_KS
) -> dict[str, float]:
    """Hit-rate R@k and single-positive NDCG@k; a missing positive scores 0."""
    rank = ranking.index(positive) + 1 if positive is not None and positive in ranking else None
    out = {}
    for k in ks:
        hit = rank is not None and rank <= k
        out[f"R@{k}"] = 1.0 if hit else 0.0
        out[f"NDCG@{k}"] = 1.0 / math.log2(rank + 1) if hit and rank is not None else 0.0
    return out


def trec_ranking(scores: Mapping[str, float]) -> list[str]:
    """trec_eval's order: score descending compared as float32, ties by document id
    descending."""
    ids = list(scores)
    s = np.array([_score(scores[d]) for d in ids], dtype=np.float64).astype(np.float32)
    return [d for _, d in sorted(zip(s.tolist(), ids, strict=True), reverse=True)]


def trec_scores(
    scores: Mapping[str, float], qrels: Mapping[str, int], k: int = 10
) -> dict[str, float]:
    """trec_eval's ``ndcg_cut_k``, ``recall_k``, ``recip_rank`` within the top k, and
    ``map``, for one query; all 0 when no document in ``qrels`` has grade >= 1."""
    relevant = {d: g for d, g in qrels.items() if g >= 1}
    ranking = trec_ranking(scores)
    out = {f"nDCG@{k}": 0.0, f"MRR@{k}": 0.0, f"Recall@{k}": 0.0, "MAP": 0.0}
    if not relevant:
        return out
    top = ranking[:k]
    dcg = 0.0
    for i, d in enumerate(top):
        if d in relevant:
            dcg += relevant[d] / math.log2(i + 2)
    idcg = 0.0
    for i, g in enumerate(sorted(relevant.values(), reverse=True)[:k]):
        idcg += g / math.log2(i + 2)
    first = next((i for i, d in enumerate(top) if d in relevant), None)
    hits, precision_sum = 0, 0.0
    for i, d in enumerate(ranking):
        if d in relevant:
            hits += 1
            precision_sum += hits / (i + 1)
    out[f"nDCG@{k}"] = dcg / idcg
    out[f"MRR@{k}"] = 0.0 if first is None else 1.0 / (first + 1)
    out[f"Recall@{k}"] = sum(1 for d in top if d in relevant) / len(relevant)
    out["MAP"] = precision_sum / len(relevant)
    return out


def mean_scores(rows: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Per-metric mean over queries (the benchmarks' per-split figures); queries without
    positives are rows of zeros and count."""
    if not rows:
        return {}
    return {key: float(np.mean([r[key] for r in rows])) for key in rows[0]}
