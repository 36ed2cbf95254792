"""The sliding-window helper gives exactly the windows each encoder cut by hand before
(Silero's 32 ms chunks with context, YAMNet's patches, the diarizer's voiceprint windows)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from voxmem.memory.encoders.windows import infer, window_starts, windows

sizes = st.integers(1, 40)
lengths = st.integers(0, 400)


@given(n=st.integers(1, 5000), size=sizes)
def test_pad_covers_every_sample_like_the_vad_chunks(n: int, size: int) -> None:
    assert window_starts(0, n, size, size, "pad") == [i * size for i in range(math.ceil(n / size))]


@given(n=lengths, size=sizes, hop=sizes)
def test_drop_keeps_whole_windows_like_the_yamnet_patches(n: int, size: int, hop: int) -> None:
    assert window_starts(0, n, size, hop, "drop") == (list(range(0, n - size + 1, hop)) or [0])


@given(
    start=st.floats(0, 100, allow_nan=False),
    length=st.floats(0.01, 30, allow_nan=False),
    size=st.floats(0.1, 3, allow_nan=False),
    hop=st.floats(0.05, 2, allow_nan=False),
)
def test_align_ends_on_the_end_like_the_diarizer_windows(
    start: float, length: float, size: float, hop: float
) -> None:
    end = start + length
    expected, t = [], start
    while t + size < end:
        expected.append(t)
        t += hop
    expected.append(max(start, end - size))
    assert window_starts(start, end, size, hop, "align") == expected


def test_an_empty_signal_has_no_padded_window() -> None:
    assert window_starts(0, 0, 4, 4, "pad") == []
    assert infer(np.zeros(0, np.float32), 4, 4, lambda w: float(w.sum())).shape == (0,)


@pytest.mark.parametrize("bad", [(0, 1), (1, 0), (-2, 1)])
def test_size_and_hop_must_be_positive(bad: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match="positive"):
        window_starts(0, 10, *bad)


@given(
    n=st.integers(1, 300),
    size=sizes,
    hop=sizes,
    context=st.integers(0, 20),
    tail=st.sampled_from(["pad", "drop", "align"]),
)
def test_each_window_holds_its_context_and_samples_with_fill_outside(
    n: int, size: int, hop: int, context: int, tail: str
) -> None:
    x = np.arange(1, n + 1, dtype=np.float32)
    starts = window_starts(0, n, size, hop, tail)  # type: ignore[arg-type]
    got = list(windows(x, size, hop, tail, context=context, fill=-1.0))  # type: ignore[arg-type]
    assert len(got) == len(starts)
    for s, w in zip(starts, got, strict=True):
        want = [x[i] if 0 <= i < n else -1.0 for i in range(s - context, s + size)]
        np.testing.assert_array_equal(w, want)


def test_infer_runs_the_model_on_the_windows_in_order_and_keeps_its_state() -> None:
    seen: list[float] = []

    def running_sum(w: np.ndarray) -> float:
        seen.append(float(w[0]))
        return sum(seen)

    out = infer(np.arange(10, dtype=np.float32), 3, 3, running_sum)
    assert seen == [0.0, 3.0, 6.0, 9.0]
    np.testing.assert_array_equal(out, [0.0, 3.0, 9.0, 18.0])


def test_two_dimensional_signals_are_cut_along_time() -> None:
    mel = np.arange(20, dtype=np.float32).reshape(10, 2)
    patches = infer(mel, 4, 2, lambda p: p, tail="drop")
    assert patches.shape == (4, 4, 2)
    np.testing.assert_array_equal(patches[1], mel[2:6])
    short = infer(mel[:3], 4, 2, lambda p: p, tail="drop", fill=-5.0)
    np.testing.assert_array_equal(short[0, 3], [-5.0, -5.0])
