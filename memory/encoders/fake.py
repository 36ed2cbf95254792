"""Deterministic, cheap encoders for unit tests of logic.

They are not random: the audio fake projects band energies, so the same clip
always gives the same vector and similar clips give similar vectors; the text
fake hashes words, so texts that share words are close.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

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


class FakeTranscriber:
    """Says ``text`` for any clip, its words spread evenly over the clip."""

    name = "fake-asr"
    sample_rate = 16_000

    def __init__(self, text: str = "") -> None:
        self.text = text

    def transcribe(self, audio: Audio) -> Any:
        from voxmem.memory.encoders.asr import Transcript, Word

        words = self.text.split()
        step = audio.duration / max(1, len(words))
        return Transcript(
            self.text, "en", [Word(w, i * step, (i + 1) * step, 1.0) for i, w in enumerate(words)]
        )


class FakeDiarizer:
    """Loud stretches are turns; turns whose fake voiceprints are close share a speaker."""

    name = "fake-diarizer"

    def __init__(
        self,
        speaker: AudioEncoder,
        floor_db: float = -35.0,
        gap: float = 0.3,
        threshold: float = 0.2,
    ) -> None:
        self.speaker, self.floor_db, self.gap, self.threshold = speaker, floor_db, gap, threshold

    def __call__(self, audio: Audio) -> list[Any]:
        from voxmem.memory.encoders.diarization import SpeakerTurn, cluster

        frame = int(0.03 * audio.sample_rate)
        x = audio.samples
        n = len(x) // frame
        if n == 0:
            return []
        rms = np.sqrt(np.mean(x[: n * frame].reshape(n, frame) ** 2, axis=1) + 1e-12)
        loud = (
            20 * np.log10(rms / rms.max()) > self.floor_db
            if rms.max() > 1e-4
            else np.zeros(n, bool)
        )
        spans: list[list[float]] = []
        for i in np.nonzero(loud)[0]:
            t0, t1 = i * frame / audio.sample_rate, (i + 1) * frame / audio.sample_rate
            if spans and t0 - spans[-1][1] <= self.gap:
                spans[-1][1] = t1
            else:
                spans.append([t0, t1])
        spans = [s for s in spans if s[1] - s[0] >= 0.1]
        if not spans:
            return []
        prints = self.speaker.embed([audio.slice(s, e) for s, e in spans])
        labels = cluster(prints, self.threshold)
        names: dict[int, str] = {}
        for lab in labels:
            names.setdefault(int(lab), f"S{len(names) + 1}")
        return [
            SpeakerTurn(s, e, names[int(lab)], p)
            for (s, e), lab, p in zip(spans, labels, prints, strict=True)
        ]


def fake_perception(text: str = "", dims: dict[str, int] | None = None) -> Any:
    """A Perception made only of fakes (fast, deterministic, no model files)."""
    from voxmem.memory.perception import Perception

    d = {"speaker": 32, "style": 24, "environment": 40, "text": 64, **(dims or {})}
    speaker = FakeAudioEncoder("fake-speaker", d["speaker"], seed=1)
    return Perception(
        FakeDiarizer(speaker),
        FakeTranscriber(text),
        speaker,
        FakeAudioEncoder("fake-style", d["style"], seed=2),
        FakeAudioEncoder("fake-environment", d["environment"], seed=3),
        FakeTextEncoder("fake-text", d["text"]),
    )
