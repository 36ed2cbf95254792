"""Everything the memory computes from audio, in one place.

``Perception`` holds one encoder per role. ``perceive`` turns a recording into
speaker turns with transcript, words, voiceprint, style, environment and text
vectors and labels. ASR runs once over the whole recording with word timings,
and words are given to the turn they fall in (cheaper than transcribing each
turn, and no words are cut at turn edges).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from voxmem.audio import Audio
from voxmem.errors import NoSpeech
from voxmem.memory.encoders.asr import Transcript
from voxmem.memory.encoders.asr import Word as AsrWord
from voxmem.memory.encoders.base import (
    AudioEncoder,
    LabellingEncoder,
    RelativeStyleEncoder,
    TextEncoder,
)
from voxmem.memory.encoders.diarization import SpeakerTurn
from voxmem.memory.records import Word, words_within
from voxmem.settings import Settings


class Transcriber(Protocol):
    def transcribe(self, audio: Audio) -> Transcript: ...


class Diarizer(Protocol):
    def __call__(self, audio: Audio) -> list[SpeakerTurn]: ...


@dataclass(eq=False)
class PerceivedTurn:
    start: float
    end: float
    audio: Audio
    transcript: str
    words: list[Word]
    language: str | None
    vectors: dict[str, np.ndarray]
    style_labels: dict[str, float] = field(default_factory=dict)
    environment_labels: dict[str, float] = field(default_factory=dict)


@dataclass
class Perception:
    diarizer: Diarizer
    transcriber: Transcriber
    speaker: AudioEncoder
    style: AudioEncoder
    environment: AudioEncoder
    text: TextEncoder
    #: how many labels of each kind are kept per turn
    top_labels: int = 5
    #: what decodes reference clips (``clip_text``), when not ``transcriber``
    reference_transcriber: Transcriber | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> Perception:
        """The real encoders the settings name (loads models once per process)."""
        from voxmem.memory.encoders import factory

        return cls(
            factory.diarizer(settings),
            factory.transcriber(settings),
            factory.speaker_encoder(settings),
            factory.style_encoder(settings),
            factory.environment_encoder(settings),
            factory.text_encoder(settings),
            reference_transcriber=factory.reference_transcriber(settings),
        )

    @property
    def dims(self) -> dict[str, int]:
        return {
            "text": self.text.dim,
            "speaker": self.speaker.dim,
            "style": self.style.dim,
            "environment": self.environment.dim,
        }

    @property
    def encoder_names(self) -> dict[str, str]:
        return {
            "text": self.text.name,
            "speaker": self.speaker.name,
            "style": self.style.name,
            "environment": self.environment.name,
        }

    def perceive(
        self, audio: Audio, hotwords: str | None = None, require_speech: bool = False
    ) -> list[PerceivedTurn]:
        """Speaker turns with everything the memory keeps. ``hotwords`` (names the
        listener expects) go to the ASR where the transcriber takes them. Audio with no
        speech gives no turns, or raises :class:`NoSpeech` with ``require_speech``."""
        turns = self.diarizer(audio)
        if not turns and require_speech:
            raise NoSpeech(
                f"no speech found in the {audio.duration:.2f} s of audio (sound, but no "
                "speaker turn: noise, a tone or a click), so nothing was stored; pass a "
                "recording of someone speaking"
            )
        if not turns:
            return []
        transcript = self.transcribe(audio, hotwords)
        words = _assign_words(transcript.words, turns)
        clips = [audio.slice(t.start, t.end) for t in turns]
        texts = [" ".join(w.text for w in ws).strip() for ws in words]
        if not transcript.words and transcript.text and len(turns) == 1:
            texts = [transcript.text]
        return self._finish(
            clips,
            [(t.start, t.end) for t in turns],
            texts,
            words,
            transcript.language,
            [t.voiceprint for t in turns],
        )

    def restart_sampling(self) -> None:
        """Start the ASR's sampled decodes afresh (``WhisperTranscriber.
        restart_sampling``), the references' own ASR too where it has one; a transcriber
        that does not sample has nothing to do."""
        for asr in (self.transcriber, self.reference_transcriber):
            restart = getattr(asr, "restart_sampling", None)
            if restart is not None:
                restart()

    def transcribe(self, audio: Audio, hotwords: str | None = None) -> Transcript:
        """ASR alone; ``hotwords`` where the transcriber declares it takes them."""
        if hotwords and getattr(self.transcriber, "supports_hotwords", False):
            return self.transcriber.transcribe(audio, hotwords=hotwords)  # type: ignore[call-arg]
        return self.transcriber.transcribe(audio)

    def clip_text(self, audio: Audio) -> str:
        """The words of a short clip, by the transcriber's quick decode where it declares
        one (``supports_clip_text``), else by its full ``transcribe``; by the reference
        transcriber where one is set (``VOXMEM_ASR__REFERENCE_VARIANT``)."""
        asr = self.reference_transcriber or self.transcriber
        if getattr(asr, "supports_clip_text", False):
            return str(asr.clip_text(audio))  # type: ignore[attr-defined]
        return asr.transcribe(audio).text

    def perceive_segment(
        self,
        clip: Audio,
        transcript: str | None = None,
        start: float = 0.0,
        hotwords: str | None = None,
    ) -> PerceivedTurn:
        """One already-cut turn (no diarization); ASR runs unless ``transcript`` is given."""
        if transcript is None:
            t = self.transcribe(clip, hotwords)
            text, words, lang = (
                t.text,
                [Word(w.text, w.start + start, w.end + start, w.probability) for w in t.words],
                t.language,
            )
        else:
            text, words, lang = transcript, [], None
        voice = self.speaker.embed([clip])[0]
        return self._finish(
            [clip], [(start, start + clip.duration)], [text], [words], lang, [voice]
        )[0]

    def _finish(
        self,
        clips: list[Audio],
        spans: list[tuple[float, float]],
        texts: list[str],
        words: list[list[Word]],
        language: str | None,
        voiceprints: Sequence[np.ndarray],
    ) -> list[PerceivedTurn]:
        raw_style = None
        if isinstance(self.style, RelativeStyleEncoder):
            # one openSMILE pass gives the vector, the labels and the raw functionals
            raw_style = self.style.features(clips)
            style = self.style.vectors(raw_style)
        else:
            style = self.style.embed(clips)
        env = self.environment.embed(clips)
        text = self.text.passages(texts)
        out = []
        for i, clip in enumerate(clips):
            out.append(
                PerceivedTurn(
                    spans[i][0],
                    spans[i][1],
                    clip,
                    texts[i],
                    words[i],
                    language,
                    {
                        "text": text[i],
                        "speaker": np.asarray(voiceprints[i], np.float32),
                        "style": style[i],
                        "environment": env[i],
                        **(
                            {"style_raw": np.asarray(raw_style[i], np.float32)}
                            if raw_style is not None
                            else {}
                        ),
                    },
                    _style_labels(self.style, clip, raw_style, i, self.top_labels),
                    _labels(self.environment, clip, self.top_labels),
                )
            )
        return out


def _style_labels(
    encoder: AudioEncoder, clip: Audio, raw: np.ndarray | None, i: int, top: int
) -> dict[str, float]:
    if raw is not None and isinstance(encoder, RelativeStyleEncoder):
        labels = encoder.labels_for(raw[i])
        return {lab.label: round(float(lab.score), 4) for lab in list(labels)[:top]}
    return _labels(encoder, clip, top)


def _labels(encoder: AudioEncoder, clip: Audio, top: int) -> dict[str, float]:
    if not isinstance(encoder, LabellingEncoder):
        return {}
    return {lab.label: round(float(lab.score), 4) for lab in list(encoder.labels(clip))[:top]}


def _assign_words(words: Sequence[AsrWord], turns: Sequence[SpeakerTurn]) -> list[list[Word]]:
    """Each word goes to the turn holding its midpoint, else to the nearest turn, with
    its times kept within that turn's span (the turn's clip is all that is stored of it,
    so a word straddling the edge starts where its turn does)."""
    out: list[list[Word]] = [[] for _ in turns]
    for w in words:
        mid = (w.start + w.end) / 2
        best = min(
            range(len(turns)),
            key=lambda i: (
                0.0
                if turns[i].start <= mid <= turns[i].end
                else min(abs(mid - turns[i].start), abs(mid - turns[i].end))
            ),
        )
        out[best].extend(
            words_within(
                [Word(w.text, w.start, w.end, w.probability)], turns[best].start, turns[best].end
            )
        )
    return out
