"""Synthetic speech for tests and mini benchmarks.

Distinct real voices (flite, festival, piper, espeak-ng), speaking styles
(rate, pitch, pitch range, loudness, whisper) and backgrounds (real sound
effects and generated noises) mixed at a chosen SNR. Rendering is
deterministic for a given spec and seed, and cached on disk::

    from voxmem.benchmarks.synth import Utterance, render
    clip = render(Utterance("The budget is due Friday.", voice="flite-slt",
                            style="sad", background="rain", snr_db=10, seed=1))
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from voxmem.audio import Audio
from voxmem.benchmarks.synth.backgrounds import (
    BACKGROUND_BY_NAME,
    BACKGROUNDS,
    Background,
    add_background,
    get_background,
    mix_at_snr,
    rms,
    synthetic_rir,
)
from voxmem.benchmarks.synth.cache import ClipCache
from voxmem.benchmarks.synth.styles import STYLE_BY_NAME, STYLES, Style, apply_style, get_style
from voxmem.benchmarks.synth.voices import (
    VOICE_BY_ID,
    VOICES,
    Voice,
    distinct_voices,
    get_voice,
    synthesize_raw,
)
from voxmem.errors import SynthesisError

__all__ = [
    "BACKGROUNDS",
    "BACKGROUND_BY_NAME",
    "STYLES",
    "STYLE_BY_NAME",
    "VOICES",
    "VOICE_BY_ID",
    "Background",
    "ClipCache",
    "Style",
    "SynthesisError",
    "Utterance",
    "Voice",
    "add_background",
    "apply_style",
    "distinct_voices",
    "get_background",
    "get_style",
    "get_voice",
    "mix_at_snr",
    "render",
    "rms",
    "synthesize_raw",
    "synthetic_rir",
]


@dataclass(frozen=True)
class Utterance:
    """Everything that determines one rendered clip."""

    text: str
    voice: str
    style: str = "neutral"
    background: str | None = None
    snr_db: float | None = None
    rt60: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        get_voice(self.voice)
        get_style(self.style)
        if self.background is not None:
            get_background(self.background)
            if self.snr_db is None:
                raise SynthesisError("a background needs snr_db (e.g. 10)")

    def rng(self) -> np.random.Generator:
        digest = hashlib.sha256(repr(sorted(asdict(self).items())).encode()).digest()
        return np.random.default_rng([self.seed, int.from_bytes(digest[:8], "little")])


def render(utterance: Utterance, cache: ClipCache | Path | str | None = None) -> Audio:
    """Speak, restyle and mix ``utterance``; identical output for identical specs."""
    if cache is not None and not isinstance(cache, ClipCache):
        cache = ClipCache(cache)

    def build() -> Audio:
        audio = synthesize_raw(utterance.text, utterance.voice)
        audio = apply_style(audio, utterance.style)
        if utterance.background is not None:
            assert utterance.snr_db is not None
            audio = add_background(
                audio, utterance.background, utterance.snr_db, utterance.rng(), utterance.rt60
            )
        elif utterance.rt60:
            audio = mix_at_snr(
                audio,
                np.zeros(len(audio.samples)) + 1e-9,
                200.0,
                synthetic_rir(utterance.rt60, audio.sample_rate, utterance.rng()),
            )
        return audio

    if cache is None:
        from voxmem.audio import flac_bytes, load_audio

        return load_audio(flac_bytes(build()))
    return cache.get_or_render(asdict(utterance), build)
