"""Speaking-style transforms: rate, pitch, pitch range, loudness, whisper.

Every style, neutral included, is resynthesised through the WORLD vocoder, so
that styles differ only in their parameters and not in whether a vocoder
touched them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from voxmem.audio import Audio
from voxmem.errors import SynthesisError

FRAME_PERIOD_MS = 5.0


@dataclass(frozen=True)
class Style:
    """A way of speaking, as signal transforms.

    ``tempo`` > 1 speaks faster; ``pitch_cents`` shifts F0; ``pitch_range``
    scales F0 excursions around the speaker's mean (0.3 is near-monotone, 1.8
    animated); ``gain_db`` changes level before mixing; ``whisper`` replaces
    voicing with breath noise; ``breathiness`` (0-1) mixes aperiodicity in.
    """

    name: str
    tempo: float = 1.0
    pitch_cents: float = 0.0
    pitch_range: float = 1.0
    gain_db: float = 0.0
    whisper: bool = False
    breathiness: float = 0.0
    description: str = ""


STYLES: tuple[Style, ...] = (
    Style("neutral", description="plain read speech"),
    Style("fast", tempo=1.4, description="speaking quickly"),
    Style("slow", tempo=0.72, description="speaking slowly"),
    Style("whisper", whisper=True, gain_db=-8.0, description="whispering"),
    Style(
        "sad",
        tempo=0.82,
        pitch_cents=-250.0,
        pitch_range=0.45,
        gain_db=-6.0,
        breathiness=0.3,
        description="low, flat, slow and soft, as when sad",
    ),
    Style(
        "excited",
        tempo=1.18,
        pitch_cents=300.0,
        pitch_range=1.9,
        gain_db=4.0,
        description="high, lively and fast, as when excited or happy",
    ),
    Style(
        "angry",
        tempo=1.1,
        pitch_cents=150.0,
        pitch_range=1.5,
        gain_db=8.0,
        description="loud, tense and forceful, as when angry",
    ),
    Style("monotone", pitch_range=0.15, description="flat pitch, no intonation"),
    Style("high", pitch_cents=500.0, description="high-pitched voice"),
    Style("low", pitch_cents=-400.0, description="low-pitched voice"),
)
STYLE_BY_NAME = {s.name: s for s in STYLES}


def get_style(style: Style | str) -> Style:
    if isinstance(style, Style):
        return style
    try:
        return STYLE_BY_NAME[style]
    except KeyError:
        raise SynthesisError(
            f"unknown style {style!r}; choose one of {', '.join(STYLE_BY_NAME)}"
        ) from None


def apply_style(audio: Audio, style: Style | str) -> Audio:
    """Return ``audio`` spoken in ``style`` (deterministic)."""
    import pyworld as pw

    style = get_style(style)
    fs = audio.sample_rate
    x = audio.samples.astype(np.float64)
    if len(x) < fs // 20:
        raise SynthesisError("clip too short to restyle (needs at least 50 ms)")
    f0, t = pw.dio(x, fs, frame_period=FRAME_PERIOD_MS)
    f0 = pw.stonemask(x, f0, t, fs)
    sp = pw.cheaptrick(x, f0, t, fs)
    ap = pw.d4c(x, f0, t, fs)

    voiced = f0 > 0
    if np.any(voiced):
        logf = np.log(f0[voiced])
        centre = float(np.mean(logf))
        logf = centre + style.pitch_range * (logf - centre) + style.pitch_cents / 1200 * np.log(2)
        f0 = f0.copy()
        f0[voiced] = np.exp(logf)
    if style.breathiness:
        ap = np.clip(ap + style.breathiness * (1.0 - ap), 0.0, 1.0)
    if style.whisper:
        f0 = np.zeros_like(f0)
        ap = np.ones_like(ap)
    if style.tempo != 1.0:
        f0, sp, ap = _stretch(f0, sp, ap, 1.0 / style.tempo)

    y = pw.synthesize(
        np.ascontiguousarray(f0),
        np.ascontiguousarray(sp),
        np.ascontiguousarray(ap),
        fs,
        frame_period=FRAME_PERIOD_MS,
    )
    y *= 10 ** (style.gain_db / 20)
    peak = float(np.max(np.abs(y))) if len(y) else 0.0
    if peak > 0.99:  # soft limit rather than clip
        y = np.tanh(y / peak * 1.5) / np.tanh(1.5) * 0.99
    return Audio(y.astype(np.float32), fs)


def _stretch(
    f0: np.ndarray, sp: np.ndarray, ap: np.ndarray, factor: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Change duration by ``factor`` by resampling WORLD frames (nearest for voicing)."""
    n = len(f0)
    m = max(2, round(n * factor))
    pos = np.linspace(0, n - 1, m)
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, n - 1)
    w = (pos - lo)[:, None]
    sp2 = (1 - w) * sp[lo] + w * sp[hi]
    ap2 = (1 - w) * ap[lo] + w * ap[hi]
    nearest = np.rint(pos).astype(int)
    f0n = f0[nearest]
    both = (f0[lo] > 0) & (f0[hi] > 0)
    f02 = np.where(both, (1 - w[:, 0]) * f0[lo] + w[:, 0] * f0[hi], f0n)
    return f02, sp2, ap2
