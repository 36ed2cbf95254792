"""Voice activity: Silero VAD run from its ONNX file, without torch.

Frame probabilities every 32 ms, then the same hysteresis as Silero's own
``get_speech_timestamps``: speech starts above ``threshold``, ends after
``min_silence`` below ``threshold - 0.15``; short bursts are dropped and
regions are padded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from voxmem.audio import TARGET_RATE, Audio
from voxmem.errors import InvalidAudio
from voxmem.memory.encoders.base import shared_model
from voxmem.memory.encoders.windows import infer
from voxmem.models import ResolvedModel

CHUNK, CONTEXT = 512, 64  # samples at 16 kHz


@dataclass(frozen=True)
class VadParams:
    """Tunable settings of the region finder, in one place."""

    threshold: float = 0.5
    min_speech: float = 0.25  # seconds
    min_silence: float = 0.1
    pad: float = 0.03


@dataclass(frozen=True)
class SpeechRegion:
    start: float
    end: float

    @property
    def duration(self) -> float:
        return self.end - self.start


class SileroVad:
    """Speech regions of a clip."""

    name = "silero"
    sample_rate = TARGET_RATE
    frame_seconds = CHUNK / TARGET_RATE

    def __init__(self, model: ResolvedModel, params: VadParams | None = None) -> None:
        self._session = shared_model(
            "onnx-silero", model.location, lambda: _session(model.location)
        )
        self.params = params or VadParams()

    def probabilities(self, audio: Audio) -> np.ndarray:
        """Speech probability of each 32 ms frame."""
        if audio.sample_rate != self.sample_rate:
            raise InvalidAudio(
                f"VAD needs {self.sample_rate} Hz audio, got "
                f"{audio.sample_rate}; load it with voxmem.audio.load_audio"
            )
        state = np.zeros((2, 1, 128), np.float32)
        sr = np.array(self.sample_rate, dtype=np.int64)

        def step(frame: np.ndarray) -> float:
            nonlocal state
            out, state = self._session.run(None, {"input": frame[None], "state": state, "sr": sr})
            return float(out.reshape(-1)[0])

        x = audio.samples.astype(np.float32)
        return infer(x, CHUNK, CHUNK, step, context=CONTEXT).astype(np.float32)

    def regions(self, audio: Audio) -> list[SpeechRegion]:
        """Padded speech regions, in seconds, non-overlapping and in order."""
        return regions_from_probabilities(
            self.probabilities(audio), self.frame_seconds, audio.duration, self.params
        )


def regions_from_probabilities(
    probs: np.ndarray, frame: float, duration: float, params: VadParams
) -> list[SpeechRegion]:
    """Silero's hysteresis over frame probabilities."""
    low = max(params.threshold - 0.15, 0.01)
    regions: list[list[float]] = []
    start: float | None = None
    silence_since: float | None = None
    for i, p in enumerate(probs):
        t = i * frame
        if p >= params.threshold:
            silence_since = None
            if start is None:
                start = t
        elif start is not None and p < low:
            if silence_since is None:
                silence_since = t
            if t + frame - silence_since >= params.min_silence:
                regions.append([start, silence_since])
                start, silence_since = None, None
    if start is not None:
        regions.append([start, silence_since if silence_since is not None else duration])
    kept = [r for r in regions if r[1] - r[0] >= params.min_speech]
    out: list[SpeechRegion] = []
    for s, e in kept:
        s, e = max(0.0, s - params.pad), min(duration, e + params.pad)
        if out and s <= out[-1].end:
            out[-1] = SpeechRegion(out[-1].start, max(e, out[-1].end))
        else:
            out.append(SpeechRegion(s, e))
    return out


def _session(path: str) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
