"""Who spoke when.

The default needs no weights of its own: Silero speech regions, voiceprints
over sliding windows, agglomerative clustering with an unknown number of
speakers (a distance threshold, not a count), then merged turns, each with the
voiceprint of its own audio. pyannote.audio's pipeline is used instead when its
weights are configured.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from voxmem.audio import Audio
from voxmem.memory.encoders.base import (
    AudioEncoder,
    l2_normalize,
    shared_model,
    use_torch_threads,
)
from voxmem.memory.encoders.vad import SileroVad, SpeechRegion
from voxmem.memory.encoders.windows import window_starts
from voxmem.models import ResolvedModel


@dataclass(frozen=True)
class DiarizationParams:
    """Tunable settings of the clustering diarizer."""

    window: float = 1.5  # seconds of audio per voiceprint window
    hop: float = 0.75
    #: cosine distance under which two clusters merge (average linkage)
    threshold: float = 0.45
    #: gaps shorter than this between pieces of one speaker are bridged
    bridge: float = 0.5
    min_turn: float = 0.25


@dataclass(frozen=True, eq=False)
class SpeakerTurn:
    """One speaker's stretch of speech. ``speaker`` is local to the recording."""

    start: float
    end: float
    speaker: str
    voiceprint: np.ndarray = field(repr=False)

    @property
    def duration(self) -> float:
        return self.end - self.start


class Diarizer(Protocol):
    def __call__(self, audio: Audio) -> list[SpeakerTurn]: ...


class ClusteringDiarizer:
    """VAD + sliding-window voiceprints + agglomerative clustering."""

    name = "clustering"

    def __init__(
        self, vad: SileroVad, speaker: AudioEncoder, params: DiarizationParams | None = None
    ) -> None:
        self.vad, self.speaker = vad, speaker
        self.params = params or DiarizationParams()

    def windows(self, regions: list[SpeechRegion]) -> list[tuple[float, float]]:
        """Voiceprint windows: a short region whole, a long one in windows of
        ``window`` every ``hop`` and one more ending at the region's end."""
        p = self.params
        out = []
        for r in regions:
            if r.duration <= p.window * 1.5:
                out.append((r.start, r.end))
            else:
                starts = window_starts(r.start, r.end, p.window, p.hop, tail="align")
                out += [(t, t + p.window) for t in starts[:-1]] + [(starts[-1], r.end)]
        return out

    def __call__(self, audio: Audio) -> list[SpeakerTurn]:
        regions = self.vad.regions(audio)
        if not regions:
            return []
        wins = self.windows(regions)
        emb = self.speaker.embed([audio.slice(s, e) for s, e in wins])
        labels = cluster(emb, self.params.threshold)
        pieces = _assign(regions, wins, labels)
        turns = _merge(pieces, self.params.bridge, self.params.min_turn)
        return voiced_turns(audio, turns, self.speaker)


def voiced_turns(
    audio: Audio, spans: list[tuple[float, float, Any]], speaker: AudioEncoder
) -> list[SpeakerTurn]:
    """Turns with the voiceprint of their own audio; labels renamed S1, S2, ... in order of
    first appearance."""
    if not spans:
        return []
    prints = speaker.embed([audio.slice(s, e) for s, e, _ in spans])
    names: dict[Any, str] = {}
    for _, _, lab in spans:
        names.setdefault(lab, f"S{len(names) + 1}")
    return [SpeakerTurn(s, e, names[lab], prints[i]) for i, (s, e, lab) in enumerate(spans)]


def cluster(embeddings: np.ndarray, threshold: float) -> np.ndarray:
    """Cluster labels from average-linkage agglomeration on cosine distance."""
    if len(embeddings) == 1:
        return np.zeros(1, int)
    from scipy.cluster.hierarchy import fcluster, linkage

    z = linkage(l2_normalize(embeddings), method="average", metric="cosine")
    return np.asarray(fcluster(z, t=threshold, criterion="distance")) - 1


def _assign(
    regions: list[SpeechRegion], wins: list[tuple[float, float]], labels: np.ndarray
) -> list[tuple[float, float, int]]:
    """Split each region at midpoints between window centres; each piece takes the label
    of its window."""
    centres = np.array([(s + e) / 2 for s, e in wins])
    pieces = []
    for r in regions:
        inside = [i for i, c in enumerate(centres) if r.start <= c <= r.end]
        if not inside:
            inside = [int(np.argmin(np.abs(centres - (r.start + r.end) / 2)))]
        bounds = (
            [r.start]
            + [(centres[a] + centres[b]) / 2 for a, b in itertools.pairwise(inside)]
            + [r.end]
        )
        for k, i in enumerate(inside):
            pieces.append((float(bounds[k]), float(bounds[k + 1]), int(labels[i])))
    return pieces


def _merge(
    pieces: list[tuple[float, float, int]], bridge: float, min_turn: float
) -> list[tuple[float, float, int]]:
    merged: list[list[float]] = []
    for s, e, lab in sorted(pieces):
        if merged and merged[-1][2] == lab and s - merged[-1][1] <= bridge:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e, lab])
    return [(s, e, int(lab)) for s, e, lab in merged if e - s >= min_turn]


class PyannoteDiarizer:
    """pyannote.audio's speaker-diarization pipeline, from configured weights."""

    name = "pyannote"

    def __init__(
        self, model: ResolvedModel, speaker: AudioEncoder, threads: int | None = None
    ) -> None:
        def load() -> Any:
            from pyannote.audio import Pipeline

            use_torch_threads(threads)
            return Pipeline.from_pretrained(model.location)

        self._pipeline = shared_model("pyannote-pipeline", model.location, load)
        self.speaker = speaker

    def __call__(self, audio: Audio) -> list[SpeakerTurn]:
        import torch

        result = self._pipeline(
            {"waveform": torch.from_numpy(audio.samples)[None], "sample_rate": audio.sample_rate}
        )
        annotation = getattr(result, "speaker_diarization", result)
        spans = [
            (float(seg.start), float(seg.end), str(label))
            for seg, _, label in annotation.itertracks(yield_label=True)
        ]
        return voiced_turns(audio, list(spans), self.speaker)
