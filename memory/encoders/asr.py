"""Speech recognition with faster-whisper: text, word timings and language."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from voxmem.audio import TARGET_RATE, Audio
from voxmem.errors import InvalidAudio
from voxmem.memory.encoders.base import shared_model
from voxmem.models import ResolvedModel


@dataclass(frozen=True)
class Word:
    text: str
    start: float
    end: float
    probability: float


@dataclass(frozen=True)
class Transcript:
    """What was said in one clip; word times are seconds from the clip's start."""

    text: str
    language: str
    words: list[Word] = field(default_factory=list)


class WhisperTranscriber:
    """faster-whisper, int8 on CPU, greedy decoding, Silero-VAD-filtered."""

    name = "faster-whisper"
    sample_rate = TARGET_RATE

    def __init__(
        self,
        model: ResolvedModel,
        threads: int = 2,
        beam_size: int = 1,
        language: str | None = None,
    ) -> None:
        def load() -> Any:
            from faster_whisper import WhisperModel

            return WhisperModel(
                model.location,
                device="cpu",
                compute_type="int8",
                cpu_threads=threads,
                local_files_only=model.source != "hub",
            )

        self._model = shared_model("faster-whisper", model.location, load)
        self.beam_size = beam_size
        self.language = "en" if model.variant and model.variant.endswith(".en") else language

    #: ``transcribe`` takes ``hotwords``: words to favour (the names of known speakers)
    supports_hotwords = True

    def transcribe(self, audio: Audio, hotwords: str | None = None) -> Transcript:
        """Text, language and word times. ``hotwords`` biases decoding towards words the
        caller expects (known names), as whisper's prompt does."""
        if audio.sample_rate != self.sample_rate:
            raise InvalidAudio(
                f"ASR needs {self.sample_rate} Hz audio, got {audio.sample_rate};"
                " load it with voxmem.audio.load_audio"
            )
        segments, info = self._model.transcribe(
            np.ascontiguousarray(audio.samples, dtype=np.float32),
            beam_size=self.beam_size,
            language=self.language,
            word_timestamps=True,
            vad_filter=True,
            condition_on_previous_text=False,
            hotwords=hotwords or None,
        )
        words: list[Word] = []
        texts = []
        for seg in segments:
            texts.append(seg.text.strip())
            words += [
                Word(w.word.strip(), float(w.start), float(w.end), float(w.probability))
                for w in (seg.words or [])
            ]
        return Transcript(" ".join(t for t in texts if t), info.language, words)
