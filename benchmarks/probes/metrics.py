"""Probe metrics: equal error rate, word error rate, nearest-prototype accuracy."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

_ABBREVIATIONS = {"mr": "mister", "mrs": "missus", "dr": "doctor", "st": "saint"}


def equal_error_rate(scores: Sequence[float], same: Sequence[bool]) -> float:
    """The error rate where false acceptances equal false rejections (linear interpolation
    between the two thresholds that bracket the crossing)."""
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(same, dtype=bool)
    if y.all() or not y.any():
        raise ValueError("EER needs both same-speaker and different-speaker pairs")
    thresholds = np.unique(np.concatenate([s, [np.inf]]))
    far = np.array([np.mean(s[~y] >= t) for t in thresholds])  # decreasing in t
    frr = np.array([np.mean(s[y] < t) for t in thresholds])  # increasing in t
    diff = far - frr
    i = int(np.argmax(diff <= 0))
    if i == 0:
        return float((far[0] + frr[0]) / 2)
    # interpolate between i-1 (far > frr) and i (far <= frr)
    d0, d1 = diff[i - 1], diff[i]
    w = d0 / (d0 - d1)
    return float(far[i - 1] + w * (far[i] - far[i - 1]))


def normalize_text(text: str) -> list[str]:
    """Lower-case words without punctuation; common abbreviations spelled out."""
    text = text.lower().replace("-", " ")
    words = re.findall(r"[a-z0-9']+", text)
    return [_ABBREVIATIONS.get(w, w) for w in words]


def edit_distance(ref: Sequence[str], hyp: Sequence[str]) -> int:
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r != h))
        prev = cur
    return prev[-1]


def word_error_rate(refs: Sequence[str], hyps: Sequence[str]) -> float:
    """Corpus WER: total edits over total reference words."""
    edits = words = 0
    for ref, hyp in zip(refs, hyps, strict=True):
        r, h = normalize_text(ref), normalize_text(hyp)
        edits += edit_distance(r, h)
        words += len(r)
    if words == 0:
        raise ValueError("WER needs at least one reference word")
    return edits / words


def nearest_prototype_accuracy(
    train: np.ndarray, train_labels: Sequence[str], test: np.ndarray, test_labels: Sequence[str]
) -> tuple[float, dict[str, float]]:
    """Accuracy (overall and per class) of cosine nearest class-mean classification."""
    ytr, yte = np.asarray(train_labels), np.asarray(test_labels)
    classes = sorted(set(ytr))
    protos = np.stack([train[ytr == c].mean(axis=0) for c in classes])
    protos /= np.maximum(np.linalg.norm(protos, axis=1, keepdims=True), 1e-12)
    unit = test / np.maximum(np.linalg.norm(test, axis=1, keepdims=True), 1e-12)
    pred = np.asarray(classes)[np.argmax(unit @ protos.T, axis=1)]
    per = {c: float(np.mean(pred[yte == c] == c)) for c in classes if np.any(yte == c)}
    return float(np.mean(pred == yte)), per
