"""``AudioMemory``: the audio memory other assistants embed.

    from voxmem.memory import AudioMemory
    memory = AudioMemory.open("/tmp/mem")                 # real shipped models
    turns = memory.ingest("meeting.wav", tenant="acme", session="standup", role="user")
    hits = memory.search("acme", "text", memory.embed_query("the budget"), k=5)
    memory.forget("acme", session="standup")

This is the front: it checks what callers give, and composes the parts that do
the work, each behind a small interface:

- the catalog (``CatalogBackend``: SQLite, ``voxmem.memory.catalog``) is the source
  of truth for segments, vectors, speakers and forget jobs;
- the index (``IndexBackend``: Chroma, ``voxmem.memory.index``) holds copies of the
  vectors, as described by ``voxmem.memory.entries``;
- the audio files (``voxmem.memory.audio_files``), speakers
  (``voxmem.memory.speakers``), forgetting (``voxmem.memory.forget``) and
  maintenance (``voxmem.memory.maintenance``).

Writes go to the audio files, then the catalog (one transaction per call), then the
index. A crash between the last two leaves segments that ``verify`` puts back in the
index; an index failure there raises ``IndexPending`` (the turns are stored, and are
indexed when the memory is next opened); the index never holds what the catalog
lacks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voxmem.audio import Audio, AudioSource, load_audio
from voxmem.memory import speakers as speaker_ops
from voxmem.memory.audio_files import dir_size
from voxmem.memory.catalog import SUMMED_SPACES, open_audio, open_catalog
from voxmem.memory.encoders.base import l2_normalize
from voxmem.memory.entries import ITEM_SPACE, index_segments, update_segment_metadata
from voxmem.memory.forget import Forgetting, selector_key
from voxmem.memory.index import ChromaIndex
from voxmem.memory.maintenance import Maintenance, VerifyReport
from voxmem.memory.perception import PerceivedTurn, Perception
from voxmem.memory.protocols import CatalogBackend, IndexBackend, IndexHit, SegmentFilter
from voxmem.memory.records import (
    RAW_SPACES,
    ROLES,
    SPACES,
    IndexPending,
    IndexUnavailable,
    NewSegment,
    Recording,
    Segment,
    Speaker,
    StoreError,
    UnknownSegment,
    UnknownSession,
    UnknownSpeaker,
    UnknownTenant,
    Word,
    WrongDimension,
    check_role,
    check_tenant,
    words_within,
)
from voxmem.memory.speakers import SpeakerParams, space_sums
from voxmem.settings import Settings

log = logging.getLogger(__name__)
#: threads that search the spaces of one multi-space query side by side
_SEARCHES = ThreadPoolExecutor(max_workers=4, thread_name_prefix="voxmem-search")

#: what the methods return; a module-level name, as ``AudioMemory.list`` is a method
Segments = list[Segment]
#: a filtered search whose filter names a session or a speaker, and which that many
#: turns or fewer pass, scores those turns' stored vectors exactly instead of asking
#: the index: Chroma filters a collection's metadata before it searches, which grows
#: with the tenant (about 300 ms at 100k turns), while the catalog finds a session's
#: or a speaker's turns by an index
EXACT_MAX = 2000
#: metadata keys of the index that the catalog filters by, and its filter's field
_EXACT_KEYS = {"session": "session", "speaker": "speaker_id", "role": "role"}


def narrow_filter(where: Mapping[str, Any] | None) -> SegmentFilter | None:
    """``where`` (an index metadata filter) as a catalog filter, when it is only
    equalities on session, speaker and role and names a session or a speaker; else
    None (the index answers it)."""
    if not where:
        return None
    if set(where) == {"$and"}:
        clauses = where["$and"]
        # Chroma refuses an "$and" of fewer than two: so does this
        if not isinstance(clauses, list) or len(clauses) < 2:
            return None
    else:
        clauses = [where]
    fields: dict[str, str] = {}
    for clause in clauses:
        if not isinstance(clause, Mapping) or len(clause) != 1:
            return None
        ((key, value),) = clause.items()
        if isinstance(value, Mapping) and set(value) == {"$eq"}:
            value = value["$eq"]
        field = _EXACT_KEYS.get(key)
        # "" is the index's word for no speaker, which the catalog stores as NULL; a NUL
        # character is refused by PostgreSQL, not by SQLite: both left to the index
        if field is None or not isinstance(value, str) or not value or "\x00" in value:
            return None
        if field in fields:
            return None
        fields[field] = value
    if "session" not in fields and "speaker_id" not in fields:
        return None
    return SegmentFilter(**fields)


def exact_hits(
    segments: Sequence[Segment], vectors: Mapping[str, np.ndarray], k: int
) -> dict[str, list[Hit]]:
    """Each space's ``k`` nearest of ``segments`` by cosine similarity to its query
    vector (as the index scores them), best first; ties in stored order."""
    out: dict[str, list[Hit]] = {}
    for space, query in vectors.items():
        have = [s for s in segments if space in s.vectors]
        if not have:
            out[space] = []
            continue
        m = l2_normalize(np.stack([s.vectors[space] for s in have]))
        scores = m @ l2_normalize(query)
        best = np.argsort(-scores, kind="stable")[:k]
        out[space] = [Hit(have[i], float(scores[i])) for i in best]
    return out


@dataclass(frozen=True)
class Hit:
    """A search result of one space: the stored segment and its cosine similarity.

    The index answers ``IndexHit`` (an id and metadata, before the catalog is read);
    the retrievers fuse hits of several spaces into ``RetrievedTurn`` (with the
    evidence of each); the LangGraph adapter answers LangGraph's own ``SearchItem``."""

    segment: Segment
    score: float


@dataclass(frozen=True)
class SessionSummary:
    """One session of a tenant: when its first and last stored turns were written."""

    session: str
    first: float
    last: float
    turns: int


class AudioMemory:
    """Segments of audio with transcripts, speakers, style and environment, per tenant.

    Every method names a tenant. Reading a tenant with nothing stored raises
    :class:`UnknownTenant`; writing creates it.
    """

    def __init__(
        self,
        settings: Settings,
        perception: Perception | None = None,
        speaker_params: SpeakerParams | None = None,
        *,
        catalog: CatalogBackend | None = None,
        index: IndexBackend | None = None,
    ) -> None:
        self.settings = settings
        self.root = settings.data_dir
        if self.root.exists() and not self.root.is_dir():
            raise NotADirectoryError(
                f"the data folder {self.root} is a file; give a folder for the memory"
            )
        self.root.mkdir(parents=True, exist_ok=True)
        self.catalog: Any = catalog or open_catalog(settings, self.root)
        self.index: Any = index or ChromaIndex(settings.chroma, self.root / "chroma")
        self.files = open_audio(settings, self.catalog, self.root)
        self.maintenance = Maintenance(self.catalog, self.index, self.files, self.root)
        self.forgetting = Forgetting(
            self.catalog,
            self.index,
            self.files,
            self.maintenance.rebuild_clean,
            self.maintenance.erase_clean,
        )
        self._perception = perception
        self.speaker_params = speaker_params or SpeakerParams()
        self._means: dict[tuple[str, str, int], tuple[Any, dict[str, np.ndarray]]] = {}
        self._dims: dict[str, int] = {}
        self._finish_unfinished()

    def _finish_unfinished(self) -> None:
        """Finish what a crash or an outage left: forgets, and turns not yet indexed."""
        try:
            self.forgetting.resume()
            self.maintenance.index_unindexed()
        except StoreError as exc:
            # a forget that cannot finish now (the index away, a compact that fails) must
            # not keep the memory from opening: `voxmem rebuild` and `verify` need it open
            log.warning("left for later: %s", exc)

    @classmethod
    def open(
        cls,
        data_dir: str | os.PathLike[str] | None = None,
        *,
        settings: Settings | None = None,
        perception: Perception | None = None,
    ) -> AudioMemory:
        """Open (or create) a memory in ``data_dir`` (default: the settings' data dir)."""
        settings = settings or Settings()
        if data_dir is not None:
            settings = settings.model_copy(update={"data_dir": Path(data_dir)})
            if settings.chroma.url is None:
                settings.chroma = settings.chroma.model_copy(
                    update={"path": Path(data_dir) / "chroma"}
                )
        return cls(settings, perception)

    @property
    def perception(self) -> Perception:
        if self._perception is None:
            self._perception = Perception.from_settings(self.settings)
        return self._perception

    def close(self) -> None:
        """Close every catalog connection and let go of the index; later calls raise
        MemoryClosed."""
        self.catalog.close()
        self.index.close()

    def __enter__(self) -> AudioMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------

    def ingest(
        self,
        audio: AudioSource,
        *,
        tenant: str,
        session: str,
        role: str = "unknown",
        source: str | None = None,
        sample_rate: int | None = None,
    ) -> list[Segment]:
        """Diarize ``audio``, encode every turn, match speakers, and store it all.

        Returns the stored segments once they are durable in the catalog and the index.
        Bad audio raises before anything is written.
        """
        tenant = _checked(tenant, session, role)
        clip = load_audio(audio, sample_rate=sample_rate, require_speech=True)
        turns = self.perception.perceive(clip, require_speech=True)
        if source is None:
            source = str(audio) if isinstance(audio, str | os.PathLike) else "audio"
        return self._store(tenant, session, role, source, clip.duration, turns)

    def add_segment(
        self,
        audio: AudioSource,
        *,
        tenant: str,
        session: str,
        role: str = "unknown",
        transcript: str | None = None,
        vectors: Mapping[str, np.ndarray] | None = None,
        words: Sequence[Word] = (),
        speaker_id: str | None = None,
        style_labels: Mapping[str, float] | None = None,
        environment_labels: Mapping[str, float] | None = None,
        source: str = "segment",
        sample_rate: int | None = None,
    ) -> Segment:
        """Store one already-cut turn. Missing vectors (or transcript) are computed;
        given ones are checked against the space's dimension."""
        tenant = _checked(tenant, session, role)
        clip = load_audio(audio, sample_rate=sample_rate)
        given = dict(vectors or {})
        self._check_vectors(given)
        if set(given) >= set(SPACES) and transcript is not None:
            turn = PerceivedTurn(
                0.0,
                clip.duration,
                clip,
                transcript,
                list(words),
                None,
                {k: np.asarray(v, np.float32) for k, v in given.items()},
            )
        else:
            turn = self.perception.perceive_segment(clip, transcript)
            turn.vectors.update({k: np.asarray(v, np.float32) for k, v in given.items()})
            if words:
                turn.words = list(words)
        if style_labels is not None:
            turn.style_labels = dict(style_labels)
        if environment_labels is not None:
            turn.environment_labels = dict(environment_labels)
        return self._store(
            tenant, session, role, source, clip.duration, [turn], speaker_id=speaker_id
        )[0]

    def add_segments(
        self, items: Sequence[NewSegment], *, tenant: str, session: str, source: str = "segments"
    ) -> list[Segment]:
        """Store many already-encoded turns in one transaction (bulk loads, benchmarks).
        Every item must carry a transcript and a vector for every space."""
        tenant = _checked(tenant, session)
        turns = []
        for item in items:
            check_role(item.role)
            clip = load_audio(item.audio, sample_rate=item.sample_rate)
            if not set(SPACES) <= set(item.vectors):
                raise WrongDimension(
                    f"add_segments needs vectors for {', '.join(SPACES)}; "
                    "use add_segment to compute missing ones"
                )
            self._check_vectors(item.vectors)
            turns.append(
                PerceivedTurn(
                    0.0,
                    clip.duration,
                    clip,
                    item.transcript,
                    [],
                    None,
                    {k: np.asarray(v, np.float32) for k, v in item.vectors.items()},
                    dict(item.style_labels),
                    dict(item.environment_labels),
                )
            )
        roles = [item.role for item in items]
        return self._store(
            tenant, session, roles, source, sum(t.end - t.start for t in turns), turns
        )

    def add_perceived(
        self,
        turns: Sequence[PerceivedTurn],
        *,
        tenant: str,
        session: str,
        role: str = "unknown",
        source: str = "perceived",
        duration: float | None = None,
        speaker_id: str | None = None,
    ) -> list[Segment]:
        """Store turns that :meth:`Perception.perceive` (or ``perceive_segment``) already
        computed, without running any model again: what a live agent heard is stored
        exactly as it was understood. ``speaker_id`` pins every turn to a known speaker
        (by id or name) instead of matching voiceprints."""
        tenant = _checked(tenant, session, role)
        if not turns:
            return []
        for turn in turns:
            if not set(SPACES) <= set(turn.vectors):
                raise WrongDimension(
                    f"add_perceived needs vectors for {', '.join(SPACES)}; "
                    "perceive the turn with the memory's own perception first"
                )
        if duration is None:
            duration = max(t.end for t in turns)
        return self._store(tenant, session, role, source, duration, turns, speaker_id=speaker_id)

    def _check_vectors(
        self, vectors: Mapping[str, np.ndarray], batch: dict[str, int] | None = None
    ) -> None:
        """Each vector of a known space, finite, of the size this memory stores for its
        space; ``batch``: the sizes of spaces not stored yet, as the batch's first vector
        of each gave them (every later one must match)."""
        dims = self._space_dims(vectors)
        for space, v in vectors.items():
            if space not in SPACES and space not in RAW_SPACES:
                raise WrongDimension(f"unknown space {space!r}; spaces are {', '.join(SPACES)}")
            arr = np.asarray(v)
            want = (
                dims.get(space)
                or (self._perception.dims.get(space) if self._perception else None)
                or (batch or {}).get(space)
            )
            if batch is not None and want is None and arr.ndim == 1:
                batch[space] = arr.shape[0]
            if arr.ndim != 1 or (want is not None and arr.shape[0] != want):
                raise WrongDimension(
                    f"{space} vectors here have {want} dimensions, got shape "
                    f"{arr.shape}; encode with the memory's own encoders"
                )
            if not np.all(np.isfinite(arr)):
                raise WrongDimension(f"the {space} vector has NaN or infinite values")

    def _store(
        self,
        tenant: str,
        session: str,
        role: str | Sequence[str],
        source: str,
        duration: float,
        turns: Sequence[PerceivedTurn],
        speaker_id: str | None = None,
    ) -> Segments:
        now = time.time()
        roles = [role] * len(turns) if isinstance(role, str) else list(role)
        recording = Recording(
            f"rec_{uuid.uuid4().hex[:16]}", tenant, session, source, duration, now
        )
        segments: Segments = []
        # every turn checked before any audio is written: a refused batch leaves nothing
        batch: dict[str, int] = {}
        for turn in turns:
            self._check_vectors(turn.vectors, batch)
        for turn, turn_role in zip(turns, roles, strict=True):
            seg = Segment(
                f"seg_{uuid.uuid4().hex}",
                tenant,
                session,
                recording.id,
                round(float(turn.start), 3),
                round(float(turn.end), 3),
                turn_role,
                None,
                turn.transcript,
                # times within the turn whichever path cut it (diarized, one clip, live)
                words_within(turn.words, round(float(turn.start), 3), round(float(turn.end), 3)),
                turn.language,
                dict(turn.style_labels),
                dict(turn.environment_labels),
                dict(turn.vectors),
                now,
            )
            # audio first: a crash before the catalog commit leaves only an orphan file
            self.files.write(turn.audio, tenant, seg.id)
            segments.append(seg)
        names = self._perception.encoder_names if self._perception else {}
        try:
            self._commit(tenant, recording, segments, turns, names, now, speaker_id)
        except (WrongDimension, UnknownSpeaker):
            # refused inside the transaction (a size another process stored meanwhile, an
            # unknown speaker): nothing was stored, so neither is the audio
            for seg in segments:
                with contextlib.suppress(Exception):
                    self.files.erase(tenant, seg.id)
            raise
        try:
            index_segments(self.index, tenant, segments)
        except IndexUnavailable as exc:
            with self.catalog.write() as tx:
                tx.mark_unindexed(tenant, [s.id for s in segments])
            raise IndexPending(
                f"{len(segments)} turn(s) were stored (ids {', '.join(s.id for s in segments)}) "
                f"but the index failed ({exc}); do not store them again: they are indexed "
                "when the memory is next opened, or with `voxmem verify`",
                segments,
            ) from exc
        # a forget that ran between the commit and the index writes must not find its
        # turns indexed again after it: the catalog decides
        ids = [s.id for s in segments]
        gone = set(ids) - set(self._segments_of(tenant, ids))
        if gone:
            for space in SPACES:
                self.index.delete(tenant, space, sorted(gone))
        return segments

    def _commit(
        self,
        tenant: str,
        recording: Recording,
        segments: Segments,
        turns: Sequence[PerceivedTurn],
        names: Mapping[str, str],
        now: float,
        speaker_id: str | None,
    ) -> None:
        """The store's one catalog transaction: spaces, tenant, recording, and each
        turn's speaker (matched, or ``speaker_id``) and row."""
        with self.catalog.write() as tx:
            sizes: dict[str, int] = {}
            for turn in turns:
                for space, v in turn.vectors.items():
                    sizes.setdefault(space, len(v))
            if sizes:
                tx.register_spaces(sizes, names)
            tx.ensure_tenant(tenant, now)
            tx.add_recording(recording)
            known: list[Speaker] | None = None  # read once, on the first turn to match
            for seg, turn in zip(segments, turns, strict=True):
                if speaker_id is not None:
                    seg.speaker_id = tx.speaker(tenant, speaker_id).id
                else:
                    if known is None:
                        known = tx.speakers(tenant)
                    seg.speaker_id = speaker_ops.match_or_create(
                        tx,
                        tenant,
                        seg.vectors["speaker"],
                        turn.end - turn.start,
                        self.speaker_params,
                        known,
                    )
                tx.add_segment(seg, self.files.relative(tenant, seg.id))

    def _space_dims(self, asked: Iterable[str] = SPACES) -> dict[str, int]:
        # a space's dimension never changes once stored (register_spaces refuses that),
        # so the catalog is read again only when an asked space is missing from what was
        # read (another process may have stored it since)
        if not set(asked) <= set(self._dims):
            self._dims = self.catalog.space_dims()
        return self._dims

    # -- reading -------------------------------------------------------------------

    def tenants(self) -> list[str]:
        return self.catalog.tenants()

    def _require_tenant(self, tenant: str) -> str:
        tenant = check_tenant(tenant)
        if not self.catalog.has_tenant(tenant):
            raise UnknownTenant(
                f"tenant {tenant!r} has nothing stored here; check the id, "
                "or ingest something for it first"
            )
        return tenant

    def get(self, tenant: str, segment_id: str, vectors: bool = True) -> Segment:
        tenant = self._require_tenant(tenant)
        rows = self.catalog.segments(tenant, SegmentFilter(ids=[segment_id]), vectors=vectors)
        if not rows:
            raise UnknownSegment(f"tenant {tenant!r} has no segment {segment_id!r}")
        return rows[0]

    def get_many(self, tenant: str, segment_ids: Sequence[str], vectors: bool = True) -> Segments:
        """The live segments among ``segment_ids`` (unknown ids are skipped)."""
        tenant = self._require_tenant(tenant)
        return self.catalog.segments(tenant, SegmentFilter(ids=list(segment_ids)), vectors=vectors)

    def with_labels(
        self,
        tenant: str,
        kind: str,
        labels: Sequence[str],
        limit: int = 100,
        vectors: bool = False,
    ) -> Segments:
        """The ``limit`` segments scoring highest on any of ``labels`` of ``kind``
        ("style" or "environment"), best first."""
        tenant = self._require_tenant(tenant)
        out = self.catalog.with_labels(tenant, kind, labels, limit)
        if vectors and out:
            full = {s.id: s for s in self.get_many(tenant, [s.id for s in out])}
            out = [full[s.id] for s in out if s.id in full]
        return out

    def audio(self, tenant: str, segment_id: str) -> Audio:
        seg = self.get(tenant, segment_id, vectors=False)
        return self.files.read(seg.tenant, seg.id)

    def segments(
        self,
        tenant: str,
        *,
        session: str | None = None,
        speaker: str | None = None,
        role: str | None = None,
        limit: int = 100,
        offset: int = 0,
        vectors: bool = False,
        newest_first: bool = False,
    ) -> Segments:
        """Segments in the order they were stored (then by start time); ``newest_first``
        reverses it. (``list`` is the same method.)"""
        tenant = self._require_tenant(tenant)
        if limit < 0 or offset < 0:
            raise ValueError("limit and offset must not be negative")
        where = SegmentFilter(
            session=session,
            speaker_id=None if speaker is None else self.catalog.speaker(tenant, speaker).id,
            role=None if role is None else check_role(role),
        )
        return self.catalog.segments(
            tenant,
            where,
            limit=limit,
            offset=offset,
            vectors=vectors,
            newest_first=newest_first,
        )

    def search(
        self,
        tenant: str,
        space: str,
        vector: np.ndarray,
        k: int = 10,
        where: Mapping[str, Any] | None = None,
    ) -> list[Hit]:
        """Nearest segments in one space. ``where`` is a Chroma metadata filter over
        ``session``, ``speaker``, ``role``, ``recording``, ``start``, ``end``,
        ``created_at``, ``style`` and ``environment`` (top labels). Raises
        IndexUnavailable when the index cannot answer (never an empty list for it).

        A filter of equalities on ``session``, ``speaker`` and ``role`` that names a
        session or a speaker, and which ``EXACT_MAX`` turns or fewer pass, is answered
        from the catalog's own vectors, scored exactly: such a search answers while the
        index is down, and finds turns stored while it was (not yet indexed)."""
        tenant = self._require_tenant(tenant)
        if space not in SPACES:
            raise WrongDimension(f"unknown space {space!r}; spaces are {', '.join(SPACES)}")
        if not isinstance(k, int) or k < 0:
            raise ValueError(f"k must be a whole number of hits, 0 or more, got {k!r}")
        self._check_vectors({space: vector})
        exact = self._exact(tenant, {space: vector}, k, where)
        if exact is not None:
            return exact[space]
        return self._hydrate(tenant, self.index.query(tenant, space, vector, k, where))

    def search_spaces(
        self,
        tenant: str,
        vectors: Mapping[str, np.ndarray],
        k: int = 10,
        where: Mapping[str, Any] | None = None,
    ) -> dict[str, list[Hit]]:
        """:meth:`search` in several spaces at once (``vectors``: space -> query vector):
        the spaces are searched concurrently and their hits read from the catalog in one
        go. Each space's hits, best first."""
        tenant = self._require_tenant(tenant)
        for space in vectors:
            if space not in SPACES:
                raise WrongDimension(f"unknown space {space!r}; spaces are {', '.join(SPACES)}")
        if not isinstance(k, int) or k < 0:
            raise ValueError(f"k must be a whole number of hits, 0 or more, got {k!r}")
        self._check_vectors(vectors)
        exact = self._exact(tenant, vectors, k, where)
        if exact is not None:
            return exact
        spaces = list(vectors)
        found = list(
            _SEARCHES.map(
                lambda space: self.index.query(tenant, space, vectors[space], k, where), spaces
            )
        )
        segs = self._segments_of(tenant, [h.id for hits in found for h in hits])
        return {
            space: [Hit(segs[h.id], h.score) for h in hits if h.id in segs]
            for space, hits in zip(spaces, found, strict=True)
        }

    def _exact(
        self,
        tenant: str,
        vectors: Mapping[str, np.ndarray],
        k: int,
        where: Mapping[str, Any] | None,
    ) -> dict[str, list[Hit]] | None:
        """Hits scored on the catalog's own vectors, for a filter that names a session
        or a speaker which ``EXACT_MAX`` turns or fewer pass; None otherwise."""
        narrow = narrow_filter(where)
        if narrow is None or k <= 0 or not vectors:
            return None
        # counted first: a bigger session or speaker is not read at all
        if self.catalog.count_segments(tenant, narrow, EXACT_MAX + 1) > EXACT_MAX:
            return None
        turns = self.catalog.segments(tenant, narrow, limit=EXACT_MAX + 1, vectors=True)
        if len(turns) > EXACT_MAX:  # turns stored since the count
            return None
        hits = exact_hits(turns, vectors, k)
        for seg in turns:  # hits carry no vectors, as the index's hits do
            seg.vectors.clear()
        return hits

    def _hydrate(self, tenant: str, hits: Sequence[IndexHit]) -> list[Hit]:
        segs = self._segments_of(tenant, [h.id for h in hits])
        # the index may briefly hold what a forget has hidden: the catalog decides
        return [Hit(segs[h.id], h.score) for h in hits if h.id in segs]

    def _segments_of(self, tenant: str, ids: Sequence[str]) -> dict[str, Segment]:
        if not ids:
            return {}
        rows = self.catalog.segments(tenant, SegmentFilter(ids=sorted(set(ids))), vectors=False)
        return {s.id: s for s in rows}

    def embed_query(self, text: str) -> np.ndarray:
        """A text-space query vector for ``text``."""
        return self.perception.text.queries([text])[0]

    def sessions(self, tenant: str) -> list[SessionSummary]:
        """The tenant's sessions, oldest first, with when their turns were stored."""
        tenant = self._require_tenant(tenant)
        return [SessionSummary(*row) for row in self.catalog.sessions(tenant)]

    # -- speakers --------------------------------------------------------------------

    def speakers(self, tenant: str) -> list[Speaker]:
        tenant = self._require_tenant(tenant)
        return self.catalog.speakers(tenant)

    def speaker_names(self, tenant: str) -> list[str]:
        """Names given to the tenant's speakers (cheap: no voiceprints are read)."""
        tenant = self._require_tenant(tenant)
        return self.catalog.speaker_names(tenant)

    def raw_vectors(
        self, tenant: str, space: str, limit: int = 20_000
    ) -> tuple[list[str], list[str | None], np.ndarray]:
        """Segment ids, their speaker ids and their ``space`` vectors (catalog only)."""
        tenant = self._require_tenant(tenant)
        ids, speakers, blobs = self.catalog.vectors(tenant, space, limit)
        if not ids:
            return [], [], np.zeros((0, 0), np.float32)
        return ids, speakers, np.stack([np.frombuffer(b, np.float32) for b in blobs])

    def speaker_means(self, tenant: str, space: str, min_turns: int = 1) -> dict[str, np.ndarray]:
        """Each speaker's mean ``space`` vector over their stored turns, for speakers with
        at least ``min_turns`` of them (a per-speaker aggregate: the retrievers ask for
        ``style_raw`` to know how a person usually talks), over all of the tenant's turns.
        Cached until the catalog changes. For a space the catalog keeps running sums of
        (``SUMMED_SPACES``: the voiceprints, ``style_raw``), a read of one row per
        speaker, however many turns the tenant has."""
        tenant = self._require_tenant(tenant)
        key, version = (tenant, space, min_turns), self.catalog.version()
        cached = self._means.get(key)
        if cached is not None and cached[0] == version:
            return cached[1]
        if space in SUMMED_SPACES:
            sums = self.catalog.speaker_sums(tenant, space)
            unknown = sorted(i for i, (total, _) in sums.items() if total is None)
            if unknown:  # speakers from a catalog older than the sums: summed once
                with self.catalog.write() as tx:
                    alive = {s.id for s in tx.speakers(tenant)}  # none forgotten since
                    sums.update(space_sums(tx, space, [i for i in unknown if i in alive]))
            summed = {
                s: (total / n).astype(np.float32)
                for s, (total, n) in sums.items()
                if total is not None and n >= max(1, min_turns)
            }
            self._means[key] = (version, summed)
            return summed
        # every live turn: a read that fills its limit may have left some out (turns
        # stored since the count), so it is read again with a larger one
        limit = int(self.catalog.counts(tenant)["segments"]) + 1
        while True:
            ids, speakers, matrix = self.raw_vectors(tenant, space, limit)
            if len(ids) < limit:
                break
            limit *= 2
        rows: dict[str, list[np.ndarray]] = {}
        for speaker, row in zip(speakers, matrix, strict=True):
            if speaker is not None:
                rows.setdefault(speaker, []).append(row)
        means = {s: np.mean(np.stack(r), axis=0) for s, r in rows.items() if len(r) >= min_turns}
        self._means[key] = (version, means)
        return means

    def style_baselines(self, tenant: str, min_turns: int = 3) -> dict[str, np.ndarray]:
        """Each speaker's mean raw style functionals (``style_raw``): how this person
        usually talks, to judge a turn's style against."""
        return self.speaker_means(tenant, "style_raw", min_turns)

    def identify_speaker(self, tenant: str, voiceprint: np.ndarray) -> Speaker | None:
        """The known speaker whose voice this is (by the same rule ingest matches with),
        or None; reads only, so an unknown voice creates nothing. A tenant with nothing
        stored knows no one."""
        tenant = check_tenant(tenant)
        if not self.catalog.has_tenant(tenant):
            return None
        return speaker_ops.best_match(
            self.catalog.speakers(tenant), voiceprint, self.speaker_params
        )

    def name_speaker(self, tenant: str, speaker: str, name: str) -> Speaker:
        tenant = self._require_tenant(tenant)
        with self.catalog.write() as tx:
            return speaker_ops.name(tx, tenant, speaker, name)

    def enroll_speaker(
        self, tenant: str, name: str, audio: AudioSource, sample_rate: int | None = None
    ) -> Speaker:
        """Create (or refine) the speaker called ``name`` from a clip of their voice."""
        tenant = check_tenant(tenant)
        clip = load_audio(audio, sample_rate=sample_rate, require_speech=True, min_duration=0.5)
        voice = self.perception.speaker.embed([clip])[0]
        with self.catalog.write() as tx:
            tx.ensure_tenant(tenant, time.time())
            return speaker_ops.enroll(tx, tenant, name, voice)

    def merge_speakers(self, tenant: str, keep: str, other: str) -> Speaker:
        """Fold ``other`` into ``keep``: its segments move, its centroid is recomputed."""
        tenant = self._require_tenant(tenant)
        with self.catalog.write() as tx:
            merged, moved = speaker_ops.merge(tx, tenant, keep, other)
        self._reindex_metadata(tenant, moved)
        return merged

    def split_speaker(
        self, tenant: str, speaker: str, segment_ids: Sequence[str], name: str | None = None
    ) -> Speaker:
        """Move ``segment_ids`` of ``speaker`` to a new speaker; both centroids recomputed."""
        tenant = self._require_tenant(tenant)
        with self.catalog.write() as tx:
            new = speaker_ops.split(tx, tenant, speaker, segment_ids, name)
        self._reindex_metadata(tenant, list(segment_ids))
        return new

    def _reindex_metadata(self, tenant: str, ids: Sequence[str]) -> None:
        if ids:
            segs = self.catalog.segments(tenant, SegmentFilter(ids=list(ids)), vectors=False)
            update_segment_metadata(self.index, tenant, segs)

    # -- forgetting --------------------------------------------------------------------

    def forget(
        self,
        tenant: str,
        *,
        speaker: str | None = None,
        session: str | None = None,
        segment: str | None = None,
        segments: Sequence[str] | None = None,
        everything: bool = False,
    ) -> int:
        """Erase segments: audio files, catalog rows, vectors in every collection, and the
        bytes they left in the index and catalog files. Exactly one selector
        (``segments``: several ids in one erasure; unknown ones are skipped). Returns how
        many segments were erased, counting those of an earlier identical forget that
        this call finished. Raises ForgetPending when the erasure is recorded but could
        not finish (it finishes later; see ``voxmem.memory.forget``)."""
        tenant = check_tenant(tenant)
        given = {"speaker": speaker, "session": session, "segment": segment, "segments": segments}
        chosen = {k: v for k, v in given.items() if v is not None}
        if everything:
            chosen["everything"] = True
        if len(chosen) != 1:
            raise ValueError(
                "forget needs exactly one of speaker=, session=, segment=, segments= or "
                "everything=True"
            )
        if segments is not None:
            chosen = {"segments": sorted(set(segments))}
        # the job is keyed by what was asked, so that asking again finishes it even when
        # its first step already erased what the selector names (the segment, the speaker,
        # the tenant row)
        asked = selector_key(chosen)
        retried, resumed = False, 0
        if any(j.tenant == tenant and j.selector == asked for j in self.catalog.forget_jobs()):
            # asked again: finish the earlier forget, then forget what the selector names
            # now too (a turn stored meanwhile in the session, say)
            retried = True
            earlier = self.forgetting.resume(tenant)
            resumed = sum(len(j.segments) for j in earlier if j.selector == asked)
            if not self.catalog.has_tenant(tenant):
                return resumed
        tenant = self._require_tenant(tenant)
        spk_id = None
        with self.catalog.write() as tx:
            if everything:
                where = SegmentFilter()
            elif speaker is not None:
                try:
                    spk_id = tx.speaker(tenant, speaker).id
                except UnknownSpeaker:
                    if retried:
                        return resumed  # the earlier forget erased the speaker itself
                    raise
                where = SegmentFilter(speaker_id=spk_id)
            elif session is not None:
                where = SegmentFilter(session=session)
            elif segments is not None:
                where = SegmentFilter(ids=chosen["segments"])
            else:
                where = SegmentFilter(ids=[segment or ""])
            ids = tx.segment_ids(tenant, where) if where.ids != [] else []
            if segment is not None and not ids and not retried:
                raise UnknownSegment(f"tenant {tenant!r} has no segment {segment!r}")
            if session is not None and not ids and not retried:
                raise UnknownSession(
                    f"tenant {tenant!r} has no session {session!r}; list them with "
                    "`voxmem sessions --tenant ...` (AudioMemory.sessions)"
                )
            job = self.forgetting.start(tx, tenant, chosen, ids, spk_id, everything)
        if job is not None:
            self.forgetting.run(job, claimed=True)
        earlier = self.forgetting.resume(tenant)
        return resumed + len(ids) + sum(len(j.segments) for j in earlier if j.selector == asked)

    # -- maintenance -------------------------------------------------------------------

    def rebuild(self, tenant: str | None = None) -> int:
        """Recreate the index collections from the catalog (all tenants by default).
        Returns how many segments were indexed."""
        return self.maintenance.rebuild([check_tenant(tenant)] if tenant else None)

    def verify(self, repair: bool = True) -> VerifyReport:
        """Compare catalog, audio files and index; with ``repair``, finish unfinished
        forgets first and fix what differs."""
        if repair:
            self.forgetting.resume()
        return self.maintenance.verify(repair)

    def stats(self, tenant: str | None = None) -> dict[str, Any]:
        """Counts and sizes, for one tenant or the whole memory."""
        if tenant is not None:
            tenant = self._require_tenant(tenant)
        counts = self.catalog.counts(tenant)
        out: dict[str, Any] = {
            "tenants": 1 if tenant else len(self.tenants()),
            "segments": counts["segments"],
            "seconds": round(float(counts["seconds"]), 3),
            "sessions": counts["sessions"],
            "recordings": counts["recordings"],
            "speakers": counts["speakers"],
            "audio_bytes": self.files.size(tenant),
            "catalog_bytes": self.catalog.size(),
            "index_mode": self.index.mode,
        }
        if self.index.mode == "embedded":
            out["index_bytes"] = dir_size(self.index.path)
        return out

    # -- async twins (for servers) -------------------------------------------------------

    async def aingest(self, audio: AudioSource, **kw: Any) -> Segments:
        return await asyncio.to_thread(self.ingest, audio, **kw)

    async def aadd_segment(self, audio: AudioSource, **kw: Any) -> Segment:
        return await asyncio.to_thread(self.add_segment, audio, **kw)

    async def aget(self, tenant: str, segment_id: str) -> Segment:
        return await asyncio.to_thread(self.get, tenant, segment_id)

    async def alist(self, tenant: str, **kw: Any) -> Segments:
        return await asyncio.to_thread(self.segments, tenant, **kw)

    async def asearch(
        self,
        tenant: str,
        space: str,
        vector: np.ndarray,
        k: int = 10,
        where: Mapping[str, Any] | None = None,
    ) -> list[Hit]:
        return await asyncio.to_thread(self.search, tenant, space, vector, k, where)

    async def aforget(self, tenant: str, **kw: Any) -> int:
        return await asyncio.to_thread(self.forget, tenant, **kw)

    #: the segments of a tenant (the same as ``segments``); defined last, so that within
    #: the class ``list`` is the builtin everywhere else
    list = segments


def _checked(tenant: object, session: object, role: str = "unknown") -> str:
    """The tenant id once the tenant, session and role of a write are valid."""
    tenant = check_tenant(tenant)
    check_role(role)
    _check_session(session)
    return tenant


def _check_session(session: object) -> None:
    if not isinstance(session, str) or not session.strip():
        raise ValueError("every write names a session (a conversation id): pass session='...'")
    if "\x00" in session:
        # PostgreSQL cannot store it, and no catalog should differ on what it accepts
        raise ValueError("a session id must not contain NUL characters")


__all__ = [
    "ITEM_SPACE",
    "ROLES",
    "SPACES",
    "AudioMemory",
    "Hit",
    "NewSegment",
    "Recording",
    "Segment",
    "SessionSummary",
    "Speaker",
    "VerifyReport",
    "Word",
]
