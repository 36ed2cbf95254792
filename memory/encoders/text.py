"""Sentence embeddings of transcripts and instructions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from voxmem.memory.encoders.base import TextEncoder, shared_model
from voxmem.models import ResolvedModel


class MiniLMEncoder(TextEncoder):
    """all-MiniLM-L6-v2 (384-d, cosine). Queries and passages are encoded alike."""

    name = "minilm"
    dim = 384

    def __init__(self, model: ResolvedModel, threads: int = 2) -> None:
        def load() -> Any:
            import torch
            from sentence_transformers import SentenceTransformer

            torch.set_num_threads(threads)
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
