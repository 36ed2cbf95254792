"""Generated conversations with a reference of who spoke when."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from voxmem.audio import Audio
from voxmem.benchmarks.synth import ClipCache, Utterance, render
from voxmem.benchmarks.synth.backgrounds import add_background


@dataclass(frozen=True)
class ReferenceTurn:
    start: float
    end: float
    speaker: str
    text: str
    style: str


def speech_bounds(audio: Audio, floor_db: float = -40.0) -> tuple[int, int]:
    """First and last sample of the clip above ``floor_db`` relative to its peak (10 ms frames)."""
    frame = audio.sample_rate // 100
    x = audio.samples
    n = max(1, len(x) // frame)
    rms = np.sqrt(np.mean(x[: n * frame].reshape(n, frame) ** 2, axis=1) + 1e-12)
    loud = np.nonzero(20 * np.log10(rms / rms.max()) > floor_db)[0]
    if not len(loud):
        return 0, len(x)
    return int(loud[0] * frame), int(min(len(x), (loud[-1] + 1) * frame))


def conversation(
    turns: list[Utterance],
    cache: ClipCache | None,
    seed: int = 0,
    pause: tuple[float, float] = (0.3, 0.9),
    background: str | None = None,
    snr_db: float | None = None,
) -> tuple[Audio, list[ReferenceTurn]]:
    """Concatenate turns (each trimmed to its speech) with random pauses."""
    rng = np.random.default_rng(seed)
    sr = 16_000
    parts: list[np.ndarray] = [np.zeros(int(0.3 * sr), np.float32)]
    ref: list[ReferenceTurn] = []
    t = len(parts[0])
    for u in turns:
        clip = render(u, cache)
        a, b = speech_bounds(clip)
        speech = clip.samples[a:b]
        ref.append(ReferenceTurn(t / sr, (t + len(speech)) / sr, u.voice, u.text, u.style))
        gap = np.zeros(int(rng.uniform(*pause) * sr), np.float32)
        parts += [speech, gap]
        t += len(speech) + len(gap)
    audio = Audio(np.concatenate(parts), sr)
    if background is not None and snr_db is not None:
        audio = add_background(audio, background, snr_db, rng)
    return audio, ref
