from __future__ import annotations

import math
import random

import numpy as np
import pytest

from voxmem.retrievers.metrics import (
    INSPIRE_KS,
    inspire_document_order_ranking,
    inspire_ranking,
    inspire_scores,
    inspire_stream,
    mean_scores,
    ndcg_at_k,
    recall_at_k,
    trec_ranking,
    trec_scores,
    voicetrace_ranking,
    voicetrace_scores,
)


def test_inspire_recall_is_not_capped_at_k() -> None:
    ranking = ["a", "b", "c", "d"]
    # 3 positives, 1 in the top 2: 1/3, not 1/2
    assert recall_at_k(ranking, ["b", "x", "y"], 2) == pytest.approx(1 / 3)


def test_inspire_ndcg_ideal_has_min_of_positives_and_k_hits() -> None:
    ranking = ["a", "p1", "b", "p2"]
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    assert ndcg_at_k(ranking, ["p1", "p2"], 4) == pytest.approx(dcg / (1 + 1 / math.log2(3)))
    # with k=1 the ideal is one hit, and rank 1 is not a positive
    assert ndcg_at_k(ranking, ["p1", "p2"], 1) == 0.0
    assert ndcg_at_k(["p1"], ["p1", "p2", "p3"], 1) == 1.0


def test_inspire_exclusions_are_removed_before_ranking() -> None:
    scores = {"a": 0.9, "b": 0.8, "p": 0.7}
    assert inspire_ranking(scores, ["a", "N/A"], rng=inspire_stream()) == ["b", "p"]
    assert inspire_document_order_ranking(scores, ["a", "N/A"]) == ["b", "p"]
    for ties in (inspire_stream(), "document"):
        got = inspire_scores(scores, ["p"], excluded=["a", "b"], ks=(1,), ties=ties)
        assert got == {"R@1": 1.0, "N@1": 1.0}


def test_inspire_ties_are_broken_by_a_seeded_draw() -> None:
    scores = {d: 0.5 for d in "abcdefgh"}
    first = inspire_ranking(scores, rng=inspire_stream())
    assert inspire_ranking(scores, rng=inspire_stream()) == first  # reproducible
    assert sorted(first) == list("abcdefgh")
    assert first != list("abcdefgh")  # not insertion order
    assert inspire_ranking(scores, rng=inspire_stream(7)) != first
    # a strictly higher score always wins over the draw
    assert inspire_ranking({**scores, "z": 0.6}, rng=inspire_stream())[0] == "z"
    # the BM25 script's rule keeps document order
    assert inspire_document_order_ranking({**scores, "z": 0.6}) == ["z", *"abcdefgh"]


def test_voicetrace_single_positive() -> None:
    got = voicetrace_scores(["a", "b", "p", "c"], "p")
    assert got["R@1"] == 0.0 and got["R@3"] == 1.0 and got["R@10"] == 1.0
    assert got["NDCG@3"] == pytest.approx(1 / math.log2(4)) and got["NDCG@1"] == 0.0
    assert voicetrace_scores(["a"], "p")["R@10"] == 0.0
    # ties by id ascending, after sorting the ids as strings
    assert voicetrace_ranking({"s:2": 1.0, "s:10": 1.0, "s:1": 2.0}) == ["s:1", "s:10", "s:2"]


def test_trec_graded_ndcg_mrr_recall() -> None:
    scores = {"d1": 3.0, "d2": 2.0, "d3": 1.0}
    qrels = {"d1": 0, "d2": 2, "d3": 1, "d4": 1}
    got = trec_scores(scores, qrels, k=10)
    dcg = 2 / math.log2(3) + 1 / math.log2(4)
    idcg = 2 + 1 / math.log2(3) + 1 / math.log2(4)
    assert got["nDCG@10"] == pytest.approx(dcg / idcg)
    assert got["MRR@10"] == pytest.approx(1 / 2)
    assert got["Recall@10"] == pytest.approx(2 / 3)
    # MAP over the whole ranking: precision 1/2 at d2 and 2/3 at d3, over 3 relevant
    assert got["MAP"] == pytest.approx((1 / 2 + 2 / 3) / 3)


def test_trec_ties_by_document_id_descending() -> None:
    assert trec_ranking({"d1": 1.0, "d3": 1.0, "d2": 1.0, "d0": 2.0}) == ["d0", "d3", "d2", "d1"]
    got = trec_scores({"a": 1.0, "b": 1.0}, {"a": 1}, k=1)
    assert got["MRR@1"] == 0.0  # "b" wins the tie and is not relevant


def test_means() -> None:
    assert mean_scores([{"R@1": 1.0}, {"R@1": 0.0}]) == {"R@1": 0.5}
    assert mean_scores([]) == {}


# -- cross-checks with the references on randomised cases --------------------------------
#
# The INSPIRE and VoiceTrace references below are reimplemented from their published
# scripts (lca0503/INSPIRE calculate_score.py and text_extractor/bm25_retriever.py;
# caml-labs/VoiceTrace evaluate_baseline.py), in their own style, with the similarity
# computation replaced by given scores. trec_eval is pytrec_eval itself; ranx is ranx.

TOL = 1e-12
SEED = 20240915
#: ids whose order differs by length, case and code point, as trec_eval's strcmp sees them
ID_POOL = [f"d{i}" for i in range(30)] + ["D2", "d03", "z", "Z9", "é1", "doc-10", "doc-9"]


def _tie_prone_scores(rng: np.random.Generator, n: int) -> np.ndarray:
    """Scores on a coarse grid (ties in float64), some nudged below float32 resolution
    (ties only in float32), and the odd -inf (an unranked document)."""
    s = rng.integers(0, 4, size=n) / 4.0
    nudged = rng.random(n) < 0.3
    s = s + nudged * rng.integers(1, 4, size=n) * 1e-10
    s[rng.random(n) < 0.03] = -np.inf
    return s


def _ref_inspire_recall(retrieved_ids: list[str], positive_docs: set[str], k: int) -> float:
    if len(positive_docs) == 0:
        return 0.0
    return len(set(retrieved_ids[:k]) & positive_docs) / len(positive_docs)


def _ref_inspire_ndcg(retrieved_ids: list[str], positive_docs: set[str], k: int) -> float:
    if len(positive_docs) == 0:
        return 0.0
    dcg = 0.0
    for i, doc_id in enumerate(retrieved_ids[:k], start=1):
        if doc_id in positive_docs:
            dcg += 1.0 / np.log2(i + 1)
    idcg = 0.0
    for i in range(1, min(len(positive_docs), k) + 1):
        idcg += 1.0 / np.log2(i + 1)
    return 0.0 if idcg == 0.0 else dcg / idcg


def _ref_inspire_random(
    doc_scores: dict[str, float], excluded_ids: list[str], rng: random.Random
) -> list[str]:
    """calculate_score.py: filter, one draw per candidate, sort by (-score, draw)."""
    excluded = set(excluded_ids)
    filtered = {d: s for d, s in doc_scores.items() if d not in excluded}
    similarities = [(d, s, rng.random()) for d, s in filtered.items()]
    similarities.sort(key=lambda item: (-item[1], item[2]))
    return [d for d, _, _ in similarities]


def _ref_inspire_bm25(doc_scores: dict[str, float], excluded_ids: list[str]) -> list[str]:
    """bm25_retriever.py: pop the excluded (not "N/A"), stable sort by score, reversed."""
    all_scores = dict(doc_scores)
    for did in set(excluded_ids):
        if did != "N/A" and did in all_scores:
            all_scores.pop(did)
    return [d for d, _ in sorted(all_scores.items(), key=lambda x: x[1], reverse=True)]


def _inspire_cases(rng: np.random.Generator, splits: int, queries: int) -> list[list[tuple]]:
    """Per split, queries of (doc scores, positives, excluded) over one document set."""
    out = []
    for _ in range(splits):
        n_docs = int(rng.integers(1, 40))
        docs = [f"{i:05d}" for i in rng.permutation(200)[:n_docs]]
        split = []
        for _ in range(queries):
            s = _tie_prone_scores(rng, n_docs).astype(np.float32)  # INSPIRE's vectors: float32
            scores = {d: s[i] for i, d in enumerate(docs)}
            n_pos = int(rng.integers(0, min(n_docs, 6) + 1))  # 0: a query without positives
            positives = [docs[i] for i in rng.choice(n_docs, n_pos, replace=False)]
            n_exc = int(rng.integers(0, 3))
            excluded = [docs[i] for i in rng.choice(n_docs, min(n_exc, n_docs), replace=False)]
            if rng.random() < 0.3:
                excluded.append("N/A")
            split.append((scores, positives, excluded))
        out.append(split)
    return out


def _compare_inspire(ours: dict[str, float], ranking: list[str], positives: list[str]) -> int:
    pos = set(positives)
    bad = 0
    for k in INSPIRE_KS:
        bad += abs(ours[f"R@{k}"] - _ref_inspire_recall(ranking, pos, k)) > TOL
        bad += abs(ours[f"N@{k}"] - _ref_inspire_ndcg(ranking, pos, k)) > TOL
    return bad


def test_inspire_matches_calculate_score_with_one_stream_across_queries_and_splits() -> None:
    rng = np.random.default_rng(SEED)
    cases = _inspire_cases(rng, splits=4, queries=1000)
    ours_stream, ref_stream = inspire_stream(), random.Random(42)
    checked = mismatches = empty = 0
    for split in cases:  # one stream for the whole run, as the script has it
        for scores, positives, excluded in split:
            ref_ranking = _ref_inspire_random(scores, excluded, ref_stream)
            ours = inspire_scores(scores, positives, excluded, ties=ours_stream)
            mismatches += _compare_inspire(ours, ref_ranking, positives)
            checked += 1
            empty += not positives
    assert checked == 4000 and empty > 100
    assert mismatches == 0
    # both streams consumed exactly the same number of draws
    assert ours_stream.random() == ref_stream.random()


def test_inspire_random_rankings_match_the_script_exactly() -> None:
    rng = np.random.default_rng(SEED + 1)
    ours_stream, ref_stream = inspire_stream(), random.Random(42)
    mismatches = 0
    for scores, _positives, excluded in _inspire_cases(rng, splits=1, queries=1000)[0]:
        ours = inspire_ranking(scores, excluded, rng=ours_stream)
        mismatches += ours != _ref_inspire_random(scores, excluded, ref_stream)
    assert mismatches == 0


def test_inspire_bm25_rule_matches_bm25_retriever() -> None:
    rng = np.random.default_rng(SEED + 2)
    checked = mismatches = 0
    for split in _inspire_cases(rng, splits=2, queries=1000):
        for scores, positives, excluded in split:
            as_float = {d: float(v) for d, v in scores.items()}  # the script's float(s)
            ref_ranking = _ref_inspire_bm25(as_float, excluded)
            mismatches += inspire_document_order_ranking(as_float, excluded) != ref_ranking
            ours = inspire_scores(as_float, positives, excluded, ties="document")
            mismatches += _compare_inspire(ours, ref_ranking, positives)
            checked += 1
    assert checked == 2000 and mismatches == 0


def test_inspire_stream_gives_each_query_its_own_tie_order() -> None:
    scores = {d: 0.5 for d in "abcdefgh"}
    stream = inspire_stream()
    orders = [inspire_ranking(scores, rng=stream) for _ in range(5)]
    assert len({tuple(o) for o in orders}) == 5  # not the same shuffle for every query
    assert all(sorted(o) == list("abcdefgh") for o in orders)
    # and a fresh stream replays the same run
    again = inspire_stream()
    assert [inspire_ranking(scores, rng=again) for _ in range(5)] == orders


def test_inspire_ties_must_name_a_rule() -> None:
    with pytest.raises(ValueError):
        inspire_scores({"a": 1.0}, ["a"], ties="shuffled")  # type: ignore[arg-type]


def _ref_voicetrace(
    candidate_scores: dict[str, float], positive: str, ks: tuple[int, ...]
) -> tuple[list[str], dict[str, float]]:
    """evaluate_baseline.py: sorted ids, stable sort by score reversed; per-query hit and
    binary DCG with an ideal of 1 (its subset means are means of these)."""
    candidate_dids = sorted(candidate_scores)
    stage = [(did, candidate_scores[did]) for did in candidate_dids]
    stage.sort(key=lambda x: x[1], reverse=True)
    ranked_docs = [d for d, _ in stage]
    out = {}
    for k in ks:
        out[f"R@{k}"] = 1.0 if positive in ranked_docs[:k] else 0.0
        dcg = 0.0
        for i, did in enumerate(ranked_docs[:k], start=1):
            if did == positive:
                dcg += 1.0 / math.log2(i + 1)
        out[f"NDCG@{k}"] = dcg / (1.0 / math.log2(2))
    return ranked_docs, out


def test_voicetrace_matches_evaluate_baseline() -> None:
    rng = np.random.default_rng(SEED + 3)
    ks = (1, 3, 5, 10)
    ours_rows, ref_rows = [], []
    mismatches = missing = 0
    for q in range(3000):
        n = int(rng.integers(1, 30))
        subset = "single" if q % 2 else "multi"
        ids = [f"{subset}:{i}" for i in rng.permutation(120)[:n]]  # "single:10" < "single:2"
        s = _tie_prone_scores(rng, n)
        scores = {d: float(s[i]) for i, d in enumerate(ids)}
        # the positive is a candidate, or (a document that failed to store) is not
        positive = ids[0] if rng.random() < 0.9 else f"{subset}:999"
        missing += positive not in scores
        ref_ranking, ref = _ref_voicetrace(scores, positive, ks)
        ranking = voicetrace_ranking(scores)
        ours = voicetrace_scores(ranking, positive, ks)
        mismatches += ranking != ref_ranking
        mismatches += sum(abs(ours[m] - ref[m]) > TOL for m in ref)
        ours_rows.append(ours)
        ref_rows.append(ref)
    assert missing > 100 and mismatches == 0
    ours_mean, ref_mean = mean_scores(ours_rows), mean_scores(ref_rows)
    assert all(abs(ours_mean[m] - ref_mean[m]) <= TOL for m in ref_mean)
    assert voicetrace_scores(["a"], None)["R@10"] == 0.0


def _trec_cases(rng: np.random.Generator, n: int) -> tuple[dict, dict]:
    """Runs and qrels of n queries, ties included; about one query in eight has no
    relevant document, a few have an empty run."""
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    sizes = rng.integers(0, 26, size=n)
    sizes[rng.random(n) < 0.97] += 1  # a few empty runs
    for q in range(n):
        qid = f"q{q:05d}"
        ids = [ID_POOL[i] for i in rng.permutation(len(ID_POOL))]
        k = min(int(sizes[q]), len(ID_POOL))
        s = _tie_prone_scores(rng, k)
        run[qid] = {ids[i]: float(s[i]) for i in range(k)}
        judged = ids[: int(rng.integers(1, 12))]  # some judged documents are not in the run
        grades = rng.integers(-1, 4, size=len(judged))  # -1: judged as harmful
        if rng.random() < 0.125:
            grades[:] = np.minimum(grades, 0)  # a query without relevant documents
        qrels[qid] = {d: int(g) for d, g in zip(judged, grades, strict=True)}
    return run, qrels


def _trec_order_for_ranx(scores: dict[str, float]) -> dict[str, float]:
    """ranx breaks ties with an unstable argsort, so it is handed distinct scores in
    trec_eval's order (float32 descending, id descending), sorted here independently."""
    ids = list(scores)
    s32 = np.array([scores[d] for d in ids], dtype=np.float32)
    order = sorted(range(len(ids)), key=lambda i: (-s32[i], _neg_utf8(ids[i])))
    return {ids[i]: float(len(ids) - r) for r, i in enumerate(order)}


def _neg_utf8(s: str) -> tuple[int, ...]:
    return (*(-b for b in s.encode()), 1)


TREC_CASES = 10_000
RANX_CASES = 3_000


def test_trec_scores_match_pytrec_eval() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(SEED + 4)
    run, qrels = _trec_cases(rng, TREC_CASES)
    got = pytrec_eval.RelevanceEvaluator(
        qrels, {"ndcg_cut", "recall", "recip_rank", "map"}
    ).evaluate(run)
    assert len(got) == TREC_CASES  # every query counts, those without relevant documents too
    mismatches = empty = 0
    for qid in run:
        ref = got[qid]
        empty += not any(g > 0 for g in qrels[qid].values())
        rr = ref["recip_rank"]
        for k in (5, 10):
            ours = trec_scores(run[qid], qrels[qid], k=k)
            want = {
                f"nDCG@{k}": ref[f"ndcg_cut_{k}"],
                f"Recall@{k}": ref[f"recall_{k}"],
                f"MRR@{k}": rr if rr > 0 and round(1 / rr) <= k else 0.0,
                "MAP": ref["map"],
            }
            mismatches += sum(abs(ours[m] - want[m]) > TOL for m in want)
    assert empty > 1000
    assert mismatches == 0


def test_trec_scores_match_ranx() -> None:
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(SEED + 5)
    run, qrels = _trec_cases(rng, RANX_CASES)  # fewer: building ranx's structures is slow
    run = {q: r for q, r in run.items() if r}  # ranx needs a document per query
    qrels = {q: qrels[q] for q in run}
    metrics = ["ndcg@5", "ndcg@10", "recall@5", "recall@10", "mrr@5", "mrr@10", "map"]
    got = ranx.evaluate(
        ranx.Qrels(qrels),
        ranx.Run({q: _trec_order_for_ranx(r) for q, r in run.items()}),
        metrics,
        return_mean=False,
    )
    names = {"ndcg": "nDCG", "recall": "Recall", "mrr": "MRR"}
    mismatches = 0
    for i, qid in enumerate(sorted(run)):  # ranx orders queries by id
        for k in (5, 10):
            ours = trec_scores(run[qid], qrels[qid], k=k)
            for m in ("ndcg", "recall", "mrr"):
                mismatches += abs(ours[f"{names[m]}@{k}"] - got[f"{m}@{k}"][i]) > TOL
            mismatches += abs(ours["MAP"] - got["map"][i]) > TOL
    assert len(run) > 0.95 * RANX_CASES and mismatches == 0


def test_trec_compares_scores_as_float32() -> None:
    # distinct in float64, equal in float32: the tie goes to the larger id, as in trec_eval
    assert trec_ranking({"a": 1.0 + 1e-9, "b": 1.0}) == ["b", "a"]
    assert trec_ranking({"a": 1.0 + 1e-6, "b": 1.0}) == ["a", "b"]
    assert trec_ranking({"a": float("nan"), "b": 0.0}) == ["b", "a"]


def test_queries_without_positives_score_zero_everywhere() -> None:
    assert recall_at_k(["a"], [], 1) == 0.0 and ndcg_at_k(["a"], [], 1) == 0.0
    assert set(inspire_scores({"a": 1.0}, [], ties="document").values()) == {0.0}
    assert set(trec_scores({"a": 1.0}, {"a": 0}).values()) == {0.0}
    assert set(trec_scores({}, {}).values()) == {0.0}
    assert set(voicetrace_scores(["a"], None).values()) == {0.0}
    rows = [
        inspire_scores({"a": 1.0}, ["a"], ties="document"),
        inspire_scores({"a": 1.0}, [], ties="document"),
    ]
    assert mean_scores(rows)["R@1"] == 0.5  # the empty query counts in the mean
    assert set(trec_scores({"a": 1.0}, {"a": -1}).values()) == {0.0}
