"""Speaking style: how something was said, whoever said it.

The vector is the 88 eGeMAPSv02 functionals (openSMILE; prosody, voice
quality, spectral balance, rhythm), standardised with calibration statistics
and L2-normalised. Labels come from a documented vocabulary: prosodic styles
scored against calibration prototypes, plus vocal events (laughing, crying,
shouting, whispering) scored by YAMNet when an environment encoder is given.

The calibration (``data/style_calibration.json``) is produced by
``python -m voxmem.benchmarks.calibrate`` from synthetic speech of voices
that the style probe holds out of its test set.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from voxmem.audio import Audio
from voxmem.memory.encoders.base import RelativeStyleEncoder, l2_normalize, shared_model

#: Prosodic styles, each with what it means. Shared with the synthetic voices.
STYLE_VOCABULARY: dict[str, str] = {
    "neutral": "plain, even speech",
    "fast": "speaking quickly",
    "slow": "speaking slowly",
    "whisper": "whispering, no voicing",
    "sad": "low, flat, slow and soft",
    "excited": "high, lively and fast (happy, excited)",
    "angry": "loud, tense and forceful",
    "monotone": "flat pitch, no intonation",
    "high": "high-pitched",
    "low": "low-pitched",
}
#: Vocal events scored by YAMNet class (index into its 521 classes).
VOCAL_EVENTS: dict[str, tuple[int, ...]] = {
    "laughing": (13, 14, 15, 16, 17, 18),
    "crying": (19, 20, 21),
    "shouting": (6, 7, 8, 9, 10, 11),
    "whispering": (12,),
}
CALIBRATION = "style_calibration.json"
Z_CLIP = 6.0


@dataclass(frozen=True)
class StyleLabel:
    label: str
    score: float


@dataclass(frozen=True)
class StyleCalibration:
    """Standardisation and prototypes, absolute and relative to a speaker's baseline."""

    mean: np.ndarray
    std: np.ndarray
    prototypes: dict[str, np.ndarray]
    relative_std: np.ndarray | None = None
    relative_prototypes: dict[str, np.ndarray] | None = None
    temperature: float = 0.1

    @classmethod
    def load(cls, path: Path | None = None) -> StyleCalibration:
        text = (
            path.read_text()
            if path
            else resources.files("voxmem.memory.encoders").joinpath("data", CALIBRATION).read_text()
        )
        data = json.loads(text)
        return cls(
            np.array(data["mean"], np.float64),
            np.array(data["std"], np.float64),
            {k: np.array(v, np.float32) for k, v in data["prototypes"].items()},
            np.array(data["relative_std"], np.float64),
            {k: np.array(v, np.float32) for k, v in data["relative_prototypes"].items()},
            float(data.get("temperature", 0.1)),
        )

    @classmethod
    def identity(cls, dim: int = 88) -> StyleCalibration:
        return cls(np.zeros(dim), np.ones(dim), {})


def egemaps_features(segments: Sequence[Audio]) -> np.ndarray:
    """(n, 88) raw eGeMAPSv02 functionals."""

    def load() -> Any:
        import opensmile

        return opensmile.Smile(
            feature_set=opensmile.FeatureSet.eGeMAPSv02,
            feature_level=opensmile.FeatureLevel.Functionals,
        )

    smile = shared_model("opensmile", "eGeMAPSv02", load)
    rows = []
    for seg in segments:
        x = seg.samples
        if len(x) < seg.sample_rate // 2:  # openSMILE needs some frames to summarise
            x = np.pad(x, (0, seg.sample_rate // 2 - len(x)))
        rows.append(smile.process_signal(x, seg.sample_rate).to_numpy()[0])
    return np.nan_to_num(np.asarray(rows, dtype=np.float64))


class EgemapsStyleEncoder(RelativeStyleEncoder):
    """Standardised eGeMAPS functionals; style labels by prototype and vocal events."""

    name = "egemaps"
    dim = 88

    def __init__(
        self, calibration: StyleCalibration | None = None, environment: Any | None = None
    ) -> None:
        self.calibration = calibration or StyleCalibration.load()
        self.environment = environment  # a YamnetEnvironmentEncoder, for vocal events

    def standardise(self, feats: np.ndarray, baseline: np.ndarray | None = None) -> np.ndarray:
        """z-scores of raw functionals; relative to ``baseline`` (a speaker's mean raw
        functionals) when given."""
        cal = self.calibration
        if baseline is None:
            z = (feats - cal.mean) / cal.std
        else:
            std = cal.relative_std if cal.relative_std is not None else cal.std
            z = (feats - baseline) / std
        return np.clip(z, -Z_CLIP, Z_CLIP)

    def features(self, segments: Sequence[Audio]) -> np.ndarray:
        """Raw functionals, shape (n, 88): what a speaker baseline averages."""
        return egemaps_features(segments)

    def vectors(self, feats: np.ndarray, baseline: np.ndarray | None = None) -> np.ndarray:
        """Style vectors from raw functionals, absolute or speaker-relative."""
        return l2_normalize(self.standardise(np.atleast_2d(feats), baseline))

    def _embed(self, segments: Sequence[Audio]) -> np.ndarray:
        return self.vectors(egemaps_features(segments))

    def embed_relative(self, segments: Sequence[Audio], baseline: np.ndarray) -> np.ndarray:
        """Style relative to the speaker: what changed from how this speaker usually talks.

        Much more speaker-independent than :meth:`embed` (pitch level, timbre and
        rate are judged against the speaker's own habits)."""
        return self.vectors(egemaps_features(segments), baseline)

    def label_scores(
        self, feats: np.ndarray, baseline: np.ndarray | None = None
    ) -> dict[str, np.ndarray]:
        """Prosodic label probabilities for rows of raw functionals, absolute or relative to
        ``baseline`` (one baseline row per feature row, or one for all)."""
        cal = self.calibration
        protos = cal.relative_prototypes if baseline is not None else cal.prototypes
        if not protos:
            return {}
        vecs = l2_normalize(self.standardise(np.atleast_2d(feats), baseline))
        names = list(protos)
        sims = vecs @ np.stack([protos[n] for n in names]).T
        p = np.exp((sims - sims.max(axis=1, keepdims=True)) / cal.temperature)
        p /= p.sum(axis=1, keepdims=True)
        return {n: p[:, i] for i, n in enumerate(names)}

    def labels_for(self, feats: np.ndarray, baseline: np.ndarray | None = None) -> list[StyleLabel]:
        """Prosodic labels of one clip from its raw functionals, best first."""
        scores = self.label_scores(feats, baseline)
        return sorted(
            (StyleLabel(n, float(v[0])) for n, v in scores.items()), key=lambda lab: -lab.score
        )

    def labels(self, audio: Audio, baseline: np.ndarray | None = None) -> list[StyleLabel]:
        """Every vocabulary label with a score in [0, 1], best first.

        Prosodic styles share a softmax over prototype similarity (speaker-relative
        prototypes when ``baseline`` is given); vocal events are independent YAMNet
        probabilities (only when an environment encoder was given).
        """
        out = self.labels_for(egemaps_features([audio]), baseline)
        if self.environment is not None:
            logits = self.environment.patch_logits(audio).max(axis=0)
            for event, classes in VOCAL_EVENTS.items():
                score = 1 / (1 + np.exp(-float(logits[list(classes)].max())))
                out.append(StyleLabel(event, score))
        return sorted(out, key=lambda lab: -lab.score)
