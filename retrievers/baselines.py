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

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from voxmem.memory.records import Segment
from voxmem.memory.store import AudioMemory
from voxmem.retrievers import lexical
from voxmem.retrievers.recall import (
    RecallResult,
    Reference,
    RetrievedDocument,
    RetrievedTurn,
    recall,
    roll_up,
)

ALL = 20_000
TWO_STAGE_TOP = 25


@dataclass
class Query:
    instruction: str
    reference: Reference | None = None
    #: the spoken question's words when the benchmark gives them as text
    text: str | None = None
    seed: int = 0
    #: the query's id in its benchmark: ``random`` draws a different order per query
    id: str = ""
    #: text baselines read the instruction too (INSPIRE's cascades); SQuTR's read the
    #: spoken query alone
    instruction_in_text: bool = True
    #: rank these items instead of the tenant's stored turns (a text corpus)
    pool: list[Segment] | None = None

    def words(self) -> str:
        extra = self.text or (self.reference.transcript if self.reference else "")
        lead = self.instruction if self.instruction_in_text else ""
        return f"{lead} {extra}".strip()


Ranker = Callable[[AudioMemory, str, Query], list[RetrievedTurn]]


def _all(memory: AudioMemory, tenant: str, query: Query) -> list[Segment]:
    if query.pool is not None:
        return query.pool
    return memory.list(tenant, limit=ALL, vectors=True)


def _ranked(segs: list[Segment], scores: np.ndarray) -> list[RetrievedTurn]:
    order = np.argsort(-scores, kind="stable")
    return [RetrievedTurn(segs[i], float(scores[i])) for i in order]


def random_ranker(memory: AudioMemory, tenant: str, query: Query) -> list[RetrievedTurn]:
    segs = _all(memory, tenant, query)
    rng = np.random.default_rng([query.seed, zlib.crc32((query.id or query.words()).encode())])
    return _ranked(segs, rng.random(len(segs)))


def bm25_ranker(memory: AudioMemory, tenant: str, query: Query) -> list[RetrievedTurn]:
    segs = _all(memory, tenant, query)
    return _ranked(segs, lexical.scores(segs, query.words(), cache=query.pool is not None))


def dense_ranker(memory: AudioMemory, tenant: str, query: Query) -> list[RetrievedTurn]:
    segs = _all(memory, tenant, query)
    q = memory.perception.text.queries([query.words()])[0]
    return _ranked(segs, np.array([float(s.vectors["text"] @ q) for s in segs]))


def _reference_ranker(spaces: tuple[str, ...]) -> Ranker:
    def rank(memory: AudioMemory, tenant: str, query: Query) -> list[RetrievedTurn]:
        segs = _all(memory, tenant, query)
        if query.reference is None:
            return _ranked(segs, np.zeros(len(segs)))
        ref = query.reference.vectors
        scores = np.array(
            [sum(float(s.vectors[sp] @ ref[sp]) for sp in spaces if sp in s.vectors) for s in segs]
        )
        return _ranked(segs, scores)

    return rank


def two_stage_ranker(memory: AudioMemory, tenant: str, query: Query) -> list[RetrievedTurn]:
    """VoiceTrace's baseline: recordings by their best turn's voiceprint similarity, then
    the top 25 reranked by text similarity between the question and the recording's
    whole transcript. Every turn carries its recording's score."""
    by_voice = _reference_ranker(("speaker",))(memory, tenant, query)
    docs = roll_up(by_voice)
    head = docs[:TWO_STAGE_TOP]
    text = memory.perception.text
    q = text.queries([query.text or query.instruction])[0]
    sims = np.array([float(_transcript_vector(text, d) @ q) for d in head])
    out: list[RetrievedTurn] = []
    for i in np.argsort(-sims, kind="stable"):
        out += [RetrievedTurn(t.segment, 2.0 + float(sims[i])) for t in head[i].turns]
    for rank, d in enumerate(docs[TWO_STAGE_TOP:]):
        out += [RetrievedTurn(t.segment, -float(rank)) for t in d.turns]
    return out


def _transcript_vector(text: Any, doc: RetrievedDocument) -> np.ndarray:
    """The text vector of a recording's whole transcript: a one-turn recording's is the
    one stored with its turn; longer ones are embedded in turn order."""
    if len(doc.turns) == 1 and "text" in doc.turns[0].segment.vectors:
        return doc.turns[0].segment.vectors["text"]
    ordered = sorted(doc.turns, key=lambda t: t.segment.start)
    return text.passages([" ".join(t.segment.transcript for t in ordered)])[0]


def instruct_ranker(memory: AudioMemory, tenant: str, query: Query) -> list[RetrievedTurn]:
    result: RecallResult = recall(
        memory, tenant, query.instruction, reference=query.reference, k=ALL, pool=query.pool
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
