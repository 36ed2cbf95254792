from __future__ import annotations

import math

import pytest

from voxmem.retrievers.metrics import (
    inspire_ranking,
    inspire_scores,
    mean_scores,
    ndcg_at_k,
    recall_at_k,
    trec_ranking,
    trec_scores,
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
    assert inspire_ranking(scores, ["a", "N/A"]) == ["b", "p"]
    got = inspire_scores(scores, ["p"], excluded=["a", "b"], ks=(1,))
    assert got == {"R@1": 1.0, "N@1": 1.0}


def test_inspire_ties_are_broken_by_a_seeded_draw() -> None:
    scores = {d: 0.5 for d in "abcdefgh"}
    first = inspire_ranking(scores)
    assert inspire_ranking(scores) == first  # reproducible
    assert sorted(first) == list("abcdefgh")
    assert first != list("abcdefgh")  # not insertion order
    assert inspire_ranking(scores, seed=7) != first
    # a strictly higher score always wins over the draw
    assert inspire_ranking({**scores, "z": 0.6})[0] == "z"


def test_voicetrace_single_positive() -> None:
    got = voicetrace_scores(["a", "b", "p", "c"], "p")
    assert got["R@1"] == 0.0 and got["R@3"] == 1.0 and got["R@10"] == 1.0
    assert got["NDCG@3"] == pytest.approx(1 / math.log2(4)) and got["NDCG@1"] == 0.0
    assert voicetrace_scores(["a"], "p")["R@10"] == 0.0


def test_trec_graded_ndcg_mrr_recall() -> None:
    scores = {"d1": 3.0, "d2": 2.0, "d3": 1.0}
    qrels = {"d1": 0, "d2": 2, "d3": 1, "d4": 1}
    got = trec_scores(scores, qrels, k=10)
    dcg = 2 / math.log2(3) + 1 / math.log2(4)
    idcg = 2 + 1 / math.log2(3) + 1 / math.log2(4)
    assert got["nDCG@10"] == pytest.approx(dcg / idcg)
    assert got["MRR@10"] == pytest.approx(1 / 2)
    assert got["Recall@10"] == pytest.approx(2 / 3)


def test_trec_ties_by_document_id_descending() -> None:
    assert trec_ranking({"d1": 1.0, "d3": 1.0, "d2": 1.0, "d0": 2.0}) == ["d0", "d3", "d2", "d1"]
    got = trec_scores({"a": 1.0, "b": 1.0}, {"a": 1}, k=1)
    assert got["MRR@1"] == 0.0  # "b" wins the tie and is not relevant


def test_means() -> None:
    assert mean_scores([{"R@1": 1.0}, {"R@1": 0.0}]) == {"R@1": 0.5}
    with pytest.raises(ValueError):
        recall_at_k(["a"], [], 1)
