"""Lexical evidence: Lucene-style BM25 over transcripts (k1 0.9, b 0.4, English
stopwords, Snowball stems), shared by the ``bm25`` baseline and ``recall``'s content
score. A caller's pool (a text corpus) is indexed once and reused while it is alive."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from voxmem.memory.records import Segment

BM25_K1, BM25_B = 0.9, 0.4

_POOL: dict[int, tuple[Sequence[Segment], Any]] = {}


def _tokenize(texts: list[str]) -> Any:
    import bm25s
    import Stemmer

    return bm25s.tokenize(
        texts, stopwords="en", stemmer=Stemmer.Stemmer("english"), show_progress=False
    )


def index(segments: Sequence[Segment], cache: bool = False) -> Any:
    """A BM25 index of the segments' transcripts; with ``cache``, the last pool indexed
    is kept (keyed by the list object itself) and reused."""
    import bm25s

    if cache and id(segments) in _POOL and _POOL[id(segments)][0] is segments:
        return _POOL[id(segments)][1]
    built = bm25s.BM25(k1=BM25_K1, b=BM25_B, method="lucene")
    built.index(_tokenize([s.transcript for s in segments]), show_progress=False)
    if cache:
        _POOL.clear()
        _POOL[id(segments)] = (segments, built)
    return built


def scores(segments: Sequence[Segment], query: str, cache: bool = False) -> np.ndarray:
    """BM25 score of every segment for ``query`` (zeros when it has no indexable word)."""
    if not segments:
        return np.zeros(0)
    q = _tokenize([query])
    words = [w for w in q.vocab if w]
    if not words:
        return np.zeros(len(segments))
    return np.asarray(index(segments, cache).get_scores(words), dtype=np.float64)
