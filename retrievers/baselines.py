"""The papers' baselines as retrievers, by name, on the same memory as ``instruct``.

- ``random``: a seeded random order.
- ``bm25``: Lucene-style BM25 (k1 0.9, b 0.4, English stopwords, Snowball stems) over
  transcripts; the query is the instruction plus the reference clip's transcript.
- ``dense``: text embeddings of the same query against the transcripts.
- ``speaker``: voiceprint similarity to the reference clip only.
- ``acoustic``: instruction-blind audio similarity to the reference (voice, style and
  environment vectors together), the paper's self-supervised baseline analogue.
- ``two-stage``: VoiceTrace's baseline: voiceprint over segments, then the top 25
  reranked by text similarity between the question and the transcript.
- ``instruct``: ours, :func:`voxmem.retrievers.recall.recall`.

Each ranks segments; ``documents=True`` rolls them up to recordings by their best turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from voxmem.memory.records import Segment
from voxmem.memory.store import AudioMemory
from voxmem.retrievers.recall import (
    RecallResult,
    Reference,
    RetrievedDocument,
    RetrievedTurn,
    recall,
    roll_up,
)

ALL = 20_000
BM25_K1, BM25_B = 0.9, 0.4
TWO_STAGE_TOP = 25


@dataclass
class Query:
    instruction: str
    reference: Reference | None = None
    #: the spoken question's words when the benchmark gives them as text
    text: str | None = None
    seed: int = 0

    def words(self) -> str:
        extra = self.text or (self.reference.transcript if self.reference else "")
        return f"{self.instruction} {extra}".strip()


Ranker = Callable[[AudioMemory, str, Query], list[RetrievedTurn]]


def _all(memory: AudioMemory, tenant: str) -> list[Segment]:
    return memory.list(tenant, limit=ALL, vectors=True)


def _ranked(segs: list[Segment], scores: np.ndarray) -> list[RetrievedTurn]:
    order = np.argsort(-scores, kind="stable")
    return [RetrievedTurn(segs[i], float(scores[i])) for i in order]


def random_ranker(memory: AudioMemory, tenant: str, query: Query) -> list[RetrievedTurn]:
    segs = _all(memory, tenant)
    return _ranked(segs, np.random.default_rng(query.seed).random(len(segs)))


def bm25_ranker(memory: AudioMemory, tenant: str, query: Query) -> list[RetrievedTurn]:
    import bm25s
    import Stemmer

    segs = _all(memory, tenant)
    if not segs:
        return []
    stemmer = Stemmer.Stemmer("english")
    corpus = bm25s.tokenize(
        [s.transcript for s in segs], stopwords="en", stemmer=stemmer, show_progress=False
    )
    index = bm25s.BM25(k1=BM25_K1, b=BM25_B, method="lucene")
    index.index(corpus, show_progress=False)
    q = bm25s.tokenize([query.words()], stopwords="en", stemmer=stemmer, show_progress=False)
    if not q.vocab:
        return _ranked(segs, np.zeros(len(segs)))
    scores = index.get_scores([w for w in q.vocab if w])
    return _ranked(segs, np.asarray(scores, dtype=np.float64))


def dense_ranker(memory: AudioMemory, tenant: str, query: Query) -> list[RetrievedTurn]:
    segs = _all(memory, tenant)
    q = memory.perception.text.queries([query.words()])[0]
    return _ranked(segs, np.array([float(s.vectors["text"] @ q) for s in segs]))


def _reference_ranker(spaces: tuple[str, ...]) -> Ranker:
    def rank(memory: AudioMemory, tenant: str, query: Query) -> list[RetrievedTurn]:
        segs = _all(memory, tenant)
        if query.reference is None:
            return _ranked(segs, np.zeros(len(segs)))
        ref = query.reference.vectors
        scores = np.array([sum(float(s.vectors[sp] @ ref[sp]) for sp in spaces) for s in segs])
        return _ranked(segs, scores)

    return rank


def two_stage_ranker(memory: AudioMemory, tenant: str, query: Query) -> list[RetrievedTurn]:
    by_voice = _reference_ranker(("speaker",))(memory, tenant, query)
    head, tail = by_voice[:TWO_STAGE_TOP], by_voice[TWO_STAGE_TOP:]
    q = memory.perception.text.queries([query.text or query.instruction])[0]
    reranked = sorted(head, key=lambda t: -float(t.segment.vectors["text"] @ q))
    top = [RetrievedTurn(t.segment, 2.0 + float(t.segment.vectors["text"] @ q)) for t in reranked]
    return top + tail


def instruct_ranker(memory: AudioMemory, tenant: str, query: Query) -> list[RetrievedTurn]:
    result: RecallResult = recall(
        memory, tenant, query.instruction, reference=query.reference, k=ALL
    )
    return result.turns


RETRIEVERS: dict[str, Ranker] = {
    "random": random_ranker,
    "bm25": bm25_ranker,
    "dense": dense_ranker,
    "speaker": _reference_ranker(("speaker",)),
    "acoustic": _reference_ranker(("speaker", "style", "environment")),
    "two-stage": two_stage_ranker,
    "instruct": instruct_ranker,
}


def retrieve(
    name: str, memory: AudioMemory, tenant: str, query: Query, k: int = 10, documents: bool = False
) -> list[RetrievedTurn] | list[RetrievedDocument]:
    """Rank with the named retriever; the same call for baselines and ``instruct``."""
    try:
        ranker = RETRIEVERS[name]
    except KeyError:
        raise KeyError(f"unknown retriever {name!r}; known: {', '.join(RETRIEVERS)}") from None
    turns = ranker(memory, tenant, query)
    return roll_up(turns)[:k] if documents else turns[:k]
