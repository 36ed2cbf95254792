"""Deterministic, cheap encoders for unit tests of logic.

They are not random: the audio fake projects band energies, so the same clip
always gives the same vector and similar clips give similar vectors; the text
fake hashes words, so texts that share words are close.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from voxmem.audio import Audio
from voxmem.memory.encoders.base import AudioEncoder, TextEncoder, l2_normalize

N_BANDS = 24


def _band_features(audio: Audio) -> np.ndarray:
    x = audio.samples.astype(np.float64)
    frame = 400
    n = max(1, len(x) // frame)
    frames = np.zeros((n, frame))
    usable = x[: n * frame]
    frames.flat[: len(usable)] = usable
    spec = np.abs(np.fft.rfft(frames * np.hanning(frame), axis=1)) ** 2
    bands = np.array_split(spec, N_BANDS, axis=1)
    energy = np.stack([b.sum(axis=1) for b in bands], axis=1)
    # each frame's share of energy per band: loudness-free, and far apart for different sounds
    share = np.sqrt(energy / np.maximum(energy.sum(axis=1, keepdims=True), 1e-12))
    return np.concatenate([share.mean(axis=0), share.std(axis=0)])


class FakeAudioEncoder(AudioEncoder):
    """A seeded random projection of the spectrum's shape (mean and spread of band shares)."""

    def __init__(self, name: str = "fake-audio", dim: int = 32, seed: int = 0) -> None:
        self.name, self.dim = name, dim
        self._proj = np.random.default_rng(seed).standard_normal((2 * N_BANDS, dim))

    def _embed(self, segments: Sequence[Audio]) -> np.ndarray:
        feats = np.stack([_band_features(s) for s in segments])
        return l2_normalize(feats @ self._proj)


class FakeTextEncoder(TextEncoder):
    """Feature-hashed bag of lower-cased words."""

    def __init__(self, name: str = "fake-text", dim: int = 64) -> None:
        self.name, self.dim = name, dim

    def _encode(self, texts: Sequence[str], kind: str) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9']+", text.lower()):
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
                out[i, h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
        return l2_normalize(out)
