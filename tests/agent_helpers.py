"""Fakes for fast agent tests: voices made of tones, a transcriber that knows what each
clip says, and a synthesizer that hums. Every fake here has a real twin tested with the
shipped models in tests/test_agent_e2e.py."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np

from voxmem.audio import Audio, load_audio
from voxmem.memory.encoders.asr import Transcript, Word
from voxmem.memory.encoders.fake import fake_perception
from voxmem.memory.store import AudioMemory
from voxmem.settings import Settings

RATE = 16_000


def _key(audio: Audio) -> str:
    return hashlib.sha1(np.asarray(audio.samples, np.float32).tobytes()).hexdigest()


class KeyedTranscriber:
    """Says what the test registered for exactly this clip ("" for anything else)."""

    name = "keyed-asr"
    sample_rate = RATE

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}

    def register(self, audio: Audio, text: str) -> None:
        self.texts[_key(audio)] = text

    def transcribe(self, audio: Audio) -> Any:
        text = self.texts.get(_key(audio), "")
        words = text.split()
        step = audio.duration / max(1, len(words))
        return Transcript(
            text, "en", [Word(w, i * step, (i + 1) * step, 1.0) for i, w in enumerate(words)]
        )


def voice_clip(voice: int, seconds: float = 1.5, seed: int = 0) -> Audio:
    """A 'voice': noise shaped into a band of its own (the fake speaker encoder tells
    voices apart by where their energy lies), a little different on every ``seed``."""
    rng = np.random.default_rng(1000 * voice + seed)
    n = int(seconds * RATE)
    spectrum = np.fft.rfft(rng.standard_normal(n))
    freqs = np.fft.rfftfreq(n, 1 / RATE)
    low = 300.0 + 1700.0 * (voice % 4)
    shape = np.exp(-0.5 * ((freqs - low - 400.0) / 350.0) ** 2)
    x = np.fft.irfft(spectrum * shape, n)
    x = 0.5 * x / np.max(np.abs(x))
    pad = np.zeros(int(0.2 * RATE))
    return load_audio(np.concatenate([pad, x, pad]).astype(np.float32), sample_rate=RATE)


class HummingSynthesizer:
    """A fake voice: one steady hum, longer for longer text (deterministic)."""

    name = "hum"

    def synthesize(self, text: str) -> Audio:
        seconds = min(4.0, 0.3 + 0.04 * len(text))
        t = np.arange(int(seconds * 22050)) / 22050
        x = 0.3 * np.sin(2 * np.pi * 440 * t) + 0.1 * np.sin(2 * np.pi * 1320 * t)
        return Audio(x.astype(np.float32), 22050)


def fake_memory(root: Path) -> tuple[AudioMemory, KeyedTranscriber]:
    perception = fake_perception()
    asr = KeyedTranscriber()
    perception.transcriber = asr
    settings = Settings(data_dir=root)
    return AudioMemory(settings, perception), asr


def said(asr: KeyedTranscriber, voice: int, text: str, seed: int = 0) -> Audio:
    """A clip in ``voice`` that the keyed transcriber hears as ``text``."""
    clip = voice_clip(voice, seconds=1.0 + 0.03 * len(text), seed=seed + len(text))
    asr.register(clip, text)
    return clip
