"""The small interfaces every encoder implements, and the per-process model cache."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

import numpy as np

from voxmem.audio import TARGET_RATE, Audio
from voxmem.errors import InvalidAudio

T = TypeVar("T")
_MODELS: dict[tuple[str, str], Any] = {}
_LOCK = threading.Lock()


def shared_model(kind: str, location: str, load: Callable[[], T]) -> T:
    """Load a model once per process and share it between encoder instances."""
    key = (kind, location)
    with _LOCK:
        if key not in _MODELS:
            _MODELS[key] = load()
        model: T = _MODELS[key]
        return model


def loaded_model(kind: str, location: str) -> Any | None:
    """The shared model if it is loaded, without waiting for a load in progress."""
    return _MODELS.get((kind, location))


def reload_shared_model(kind: str, location: str, load: Callable[[], T]) -> T:
    """Load a model again and share the new copy from now on (calls already running
    finish on the old one, which goes when nothing holds it)."""
    model = load()
    with _LOCK:
        _MODELS[(kind, location)] = model
    return model


_TORCH_THREADS: int | None = None
_THREADS_LOCK = threading.Lock()


def use_torch_threads(threads: int | None = None) -> int:
    """Set torch's thread count, which torch keeps per process (a thread that has already
    run torch keeps the count it had), and return it. ``None``: the count set last by
    voxmem in this process (an application's ``Settings(torch_threads=...)``, applied
    when its models loaded), else ``VOXMEM_TORCH_THREADS``. Every voxmem loader of a
    torch model calls this, so a component with no settings of its own (the planner's
    encoder) follows the memory's."""
    global _TORCH_THREADS
    import torch

    with _THREADS_LOCK:  # loads run in threads (the local LLM's outside shared_model)
        if threads is None:
            if _TORCH_THREADS is None:
                from voxmem.settings import Settings

                _TORCH_THREADS = Settings().torch_threads
            threads = _TORCH_THREADS
        _TORCH_THREADS = threads
        torch.set_num_threads(threads)
        return threads


def l2_normalize(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    x = np.asarray(x, dtype=np.float32)
    norm = np.linalg.norm(x, axis=-1, keepdims=True)
    return np.where(norm > 0, x / np.maximum(norm, 1e-12), x).astype(np.float32)


class AudioEncoder(ABC):
    """Embeds audio segments into ``dim``-dimensional float32 vectors."""

    name: str
    dim: int
    sample_rate: int = TARGET_RATE
    #: segments shorter than this are padded by the backend, not rejected
    min_seconds: float = 0.0

    @abstractmethod
    def _embed(self, segments: Sequence[Audio]) -> np.ndarray: ...

    def embed(self, segments: Sequence[Audio]) -> np.ndarray:
        """One row per segment, shape ``(len(segments), dim)``."""
        for i, seg in enumerate(segments):
            if seg.sample_rate != self.sample_rate:
                raise InvalidAudio(
                    f"segment {i} is at {seg.sample_rate} Hz but {self.name} needs "
                    f"{self.sample_rate} Hz; load it with voxmem.audio.load_audio"
                )
            if len(seg.samples) == 0:
                raise InvalidAudio(f"segment {i} is empty; drop it before encoding")
        if not segments:
            return np.zeros((0, self.dim), np.float32)
        out = np.asarray(self._embed(segments), dtype=np.float32)
        assert out.shape == (len(segments), self.dim), out.shape
        return out

    def embed_one(self, segment: Audio) -> np.ndarray:
        return self.embed([segment])[0]


class ScoredLabel(Protocol):
    @property
    def label(self) -> str: ...
    @property
    def score(self) -> float: ...


class LabellingEncoder(AudioEncoder):
    """An audio encoder that also names what it hears (style labels, sound events), each
    with a score in [0, 1], best first. Callers check the type, never probe methods."""

    @abstractmethod
    def labels(self, audio: Audio) -> Sequence[ScoredLabel]: ...


class RelativeStyleEncoder(LabellingEncoder):
    """A style encoder that can also judge a clip against a speaker's own habits: its raw
    features (what a speaker baseline averages), and vectors and label scores either
    absolute or relative to a baseline (that speaker's mean raw features)."""

    @abstractmethod
    def features(self, segments: Sequence[Audio]) -> np.ndarray: ...

    @abstractmethod
    def vectors(self, feats: np.ndarray, baseline: np.ndarray | None = None) -> np.ndarray: ...

    @abstractmethod
    def label_scores(
        self, feats: np.ndarray, baseline: np.ndarray | None = None
    ) -> dict[str, np.ndarray]: ...

    @abstractmethod
    def labels_for(
        self, feats: np.ndarray, baseline: np.ndarray | None = None
    ) -> Sequence[ScoredLabel]: ...


class TextEncoder(ABC):
    """Embeds texts. Queries and passages may be encoded differently (e5 prefixes)."""

    name: str
    dim: int

    @abstractmethod
    def _encode(self, texts: Sequence[str], kind: str) -> np.ndarray: ...

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of stored texts (transcripts)."""
        return self._checked(texts, "passage")

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of search texts (instructions, questions)."""
        return self._checked(texts, "query")

    def _checked(self, texts: Sequence[str], kind: str) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("pass a list of texts, not one string")
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        out = np.asarray(self._encode(list(texts), kind), dtype=np.float32)
        assert out.shape == (len(texts), self.dim), out.shape
        return out
