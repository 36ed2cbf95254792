from __future__ import annotations

import numpy as np
import pytest

from voxmem.benchmarks.probes.metrics import (
    edit_distance,
    equal_error_rate,
    nearest_prototype_accuracy,
    normalize_text,
    word_error_rate,
)


def test_eer_hand_computed() -> None:
    # same 0.9 0.8 0.7 / different 0.1 0.2 0.75: at t = 0.75 one of three is falsely
    # accepted and one of three falsely rejected
    scores = [0.9, 0.8, 0.7, 0.1, 0.2, 0.75]
    same = [True, True, True, False, False, False]
    assert equal_error_rate(scores, same) == pytest.approx(1 / 3)


def test_eer_extremes() -> None:
    assert equal_error_rate([0.9, 0.8, 0.1, 0.2], [True, True, False, False]) == 0.0
    assert equal_error_rate([0.1, 0.9], [True, False]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="both"):
        equal_error_rate([0.1, 0.2], [True, True])


def test_eer_interpolates_between_thresholds() -> None:
    # same 0.6 0.4 / different 0.5 0.3: FAR falls 1 -> .5 -> .5 -> 0 while FRR rises
    # 0 -> 0 -> .5 -> .5; they cross at 0.5
    assert equal_error_rate([0.6, 0.4, 0.5, 0.3], [True, True, False, False]) == 0.5


def test_wer_normalises_and_counts_edits() -> None:
    assert normalize_text("Mr. Smith's well-known dog!") == [
        "mister",
        "smith's",
        "well",
        "known",
        "dog",
    ]
    assert edit_distance(["a", "b", "c"], ["a", "x", "c", "d"]) == 2
    assert word_error_rate(["mister smith went home"], ["Mr. Smith go home."]) == 0.25
    # corpus WER weights by reference length, not a mean of per-sentence rates
    assert word_error_rate(["a b c d", "e"], ["a b c d", "x"]) == pytest.approx(1 / 5)
    with pytest.raises(ValueError, match="reference word"):
        word_error_rate([""], ["anything"])


def test_nearest_prototype_accuracy() -> None:
    train = np.array([[1, 0], [0.9, 0.1], [0, 1], [0.1, 0.9]], float)
    test = np.array([[0.8, 0.3], [0.2, 0.7], [0.6, 0.5]], float)
    acc, per = nearest_prototype_accuracy(train, ["a", "a", "b", "b"], test, ["a", "b", "b"])
    assert acc == pytest.approx(2 / 3)
    assert per == {"a": 1.0, "b": 0.5}
