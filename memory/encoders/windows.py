"""Sliding windows: the one way the encoders cut a signal (samples, frames or seconds)
into windows and run a model on each.

``tail`` says what happens where the hop does not land on the end:

- ``pad``: windows until every point is covered; the last one runs past the end and
  is filled (frame-by-frame models that must see every sample, such as the VAD);
- ``drop``: whole windows only, and one filled window when the signal is shorter
  than a window (patch models, such as YAMNet);
- ``align``: whole windows, then one more that ends exactly at the end (embeddings
  over a region, where a filled window would dilute the voice).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Literal, TypeVar

import numpy as np

Tail = Literal["pad", "drop", "align"]
N = TypeVar("N", int, float)


def window_starts(start: N, end: N, size: N, hop: N, tail: Tail = "pad") -> list[N]:
    """Where each window of ``size`` begins, every ``hop`` from ``start`` over
    [``start``, ``end``)."""
    if hop <= 0 or size <= 0:
        raise ValueError(f"window size and hop must be positive, got {size} and {hop}")
    if tail == "pad" and end <= start:
        return []
    starts: list[N] = []
    t = start
    if tail == "pad":
        while True:
            starts.append(t)
            if t + size >= end:
                return starts
            t += hop
    if tail == "drop":
        while t + size <= end:
            starts.append(t)
            t += hop
        return starts or [start]
    while t + size < end:
        starts.append(t)
        t += hop
    starts.append(max(start, end - size))
    return starts


def windows(
    x: np.ndarray, size: int, hop: int, tail: Tail = "pad", context: int = 0, fill: float = 0.0
) -> Iterator[np.ndarray]:
    """The windows of ``x`` along its first axis, in order, each ``context + size`` long:
    the ``context`` samples before it, then the window; outside ``x`` is ``fill``."""
    starts = window_starts(0, len(x), size, hop, tail)
    if not starts:
        return
    after = max(0, starts[-1] + size - len(x))
    padded = np.pad(x, [(context, after)] + [(0, 0)] * (x.ndim - 1), constant_values=fill)
    for s in starts:
        yield padded[s : s + context + size]


def infer(
    x: np.ndarray,
    size: int,
    hop: int,
    model: Callable[[np.ndarray], np.ndarray | float],
    tail: Tail = "pad",
    context: int = 0,
    fill: float = 0.0,
) -> np.ndarray:
    """``model`` run on each window of ``x`` in order (see :func:`windows`); its outputs
    stacked (empty when ``x`` has no window). A model that carries state from one
    window to the next keeps it itself."""
    outs = [np.asarray(model(w)) for w in windows(x, size, hop, tail, context, fill)]
    return np.stack(outs) if outs else np.empty(0, np.float32)
