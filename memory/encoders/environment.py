"""The acoustic environment: YAMNet's 521 AudioSet classes, run from its int8 ONNX.

Front end as YAMNet defines it: 16 kHz, 25 ms periodic-Hann windows every
10 ms, 512-point magnitude spectrum, 64 HTK mel bands over 125-7500 Hz,
log(mel + 0.001), patches of 96 frames (0.96 s) every 48 frames. The model
takes uint8 input and returns uint8 logits; both quantisations are read from
the model's own Quantize/Dequantize nodes.

So that the talker does not drown out the background, the background vector
drops the voice classes and weights each patch by how little speech it holds,
and adds the spectral shape of the clip's quietest frames (where the
background is heard alone), standardised with calibration statistics from
``data/environment_calibration.json`` (``python -m voxmem.benchmarks.calibrate``).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from voxmem.audio import Audio
from voxmem.memory.encoders.base import LabellingEncoder, l2_normalize, shared_model
from voxmem.memory.encoders.windows import infer
from voxmem.models import ResolvedModel

WINDOW, HOP, N_FFT, N_MELS = 400, 160, 512, 64
PATCH, PATCH_HOP = 96, 48
FMIN, FMAX, LOG_OFFSET = 125.0, 7500.0, 0.001
#: Human voice classes (speech, shouting, laughter, crying, singing, breathing ...)
#: are the talker, not the environment.
VOICE_CLASSES = range(0, 46)
SPEECH_CLASSES = (0, 1, 2, 3, 4, 5)
#: share of the quietest frames whose spectrum describes the background alone
QUIET_FRACTION = 0.3
#: weight of the spectral part against the YAMNet part (both unit length);
#: chosen by leave-one-speaker-out on the calibration voices only
SPECTRAL_WEIGHT = 0.5
CALIBRATION = "environment_calibration.json"


@dataclass(frozen=True)
class SoundEvent:
    label: str
    score: float


def _hz_to_mel(hz: np.ndarray) -> np.ndarray:
    return 1127.0 * np.log1p(hz / 700.0)


def mel_matrix(sample_rate: int = 16_000) -> np.ndarray:
    """(N_FFT//2+1, N_MELS) HTK triangular filters, as YAMNet builds them."""
    n_bins = N_FFT // 2 + 1
    bins_mel = _hz_to_mel(np.linspace(0, sample_rate / 2, n_bins))
    edges = np.linspace(_hz_to_mel(np.array(FMIN)), _hz_to_mel(np.array(FMAX)), N_MELS + 2)
    lower, centre, upper = edges[:-2], edges[1:-1], edges[2:]
    up = (bins_mel[:, None] - lower) / (centre - lower)
    down = (upper - bins_mel[:, None]) / (upper - centre)
    weights = np.maximum(0.0, np.minimum(up, down))
    weights[0, :] = 0.0  # YAMNet zeroes the DC bin
    return weights.astype(np.float32)


@dataclass(frozen=True)
class EnvironmentCalibration:
    """Mean and spread of the spectral features over the calibration clips."""

    mean: np.ndarray
    std: np.ndarray

    @classmethod
    def load(cls, path: Path | None = None) -> EnvironmentCalibration:
        text = (
            path.read_text()
            if path
            else resources.files("voxmem.memory.encoders").joinpath("data", CALIBRATION).read_text()
        )
        data = json.loads(text)
        return cls(np.array(data["mean"], np.float32), np.array(data["std"], np.float32))


class YamnetEnvironmentEncoder(LabellingEncoder):
    """Background vectors (non-voice logits, speech-weighted) and sound-event labels."""

    name = "yamnet"
    min_seconds = 0.96

    def __init__(
        self,
        model: ResolvedModel,
        threads: int = 2,
        calibration: EnvironmentCalibration | None = None,
    ) -> None:
        self.calibration = calibration or EnvironmentCalibration.load()
        self._session = shared_model(
            "onnx-yamnet", model.location, lambda: _session(model.location, threads)
        )
        self._in_scale, self._in_zero, self._out_scale, self._out_zero = _quantisation(
            model.location
        )
        with open(Path(model.location).parent / "yamnet_class_map.csv") as f:
            self.class_names = [row["display_name"] for row in csv.DictReader(f)]
        self._keep = np.array([i for i in range(len(self.class_names)) if i not in VOICE_CLASSES])
        self.dim = len(self._keep) + 2 * N_MELS
        self._mel = mel_matrix()
        #: the last clips' logits: ingest embeds a turn, then asks for its events
        self._recent: list[tuple[np.ndarray, np.ndarray]] = []
        self._window = np.hanning(WINDOW + 1)[:-1].astype(np.float32)  # periodic Hann

    # -- front end and model ---------------------------------------------------

    def log_mel(self, audio: Audio) -> np.ndarray:
        x = audio.samples
        if len(x) < WINDOW:
            x = np.pad(x, (0, WINDOW - len(x)))
        n = 1 + (len(x) - WINDOW) // HOP
        idx = np.arange(WINDOW)[None, :] + HOP * np.arange(n)[:, None]
        spec = np.abs(np.fft.rfft(x[idx] * self._window, n=N_FFT, axis=1))
        return np.log(spec @ self._mel + LOG_OFFSET).astype(np.float32)

    def patch_logits(self, audio: Audio) -> np.ndarray:
        """(n_patches, 521) logits; clips shorter than a patch are padded with silence.
        The same clip object asked again (embed, then events) is not run twice."""
        for samples, logits in self._recent:
            if samples is audio.samples:
                return logits
        logits = self._patch_logits(audio)
        self._recent = [*self._recent[-7:], (audio.samples, logits)]
        return logits

    def _patch_logits(self, audio: Audio) -> np.ndarray:
        name = self._session.get_inputs()[0].name

        def patch(mel: np.ndarray) -> np.ndarray:
            q = np.clip(np.round(mel / self._in_scale) + self._in_zero, 0, 255)
            raw = self._session.run(None, {name: q.astype(np.uint8)[None, None]})[0][0]
            return (raw.astype(np.float32) - self._out_zero) * self._out_scale

        silence = float(np.log(np.float32(LOG_OFFSET)))
        return infer(self.log_mel(audio), PATCH, PATCH_HOP, patch, tail="drop", fill=silence)

    # -- what callers use --------------------------------------------------------

    def _speech_weights(self, logits: np.ndarray) -> np.ndarray:
        speech = 1 / (1 + np.exp(-logits[:, SPEECH_CLASSES].max(axis=1)))
        return 1.0 - speech + 0.05

    def spectral_features(self, audio: Audio) -> np.ndarray:
        """Mean log-mel shape of the quietest frames, and each band's spread (128 values)."""
        mel = self.log_mel(audio)
        energy = mel.mean(axis=1)
        quiet = mel[energy <= np.quantile(energy, QUIET_FRACTION)]
        shape = quiet.mean(axis=0)
        return np.concatenate([shape - shape.mean(), mel.std(axis=0)]).astype(np.float32)

    def _embed(self, segments: Sequence[Audio]) -> np.ndarray:
        rows = []
        for seg in segments:
            logits = self.patch_logits(seg)
            w = self._speech_weights(logits)
            mean = (w[:, None] * logits[:, self._keep]).sum(axis=0) / w.sum()
            events = l2_normalize((mean - mean.mean())[None])[0]
            z = (self.spectral_features(seg) - self.calibration.mean) / self.calibration.std
            spectral = l2_normalize(z[None])[0] * SPECTRAL_WEIGHT
            rows.append(np.concatenate([events, spectral]))
        return l2_normalize(np.stack(rows))

    def labels(self, audio: Audio) -> list[SoundEvent]:
        """The sound events the memory stores with a turn (voices left out)."""
        return self.events(audio)

    def events(self, audio: Audio, top: int = 5, include_voice: bool = False) -> list[SoundEvent]:
        """The most likely sound events in the clip (max over patches of the sigmoid)."""
        from scipy.special import expit

        scores = expit(self.patch_logits(audio).max(axis=0).astype(np.float64))
        order = np.argsort(-scores)
        if not include_voice:
            order = np.array([i for i in order if i not in VOICE_CLASSES])
        return [SoundEvent(self.class_names[i], float(scores[i])) for i in order[:top]]


def _session(path: str, threads: int) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def _quantisation(path: str) -> tuple[float, int, float, int]:
    """Input dequantisation and output quantisation parameters, from the graph itself."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(path, load_external_data=False).graph
    inits = {i.name: i for i in graph.initializer}

    def value(name: str) -> np.ndarray:
        return numpy_helper.to_array(inits[name])

    inp, out = graph.input[0].name, graph.output[0].name
    deq = next(n for n in graph.node if n.op_type == "DequantizeLinear" and n.input[0] == inp)
    qnt = next(n for n in graph.node if n.op_type == "QuantizeLinear" and n.output[0] == out)
    return (
        float(value(deq.input[1])),
        int(value(deq.input[2])),
        float(value(qnt.input[1])),
        int(value(qnt.input[2])),
    )
