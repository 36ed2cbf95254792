"""Server VAD: a streaming speech detector per session (the shipped Silero model, run
frame by frame with its recurrent state, or a level gate) and the turn taking that
``server_vad`` asks for (start above a threshold, stop after a silence)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from voxmem.memory.encoders.base import shared_model
from voxmem.models import resolve
from voxmem.settings import Settings

FRAME = 512  # samples at 16 kHz: 32 ms, Silero's window
CONTEXT = 64
FRAME_MS = 1000.0 * FRAME / 16_000


class SpeechDetector(Protocol):
    """Speech probability of consecutive 32 ms frames of 16 kHz audio."""

    def __call__(self, frame: np.ndarray) -> float: ...


class SileroStream:
    """Silero VAD over a live stream: one shared ONNX session per process, the model's
    recurrent state and its 64-sample context kept per stream."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self._state = np.zeros((2, 1, 128), np.float32)
        self._context = np.zeros(CONTEXT, np.float32)
        self._sr = np.array(16_000, dtype=np.int64)

    @classmethod
    def factory(cls, settings: Settings) -> Any:
        """A maker of detectors sharing one loaded model (loaded now)."""
        model = resolve("vad", settings)
        session = shared_model("onnx-silero", model.location, lambda: _onnx(model.location))
        return lambda: cls(session)

    def __call__(self, frame: np.ndarray) -> float:
        x = np.concatenate([self._context, frame.astype(np.float32)])[None, :]
        out, self._state = self._session.run(
            None, {"input": x, "state": self._state, "sr": self._sr}
        )
        self._context = x[0, -CONTEXT:]
        return float(np.asarray(out).reshape(-1)[0])


class EnergyStream:
    """A level gate: the probability rises from 0 to 1 around ``floor_db`` dBFS. Cheap
    and model-free; it hears any loud sound as speech."""

    def __init__(self, floor_db: float = -38.0, width_db: float = 3.0) -> None:
        self.floor_db, self.width_db = floor_db, width_db

    def __call__(self, frame: np.ndarray) -> float:
        rms = float(np.sqrt(np.mean(np.square(frame, dtype=np.float64)) + 1e-12))
        db = 20.0 * np.log10(rms)
        return float(1.0 / (1.0 + np.exp(-(db - self.floor_db) / self.width_db)))


def detector_factory(settings: Settings) -> Any:
    """Makes one detector per session, of the kind ``settings.server.vad`` names."""
    if settings.server.vad == "energy":
        return EnergyStream
    return SileroStream.factory(settings)


@dataclass(frozen=True)
class TurnTaking:
    """``server_vad``'s parameters; times in milliseconds."""

    threshold: float = 0.5
    prefix_padding_ms: int = 300
    silence_duration_ms: int = 500
    #: below ``threshold - hysteresis`` counts as silence (Silero's own rule)
    hysteresis: float = 0.15
    #: speech shorter than this (a click, a cough) is not a turn: no commit
    min_speech_ms: float = 160.0


@dataclass(frozen=True)
class VadEvent:
    kind: str  # "started" or "stopped"
    #: started: where the turn's audio begins (speech onset minus the prefix padding);
    #: stopped: where speech ended (the silence that closed it follows)
    at_ms: float
    #: stopped only: whether the speech was long enough to be a turn
    is_turn: bool = True
    #: started only: where speech was first heard
    onset_ms: float = 0.0


class TurnDetector:
    """Frame probabilities in, ``started`` / ``stopped`` events out."""

    def __init__(self, params: TurnTaking) -> None:
        self.params = params
        self.speaking = False
        self._onset = 0.0
        self._last_voiced_end = 0.0
        self._silence_since: float | None = None

    def push(self, prob: float, start_ms: float, end_ms: float) -> VadEvent | None:
        """One frame's probability, spanning ``start_ms``-``end_ms`` of the session."""
        p = self.params
        if not self.speaking:
            if prob >= p.threshold:
                self.speaking = True
                self._onset, self._last_voiced_end = start_ms, end_ms
                self._silence_since = None
                at = max(0.0, start_ms - p.prefix_padding_ms)
                return VadEvent("started", at, onset_ms=start_ms)
            return None
        if prob >= max(p.threshold - p.hysteresis, 0.01):
            self._last_voiced_end = end_ms
            self._silence_since = None
            return None
        if self._silence_since is None:
            self._silence_since = start_ms
        if end_ms - self._silence_since >= p.silence_duration_ms:
            self.speaking = False
            spoken = self._last_voiced_end - self._onset
            return VadEvent("stopped", self._last_voiced_end, spoken >= p.min_speech_ms)
        return None


class StreamingVad:
    """A session's detector, resampled input in, turn events out, frame by frame."""

    def __init__(self, detector: SpeechDetector, params: TurnTaking) -> None:
        self.detector = detector
        self.turns = TurnDetector(params)
        self._pending = np.zeros(0, np.float32)
        self._frames = 0

    @property
    def now_ms(self) -> float:
        """Session time up to which the detector has judged the audio."""
        return self._frames * FRAME_MS

    def feed(self, samples16k: np.ndarray) -> list[VadEvent]:
        x = np.concatenate([self._pending, samples16k])
        n = len(x) // FRAME
        events: list[VadEvent] = []
        for i in range(n):
            prob = self.detector(x[i * FRAME : (i + 1) * FRAME])
            start = self._frames * FRAME_MS
            self._frames += 1
            event = self.turns.push(prob, start, start + FRAME_MS)
            if event is not None:
                events.append(event)
        self._pending = x[n * FRAME :]
        return events


def _onnx(path: str) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
