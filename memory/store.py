"""``AudioMemory``: the audio memory other assistants embed.

    from voxmem.memory import AudioMemory
    memory = AudioMemory.open("/tmp/mem")                 # real shipped models
    turns = memory.ingest("meeting.wav", tenant="acme", session="standup", role="user")
    hits = memory.search("acme", "text", memory.embed_query("the budget"), k=5)
    memory.forget("acme", session="standup")

Writes go to the catalog first (one transaction per call), then to the index.
A crash between the two leaves segments that only ``verify`` needs to put back
in the index; the index never holds what the catalog lacks.
"""

from __future__ import annotations

import asyncio
import builtins
import json
import os
import shutil
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from voxmem.audio import Audio, AudioSource, load_audio, write_flac
from voxmem.memory.catalog import Catalog
from voxmem.memory.index import IndexHit, VectorIndex
from voxmem.memory.perception import PerceivedTurn, Perception
from voxmem.memory.records import (
    RAW_SPACES,
    ROLES,
    SPACES,
    NewSegment,
    Recording,
    Segment,
    Speaker,
    StoreError,
    UnknownSegment,
    UnknownTenant,
    Word,
    WrongDimension,
    check_role,
    check_tenant,
)
from voxmem.memory.speakers import (
    SpeakerParams,
    all_speakers,
    get_speaker,
    match_or_create,
    recompute_centroid,
)
from voxmem.settings import Settings

BATCH = 2000
#: after a forget, the index files are checked for the vectors of up to this many of
#: the forgotten segments
FORGET_CHECK_SEGMENTS = 200
#: seconds to let the index's background writes land before checking its files
INDEX_SETTLE_S = 0.3
#: the index space of the LangGraph store adapter's items
ITEM_SPACE = "items"


@dataclass(frozen=True)
class Hit:
    """A search result: the segment and its cosine similarity in the searched space."""

    segment: Segment
    score: float


@dataclass(frozen=True)
class SessionSummary:
    """One session of a tenant: when its first and last stored turns were written."""

    session: str
    first: float
    last: float
    turns: int


@dataclass
class VerifyReport:
    """Differences between the catalog, the audio files and the index."""

    missing_in_index: dict[str, int] = field(default_factory=dict)
    extra_in_index: dict[str, int] = field(default_factory=dict)
    missing_audio: list[str] = field(default_factory=list)
    orphan_audio: int = 0
    unfinished_forgets: int = 0
    repaired: bool = False

    @property
    def ok(self) -> bool:
        return not (
            any(self.missing_in_index.values())
            or any(self.extra_in_index.values())
            or self.missing_audio
            or self.orphan_audio
            or self.unfinished_forgets
        )


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
    ) -> None:
        self.settings = settings
        self.root = settings.data_dir
        self.root.mkdir(parents=True, exist_ok=True)
        self.catalog = Catalog(self.root / "catalog.sqlite3")
        self.index = VectorIndex(settings.chroma, self.root / "chroma")
        self._perception = perception
        self.speaker_params = speaker_params or SpeakerParams()
        self._baselines: dict[str, tuple[tuple[int, int], dict[str, np.ndarray]]] = {}
        self._finish_forgets()

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
        self.catalog.close()

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
    ) -> builtins.list[Segment]:
        """Diarize ``audio``, encode every turn, match speakers, and store it all.

        Returns the stored segments once they are durable in the catalog and the index.
        Bad audio raises before anything is written.
        """
        tenant = _checked(tenant, session, role)
        clip = load_audio(audio, sample_rate=sample_rate, require_speech=True)
        turns = self.perception.perceive(clip)
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
    ) -> builtins.list[Segment]:
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
    ) -> builtins.list[Segment]:
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

    def _check_vectors(self, vectors: Mapping[str, np.ndarray]) -> None:
        dims = self._space_dims()
        for space, v in vectors.items():
            if space not in SPACES and space not in RAW_SPACES:
                raise WrongDimension(f"unknown space {space!r}; spaces are {', '.join(SPACES)}")
            arr = np.asarray(v)
            want = dims.get(space) or (
                self._perception.dims.get(space) if self._perception else None
            )
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
    ) -> builtins.list[Segment]:
        now = time.time()
        roles = [role] * len(turns) if isinstance(role, str) else list(role)
        recording_id = f"rec_{uuid.uuid4().hex[:16]}"
        segments: builtins.list[Segment] = []
        for turn, turn_role in zip(turns, roles, strict=True):
            self._check_vectors(turn.vectors)
            seg = Segment(
                f"seg_{uuid.uuid4().hex}",
                tenant,
                session,
                recording_id,
                round(float(turn.start), 3),
                round(float(turn.end), 3),
                turn_role,
                None,
                turn.transcript,
                list(turn.words),
                turn.language,
                dict(turn.style_labels),
                dict(turn.environment_labels),
                dict(turn.vectors),
                now,
            )
            # audio first: a crash before the catalog commit leaves only an orphan file
            write_flac(turn.audio, self._audio_path(tenant, seg.id))
            segments.append(seg)
        with self.catalog.write() as tx:
            self._register_spaces(
                tx, {s: len(v) for s, v in turns[0].vectors.items()} if turns else {}
            )
            tx.execute(
                "INSERT OR IGNORE INTO tenants (id, created_at) VALUES (?, ?)", (tenant, now)
            )
            tx.execute(
                "INSERT INTO recordings (id, tenant, session, source, duration, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (recording_id, tenant, session, source, duration, now),
            )
            for seg, turn in zip(segments, turns, strict=True):
                if speaker_id is not None:
                    seg.speaker_id = get_speaker(tx, tenant, speaker_id).id
                else:
                    seg.speaker_id = match_or_create(
                        tx,
                        tenant,
                        seg.vectors["speaker"],
                        turn.end - turn.start,
                        self.speaker_params,
                    )
                tx.execute(
                    "INSERT INTO segments (id, tenant, session, recording_id, start_s, end_s, "
                    "role, speaker_id, transcript, words, language, style_labels, "
                    "environment_labels, audio_path, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        seg.id,
                        tenant,
                        session,
                        recording_id,
                        seg.start,
                        seg.end,
                        seg.role,
                        seg.speaker_id,
                        seg.transcript,
                        json.dumps([[w.text, w.start, w.end, w.probability] for w in seg.words]),
                        seg.language,
                        json.dumps(seg.style_labels),
                        json.dumps(seg.environment_labels),
                        str(self._audio_path(tenant, seg.id).relative_to(self.root)),
                        now,
                    ),
                )
                tx.executemany(
                    "INSERT INTO vectors (segment_id, space, data) VALUES (?, ?, ?)",
                    [
                        (seg.id, space, np.asarray(v, np.float32).tobytes())
                        for space, v in seg.vectors.items()
                    ],
                )
        self._index_segments(tenant, segments)
        return segments

    def _register_spaces(self, tx: Any, dims: Mapping[str, int]) -> None:
        names = self._perception.encoder_names if self._perception else {}
        known = {r["space"]: r["dim"] for r in tx.execute("SELECT space, dim FROM spaces")}
        for space, dim in dims.items():
            if space in known and known[space] != dim:
                raise WrongDimension(
                    f"this memory stores {known[space]}-d {space} vectors, "
                    f"got {dim}; open it with the encoders it was built with"
                )
            if space not in known:
                tx.execute(
                    "INSERT INTO spaces (space, dim, encoder) VALUES (?, ?, ?)",
                    (space, dim, names.get(space, "given")),
                )

    def _space_dims(self) -> dict[str, int]:
        rows = self.catalog.read().execute("SELECT space, dim FROM spaces").fetchall()
        return {r["space"]: int(r["dim"]) for r in rows}

    def _index_segments(self, tenant: str, segments: Sequence[Segment]) -> None:
        metas = [_metadata(s) for s in segments]
        ids = [s.id for s in segments]
        for space in SPACES:
            have = [i for i, s in enumerate(segments) if space in s.vectors]
            self.index.upsert(
                tenant,
                space,
                [ids[i] for i in have],
                [segments[i].vectors[space] for i in have],
                [metas[i] for i in have],
            )

    def _audio_path(self, tenant: str, segment_id: str) -> Path:
        return self.root / "audio" / tenant / f"{segment_id}.flac"

    # -- reading -------------------------------------------------------------------

    def tenants(self) -> builtins.list[str]:
        return [
            r["id"]
            for r in self.catalog.read().execute("SELECT id FROM tenants ORDER BY id").fetchall()
        ]

    def _require_tenant(self, tenant: str) -> str:
        tenant = check_tenant(tenant)
        row = (
            self.catalog.read().execute("SELECT 1 FROM tenants WHERE id = ?", (tenant,)).fetchone()
        )
        if row is None:
            raise UnknownTenant(
                f"tenant {tenant!r} has nothing stored here; check the id, "
                "or ingest something for it first"
            )
        return tenant

    def get(self, tenant: str, segment_id: str, vectors: bool = True) -> Segment:
        tenant = self._require_tenant(tenant)
        rows = self._segments(tenant, "id = ?", (segment_id,), vectors=vectors)
        if not rows:
            raise UnknownSegment(f"tenant {tenant!r} has no segment {segment_id!r}")
        return rows[0]

    def get_many(
        self, tenant: str, segment_ids: Sequence[str], vectors: bool = True
    ) -> builtins.list[Segment]:
        """The live segments among ``segment_ids`` (unknown ids are skipped)."""
        tenant = self._require_tenant(tenant)
        out: builtins.list[Segment] = []
        for i in range(0, len(segment_ids), 500):
            chunk = tuple(segment_ids[i : i + 500])
            marks = ",".join("?" * len(chunk))
            out += self._segments(tenant, f"id IN ({marks})", chunk, vectors=vectors)
        return out

    def with_labels(
        self,
        tenant: str,
        kind: str,
        labels: Sequence[str],
        limit: int = 100,
        vectors: bool = False,
    ) -> builtins.list[Segment]:
        """The ``limit`` segments scoring highest on any of ``labels`` of ``kind``
        ("style" or "environment"), best first."""
        tenant = self._require_tenant(tenant)
        column = {"style": "style_labels", "environment": "environment_labels"}[kind]
        if not labels:
            return []
        parts = [f"COALESCE(json_extract({column}, ?), 0)" for _ in labels]
        score = parts[0] if len(parts) == 1 else f"max({', '.join(parts)})"
        paths = tuple("$." + json.dumps(label) for label in labels)
        rows = (
            self.catalog.read()
            .execute(
                f"SELECT * FROM segments WHERE tenant = ? AND state = 'live' AND {score} > 0 "
                f"ORDER BY {score} DESC LIMIT ?",
                (tenant, *paths, *paths, limit),
            )
            .fetchall()
        )
        out = [_row_to_segment(r) for r in rows]
        if vectors and out:
            full = {s.id: s for s in self.get_many(tenant, [s.id for s in out])}
            out = [full[s.id] for s in out if s.id in full]
        return out

    def audio(self, tenant: str, segment_id: str) -> Audio:
        seg = self.get(tenant, segment_id, vectors=False)
        return load_audio(self._audio_path(seg.tenant, seg.id))

    def list(
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
    ) -> builtins.list[Segment]:
        """Segments in the order they were stored (then by start time); ``newest_first``
        reverses it."""
        tenant = self._require_tenant(tenant)
        clauses, args = ["1 = 1"], []
        if session is not None:
            clauses.append("session = ?")
            args.append(session)
        if speaker is not None:
            spk = get_speaker(self.catalog.read(), tenant, speaker)
            clauses.append("speaker_id = ?")
            args.append(spk.id)
        if role is not None:
            clauses.append("role = ?")
            args.append(check_role(role))
        return self._segments(
            tenant, " AND ".join(clauses), tuple(args), limit, offset, vectors, newest_first
        )

    def _segments(
        self,
        tenant: str,
        where: str,
        args: tuple[Any, ...],
        limit: int = -1,
        offset: int = 0,
        vectors: bool = True,
        newest_first: bool = False,
    ) -> builtins.list[Segment]:
        conn = self.catalog.read()
        order = (
            "created_at DESC, rowid DESC" if newest_first else "created_at, recording_id, start_s"
        )
        rows = conn.execute(
            f"SELECT * FROM segments WHERE tenant = ? AND state = 'live' AND ({where}) "
            f"ORDER BY {order} LIMIT ? OFFSET ?",
            (tenant, *args, limit, offset),
        ).fetchall()
        out = [_row_to_segment(r) for r in rows]
        if vectors and out:
            by_id = {s.id: s for s in out}
            marks = ",".join("?" * len(by_id))
            for r in conn.execute(
                f"SELECT segment_id, space, data FROM vectors WHERE segment_id IN ({marks})",
                tuple(by_id),
            ):
                by_id[r["segment_id"]].vectors[r["space"]] = np.frombuffer(
                    r["data"], np.float32
                ).copy()
        return out

    def search(
        self,
        tenant: str,
        space: str,
        vector: np.ndarray,
        k: int = 10,
        where: Mapping[str, Any] | None = None,
    ) -> builtins.list[Hit]:
        """Nearest segments in one space. ``where`` is a Chroma metadata filter over
        ``session``, ``speaker``, ``role``, ``recording``, ``start``, ``end``,
        ``created_at``, ``style`` and ``environment`` (top labels)."""
        tenant = self._require_tenant(tenant)
        if space not in SPACES:
            raise WrongDimension(f"unknown space {space!r}; spaces are {', '.join(SPACES)}")
        self._check_vectors({space: vector})
        hits = self.index.query(tenant, space, vector, k, where)
        return self._hydrate(tenant, hits)

    def _hydrate(self, tenant: str, hits: Sequence[IndexHit]) -> builtins.list[Hit]:
        if not hits:
            return []
        marks = ",".join("?" * len(hits))
        segs = {
            s.id: s
            for s in self._segments(
                tenant, f"id IN ({marks})", tuple(h.id for h in hits), vectors=False
            )
        }
        # the index may briefly hold what a crash left half-forgotten: the catalog decides
        return [Hit(segs[h.id], h.score) for h in hits if h.id in segs]

    def embed_query(self, text: str) -> np.ndarray:
        """A text-space query vector for ``text``."""
        return self.perception.text.queries([text])[0]

    # -- speakers --------------------------------------------------------------------

    def speakers(self, tenant: str) -> builtins.list[Speaker]:
        tenant = self._require_tenant(tenant)
        return all_speakers(self.catalog.read(), tenant)

    def raw_vectors(
        self, tenant: str, space: str, limit: int = 20_000
    ) -> tuple[builtins.list[str], builtins.list[str | None], np.ndarray]:
        """Segment ids, their speaker ids and their ``space`` vectors (catalog only)."""
        tenant = self._require_tenant(tenant)
        rows = (
            self.catalog.read()
            .execute(
                "SELECT s.id, s.speaker_id, v.data FROM segments s JOIN vectors v "
                "ON v.segment_id = s.id WHERE s.tenant = ? AND s.state = 'live' AND v.space = ? "
                "LIMIT ?",
                (tenant, space, limit),
            )
            .fetchall()
        )
        if not rows:
            return [], [], np.zeros((0, 0), np.float32)
        matrix = np.stack([np.frombuffer(r["data"], np.float32) for r in rows])
        return [r["id"] for r in rows], [r["speaker_id"] for r in rows], matrix

    def style_baselines(self, tenant: str, min_turns: int = 3) -> dict[str, np.ndarray]:
        """Each speaker's mean raw style functionals (``style_raw``) over their stored
        turns, for speakers with at least ``min_turns`` of them: how this person usually
        talks, to judge a turn's style against. Cached until the tenant's turns or speakers
        change."""
        tenant = self._require_tenant(tenant)
        conn = self.catalog.read()
        # data_version moves when another connection commits, total_changes when this
        # one does: together, whether anything changed since the baselines were taken
        signature = (conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes)
        key = f"{tenant}/{min_turns}/{id(conn)}"
        cached = self._baselines.get(key)
        if cached is not None and cached[0] == signature:
            return cached[1]
        _, speakers, raw = self.raw_vectors(tenant, "style_raw")
        rows: dict[str, builtins.list[np.ndarray]] = {}
        for speaker, row in zip(speakers, raw, strict=True):
            if speaker is not None:
                rows.setdefault(speaker, []).append(row)
        baselines = {
            spk: np.mean(np.stack(r), axis=0) for spk, r in rows.items() if len(r) >= min_turns
        }
        self._baselines[key] = (signature, baselines)
        return baselines

    def identify_speaker(self, tenant: str, voiceprint: np.ndarray) -> Speaker | None:
        """The known speaker whose voice this is (by the same rule ingest matches with),
        or None; reads only, so an unknown voice creates nothing. A tenant with nothing
        stored knows no one."""
        tenant = check_tenant(tenant)
        try:
            known = self.speakers(tenant)
        except UnknownTenant:
            return None
        if not known:
            return None
        v = np.asarray(voiceprint, np.float32)
        v = v / max(float(np.linalg.norm(v)), 1e-12)
        sims = np.stack([s.centroid for s in known]) @ v
        best = int(np.argmax(sims))
        return known[best] if float(sims[best]) >= self.speaker_params.match_threshold else None

    def sessions(self, tenant: str) -> builtins.list[SessionSummary]:
        """The tenant's sessions, oldest first, with when their turns were stored."""
        tenant = self._require_tenant(tenant)
        rows = (
            self.catalog.read()
            .execute(
                "SELECT session, MIN(created_at) AS first, MAX(created_at) AS last, "
                "COUNT(*) AS n FROM segments WHERE tenant = ? AND state = 'live' "
                "GROUP BY session ORDER BY first, session",
                (tenant,),
            )
            .fetchall()
        )
        return [
            SessionSummary(r["session"], float(r["first"]), float(r["last"]), int(r["n"]))
            for r in rows
        ]

    def speaker_names(self, tenant: str) -> builtins.list[str]:
        """Names given to the tenant's speakers (cheap: no voiceprints are read)."""
        tenant = self._require_tenant(tenant)
        rows = (
            self.catalog.read()
            .execute(
                "SELECT name FROM speakers WHERE tenant = ? AND name IS NOT NULL ORDER BY name",
                (tenant,),
            )
            .fetchall()
        )
        return [r["name"] for r in rows]

    def name_speaker(self, tenant: str, speaker: str, name: str) -> Speaker:
        tenant = self._require_tenant(tenant)
        with self.catalog.write() as tx:
            spk = get_speaker(tx, tenant, speaker)
            clash = tx.execute(
                "SELECT id FROM speakers WHERE tenant = ? AND name = ? AND id != ?",
                (tenant, name, spk.id),
            ).fetchone()
            if clash:
                raise StoreError(
                    f"tenant {tenant!r} already has a speaker named {name!r} "
                    f"({clash['id']}); merge them or choose another name"
                )
            tx.execute(
                "UPDATE speakers SET name = ?, updated_at = ? WHERE id = ?",
                (name, time.time(), spk.id),
            )
            return get_speaker(tx, tenant, spk.id)

    def enroll_speaker(
        self, tenant: str, name: str, audio: AudioSource, sample_rate: int | None = None
    ) -> Speaker:
        """Create (or refine) the speaker called ``name`` from a clip of their voice."""
        tenant = check_tenant(tenant)
        clip = load_audio(audio, sample_rate=sample_rate, require_speech=True, min_duration=0.5)
        voice = self.perception.speaker.embed([clip])[0]
        now = time.time()
        with self.catalog.write() as tx:
            tx.execute(
                "INSERT OR IGNORE INTO tenants (id, created_at) VALUES (?, ?)", (tenant, now)
            )
            row = tx.execute(
                "SELECT id FROM speakers WHERE tenant = ? AND name = ?", (tenant, name)
            ).fetchone()
            if row is None:
                spk_id = f"spk_{uuid.uuid4().hex[:12]}"
                tx.execute(
                    "INSERT INTO speakers (id, tenant, name, centroid, n_segments, "
                    "created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)",
                    (spk_id, tenant, name, voice.astype(np.float32).tobytes(), now, now),
                )
            else:
                spk_id = row["id"]
                old = get_speaker(tx, tenant, spk_id)
                mixed = old.centroid + voice
                tx.execute(
                    "UPDATE speakers SET centroid = ?, updated_at = ? WHERE id = ?",
                    ((mixed / np.linalg.norm(mixed)).astype(np.float32).tobytes(), now, spk_id),
                )
            return get_speaker(tx, tenant, spk_id)

    def merge_speakers(self, tenant: str, keep: str, other: str) -> Speaker:
        """Fold ``other`` into ``keep``: its segments move, its centroid is recomputed."""
        tenant = self._require_tenant(tenant)
        with self.catalog.write() as tx:
            a, b = get_speaker(tx, tenant, keep), get_speaker(tx, tenant, other)
            if a.id == b.id:
                return a
            moved = [
                r["id"] for r in tx.execute("SELECT id FROM segments WHERE speaker_id = ?", (b.id,))
            ]
            tx.execute("UPDATE segments SET speaker_id = ? WHERE speaker_id = ?", (a.id, b.id))
            if a.name is None and b.name is not None:
                tx.execute("DELETE FROM speakers WHERE id = ?", (b.id,))
                tx.execute("UPDATE speakers SET name = ? WHERE id = ?", (b.name, a.id))
            else:
                tx.execute("DELETE FROM speakers WHERE id = ?", (b.id,))
            recompute_centroid(tx, a.id)
            merged = get_speaker(tx, tenant, a.id)
        self._reindex_metadata(tenant, moved)
        return merged

    def split_speaker(
        self, tenant: str, speaker: str, segment_ids: Sequence[str], name: str | None = None
    ) -> Speaker:
        """Move ``segment_ids`` of ``speaker`` to a new speaker; both centroids recomputed."""
        tenant = self._require_tenant(tenant)
        now = time.time()
        with self.catalog.write() as tx:
            src = get_speaker(tx, tenant, speaker)
            owned = {
                r["id"]
                for r in tx.execute(
                    "SELECT id FROM segments WHERE speaker_id = ? AND state = 'live'", (src.id,)
                )
            }
            missing = [s for s in segment_ids if s not in owned]
            if missing or not segment_ids:
                raise UnknownSegment(
                    f"speaker {speaker!r} has no segment(s) {', '.join(missing) or '(none given)'}"
                )
            new_id = f"spk_{uuid.uuid4().hex[:12]}"
            tx.execute(
                "INSERT INTO speakers (id, tenant, name, centroid, n_segments, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)",
                (new_id, tenant, name, src.centroid.tobytes(), now, now),
            )
            tx.executemany(
                "UPDATE segments SET speaker_id = ? WHERE id = ?",
                [(new_id, s) for s in segment_ids],
            )
            recompute_centroid(tx, src.id)
            recompute_centroid(tx, new_id)
            new = get_speaker(tx, tenant, new_id)
        self._reindex_metadata(tenant, list(segment_ids))
        return new

    def _reindex_metadata(self, tenant: str, ids: Sequence[str]) -> None:
        for start in range(0, len(ids), BATCH):
            chunk = list(ids[start : start + BATCH])
            marks = ",".join("?" * len(chunk))
            segs = self._segments(tenant, f"id IN ({marks})", tuple(chunk), vectors=False)
            for space in SPACES:
                self.index.update_metadata(
                    tenant, space, [s.id for s in segs], [_metadata(s) for s in segs]
                )

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
        many segments were erased."""
        tenant = self._require_tenant(tenant)
        chosen = [x for x in (speaker, session, segment, segments) if x is not None] + (
            ["everything"] if everything else []
        )
        if len(chosen) != 1:
            raise ValueError(
                "forget needs exactly one of speaker=, session=, segment=, segments= or "
                "everything=True"
            )
        if segments is not None and not segments:
            return 0
        args: tuple[Any, ...]
        with self.catalog.write() as tx:
            if everything:
                where, args = "tenant = ?", (tenant,)
            elif speaker is not None:
                spk = get_speaker(tx, tenant, speaker)
                where, args = "tenant = ? AND speaker_id = ?", (tenant, spk.id)
            elif session is not None:
                where, args = "tenant = ? AND session = ?", (tenant, session)
            elif segments is not None:
                ids = tuple(dict.fromkeys(segments))
                where = f"tenant = ? AND id IN ({','.join('?' * len(ids))})"
                args = (tenant, *ids)
            else:
                if (
                    tx.execute(
                        "SELECT 1 FROM segments WHERE tenant = ? AND id = ?", (tenant, segment)
                    ).fetchone()
                    is None
                ):
                    raise UnknownSegment(f"tenant {tenant!r} has no segment {segment!r}")
                where, args = "tenant = ? AND id = ?", (tenant, segment)
            n = tx.execute(f"UPDATE segments SET state = 'forgetting' WHERE {where}", args).rowcount
            if everything:
                tx.execute("UPDATE tenants SET created_at = -1 WHERE id = ?", (tenant,))
            elif speaker is not None:
                tx.execute("UPDATE speakers SET n_segments = -1 WHERE id = ?", (spk.id,))
        self._finish_forgets()
        return int(n)

    def _finish_forgets(self) -> None:
        """Complete every forget that was marked, even by a process that died mid-way."""
        conn = self.catalog.read()
        pending = conn.execute(
            "SELECT id, tenant, speaker_id FROM segments WHERE state = 'forgetting'"
        ).fetchall()
        doomed_tenants = [
            r["id"] for r in conn.execute("SELECT id FROM tenants WHERE created_at = -1")
        ]
        if not pending and not doomed_tenants:
            return
        by_tenant: dict[str, list[str]] = {}
        speakers: set[str] = set()
        for r in pending:
            by_tenant.setdefault(r["tenant"], []).append(r["id"])
            if r["speaker_id"]:
                speakers.add(r["speaker_id"])
        all_ids = [i for ids in by_tenant.values() for i in ids]
        needles = self._vector_prefixes(all_ids[:FORGET_CHECK_SEGMENTS])
        for tenant in set(by_tenant) | set(doomed_tenants):
            ids = by_tenant.get(tenant, [])
            for space in SPACES:
                self.index.delete(tenant, space, ids)
            for seg_id in ids:
                _erase_file(self._audio_path(tenant, seg_id))
        with self.catalog.write() as tx:
            for ids in by_tenant.values():
                for start in range(0, len(ids), BATCH):
                    chunk = ids[start : start + BATCH]
                    marks = ",".join("?" * len(chunk))
                    tx.execute(f"DELETE FROM vectors WHERE segment_id IN ({marks})", chunk)
                    tx.execute(f"DELETE FROM segments WHERE id IN ({marks})", chunk)
            tx.execute(
                "DELETE FROM recordings WHERE id NOT IN "
                "(SELECT DISTINCT recording_id FROM segments)"
            )
            tx.execute("DELETE FROM speakers WHERE n_segments = -1")
            for spk in speakers:
                row = tx.execute("SELECT name FROM speakers WHERE id = ?", (spk,)).fetchone()
                if row is None:
                    continue
                left = tx.execute(
                    "SELECT COUNT(*) FROM segments WHERE speaker_id = ?", (spk,)
                ).fetchone()[0]
                if left == 0 and row["name"] is None:
                    tx.execute("DELETE FROM speakers WHERE id = ?", (spk,))
                elif left:
                    recompute_centroid(tx, spk)
            for tenant in doomed_tenants:
                tx.execute("DELETE FROM speakers WHERE tenant = ?", (tenant,))
                tx.execute("DELETE FROM items WHERE tenant = ?", (tenant,))
                tx.execute("DELETE FROM tenants WHERE id = ?", (tenant,))
        for tenant in doomed_tenants:
            shutil.rmtree(self.root / "audio" / tenant, ignore_errors=True)
        self.catalog.scrub()
        # Chroma keeps deleted vectors in its files until the collection is rebuilt.
        forgotten = sorted(set(by_tenant) | set(doomed_tenants))
        self._rebuild_clean(forgotten)
        if needles:  # a vector that a live segment also has is not forgotten
            marks = ",".join("?" * len(needles))
            still = {
                bytes(r[0])
                for r in self.catalog.read().execute(
                    "SELECT substr(data, 1, 32) FROM vectors "
                    f"WHERE substr(data, 1, 32) IN ({marks})",
                    tuple(needles),
                )
            }
            needles = [n for n in needles if n not in still]
        # Chroma can also write stale bytes of a process's freed memory into its graph
        # files, at moments of its choosing: check, and rebuild everything from a fresh
        # process until the forgotten vectors are gone from the files.
        for _ in range(3):
            if not needles or not self._index_holds(needles):
                return
            self._rebuild_clean(sorted(set(self.tenants()) | self.index.tenants()))
        if self._index_holds(needles):
            raise StoreError(
                "forgotten vectors are still present in the index files; stop "
                "the processes using this memory and run `voxmem rebuild`"
            )

    def _vector_prefixes(self, segment_ids: Sequence[str]) -> builtins.list[bytes]:
        """The first 32 bytes of every stored vector of these segments."""
        out: builtins.list[bytes] = []
        for i in range(0, len(segment_ids), 500):
            chunk = tuple(segment_ids[i : i + 500])
            marks = ",".join("?" * len(chunk))
            out += [
                bytes(r["data"][:32])
                for r in self.catalog.read().execute(
                    f"SELECT data FROM vectors WHERE segment_id IN ({marks})", chunk
                )
            ]
        return out

    def _index_holds(self, needles: Sequence[bytes]) -> bool:
        if self.index.mode != "embedded":
            return False
        import time as _time

        _time.sleep(INDEX_SETTLE_S)  # let Chroma's background writes land first
        for path in self.index.path.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                if any(n in data for n in needles):
                    return True
        return False

    def _rebuild_clean(self, tenants: Sequence[str]) -> None:
        """Rebuild ``tenants``' collections and compact, in a fresh process when embedded.

        The graph files Chroma writes can carry stale bytes of this process's freed
        memory, where forgotten vectors may still lie; a new process has never held
        them. This process lets go of its index client first and reloads it after."""
        if self.index.mode != "embedded":
            for tenant in tenants:
                self.rebuild(tenant, _scrub_catalog=False)
            return
        import subprocess
        import sys

        # Drop here, so that the new process never loads the old graphs either.
        for tenant in tenants:
            for space in (*SPACES, ITEM_SPACE):
                self.index.drop(tenant, space)
        self.index.compact()
        self.index.release()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "voxmem.memory.rebuild_child",
                str(self.root),
                str(self.index.path),
                *tenants,
            ],
            capture_output=True,
            text=True,
            check=False,
            timeout=3600,
        )
        if proc.returncode != 0:
            raise StoreError(
                "rebuilding the index after a forget failed; the catalog and audio are already "
                f"erased, run `voxmem rebuild` to finish. Details: {proc.stderr.strip()[-500:]}"
            )

    # -- maintenance -------------------------------------------------------------------

    def rebuild(self, tenant: str | None = None, _scrub_catalog: bool = True) -> int:
        """Recreate the index collections from the catalog (all tenants by default).
        Returns how many segments were indexed."""
        tenants = (
            [check_tenant(tenant)] if tenant else sorted(set(self.tenants()) | self.index.tenants())
        )
        total = 0
        for t in tenants:
            for space in (*SPACES, ITEM_SPACE):
                self.index.drop(t, space)
            known = (
                self.catalog.read().execute("SELECT 1 FROM tenants WHERE id = ?", (t,)).fetchone()
            )
            if known is None:
                continue
            offset = 0
            while True:
                segs = self._segments(t, "1 = 1", (), BATCH, offset)
                if not segs:
                    break
                self._index_segments(t, segs)
                total += len(segs)
                offset += len(segs)
            self._index_items(t)
        if _scrub_catalog:
            self._compact_index()
        return total

    def _compact_index(self) -> None:
        self.index.compact()

    def _item_rows(self, tenant: str) -> builtins.list[Any]:
        return (
            self.catalog.read()
            .execute(
                "SELECT namespace, key, vector FROM items WHERE tenant = ? AND vector IS NOT NULL",
                (tenant,),
            )
            .fetchall()
        )

    def _index_items(self, tenant: str, only: set[str] | None = None) -> None:
        """Put the LangGraph store's item vectors (kept in the catalog) back in the index."""
        rows = [
            r
            for r in self._item_rows(tenant)
            if only is None or f"{r['namespace']}\x1f{r['key']}" in only
        ]
        for start in range(0, len(rows), BATCH):
            chunk = rows[start : start + BATCH]
            self.index.upsert(
                tenant,
                ITEM_SPACE,
                [f"{r['namespace']}\x1f{r['key']}" for r in chunk],
                [np.frombuffer(r["vector"], np.float32) for r in chunk],
                [{"namespace": r["namespace"]} for r in chunk],
            )

    def verify(self, repair: bool = True) -> VerifyReport:
        """Compare catalog, audio files and index; with ``repair``, fix what differs."""
        report = VerifyReport()
        conn = self.catalog.read()
        report.unfinished_forgets = conn.execute(
            "SELECT COUNT(*) FROM segments WHERE state = 'forgetting'"
        ).fetchone()[0]
        if repair and report.unfinished_forgets:
            self._finish_forgets()
        live: dict[str, set[str]] = {t: set() for t in self.tenants()}
        for r in conn.execute("SELECT id, tenant FROM segments WHERE state = 'live'"):
            live.setdefault(r["tenant"], set()).add(r["id"])
        for tenant in sorted(set(live) | self.index.tenants()):
            want = live.get(tenant, set())
            for space in SPACES:
                have = self.index.ids(tenant, space)
                missing, extra = want - have, have - want
                report.missing_in_index[space] = report.missing_in_index.get(space, 0) + len(
                    missing
                )
                report.extra_in_index[space] = report.extra_in_index.get(space, 0) + len(extra)
                if repair and extra:
                    self.index.delete(tenant, space, extra)
                if repair and missing:
                    ids = sorted(missing)
                    for start in range(0, len(ids), BATCH):
                        chunk = ids[start : start + BATCH]
                        marks = ",".join("?" * len(chunk))
                        segs = self._segments(tenant, f"id IN ({marks})", tuple(chunk))
                        self._index_one_space(tenant, space, segs)
            want_items = {f"{r['namespace']}\x1f{r['key']}" for r in self._item_rows(tenant)}
            have_items = self.index.ids(tenant, ITEM_SPACE)
            report.missing_in_index[ITEM_SPACE] = report.missing_in_index.get(ITEM_SPACE, 0) + len(
                want_items - have_items
            )
            report.extra_in_index[ITEM_SPACE] = report.extra_in_index.get(ITEM_SPACE, 0) + len(
                have_items - want_items
            )
            if repair:
                self.index.delete(tenant, ITEM_SPACE, have_items - want_items)
                if want_items - have_items:
                    self._index_items(tenant, want_items - have_items)
        files = (
            {p for p in (self.root / "audio").rglob("*.flac")}
            if (self.root / "audio").exists()
            else set()
        )
        expected = {self._audio_path(t, i) for t, ids in live.items() for i in ids}
        report.missing_audio = sorted(p.stem for p in expected - files)
        orphans = files - expected
        report.orphan_audio = len(orphans)
        if repair:
            for p in orphans:
                _erase_file(p)
            for tmp in (
                (self.root / "audio").rglob(".tmp-*") if (self.root / "audio").exists() else []
            ):
                tmp.unlink(missing_ok=True)
        report.repaired = repair
        return report

    def _index_one_space(self, tenant: str, space: str, segs: Sequence[Segment]) -> None:
        have = [s for s in segs if space in s.vectors]
        self.index.upsert(
            tenant,
            space,
            [s.id for s in have],
            [s.vectors[space] for s in have],
            [_metadata(s) for s in have],
        )

    def stats(self, tenant: str | None = None) -> dict[str, Any]:
        """Counts and sizes, for one tenant or the whole memory."""
        conn = self.catalog.read()
        if tenant is not None:
            tenant = self._require_tenant(tenant)
        cond, args = ("tenant = ? AND ", (tenant,)) if tenant else ("", ())
        seg = conn.execute(
            f"SELECT COUNT(*) n, COALESCE(SUM(end_s - start_s), 0) secs, "
            f"COUNT(DISTINCT session) sessions FROM segments "
            f"WHERE {cond}state = 'live'",
            args,
        ).fetchone()
        speakers = conn.execute(
            f"SELECT COUNT(*) FROM speakers WHERE {cond}1 = 1", args
        ).fetchone()[0]
        recordings = conn.execute(
            f"SELECT COUNT(*) FROM recordings WHERE {cond}1 = 1", args
        ).fetchone()[0]
        audio_dir = self.root / "audio" / tenant if tenant else self.root / "audio"
        out: dict[str, Any] = {
            "tenants": 1 if tenant else len(self.tenants()),
            "segments": seg["n"],
            "seconds": round(float(seg["secs"]), 3),
            "sessions": seg["sessions"],
            "recordings": recordings,
            "speakers": speakers,
            "audio_bytes": _dir_size(audio_dir),
            "catalog_bytes": _dir_size(self.root, "catalog.sqlite3*"),
            "index_mode": self.index.mode,
        }
        if self.index.mode == "embedded":
            out["index_bytes"] = _dir_size(self.index.path)
        return out

    # -- async twins (for servers) -------------------------------------------------------

    async def aingest(self, audio: AudioSource, **kw: Any) -> builtins.list[Segment]:
        return await asyncio.to_thread(self.ingest, audio, **kw)

    async def aadd_segment(self, audio: AudioSource, **kw: Any) -> Segment:
        return await asyncio.to_thread(self.add_segment, audio, **kw)

    async def aget(self, tenant: str, segment_id: str) -> Segment:
        return await asyncio.to_thread(self.get, tenant, segment_id)

    async def alist(self, tenant: str, **kw: Any) -> builtins.list[Segment]:
        return await asyncio.to_thread(self.list, tenant, **kw)

    async def asearch(
        self,
        tenant: str,
        space: str,
        vector: np.ndarray,
        k: int = 10,
        where: Mapping[str, Any] | None = None,
    ) -> builtins.list[Hit]:
        return await asyncio.to_thread(self.search, tenant, space, vector, k, where)

    async def aforget(self, tenant: str, **kw: Any) -> int:
        return await asyncio.to_thread(self.forget, tenant, **kw)


def _checked(tenant: object, session: object, role: str = "unknown") -> str:
    """The tenant id once the tenant, session and role of a write are valid."""
    tenant = check_tenant(tenant)
    check_role(role)
    _check_session(session)
    return tenant


def _check_session(session: object) -> None:
    if not isinstance(session, str) or not session.strip():
        raise ValueError("every write names a session (a conversation id): pass session='...'")


def _metadata(seg: Segment) -> dict[str, str | float]:
    env = (
        max(seg.environment_labels, key=seg.environment_labels.__getitem__)
        if seg.environment_labels
        else ""
    )
    return {
        "session": seg.session,
        "speaker": seg.speaker_id or "",
        "role": seg.role,
        "recording": seg.recording_id,
        "start": seg.start,
        "end": seg.end,
        "created_at": seg.created_at,
        "style": seg.top_style() or "",
        "environment": env,
    }


def _row_to_segment(r: Any) -> Segment:
    return Segment(
        r["id"],
        r["tenant"],
        r["session"],
        r["recording_id"],
        r["start_s"],
        r["end_s"],
        r["role"],
        r["speaker_id"],
        r["transcript"],
        [Word(t, s, e, p) for t, s, e, p in json.loads(r["words"])],
        r["language"],
        json.loads(r["style_labels"]),
        json.loads(r["environment_labels"]),
        {},
        r["created_at"],
    )


def _erase_file(path: Path) -> None:
    """Overwrite then delete, so the bytes do not stay in the data directory's blocks."""
    try:
        size = path.stat().st_size
        with open(path, "r+b") as f:
            f.write(b"\0" * size)
            f.flush()
            os.fsync(f.fileno())
        path.unlink()
    except FileNotFoundError:
        pass


def _dir_size(path: Path, pattern: str = "**/*") -> int:
    if not path.exists():
        return 0
    return sum(p.stat().st_size for p in path.glob(pattern) if p.is_file())


__all__ = [
    "ROLES",
    "SPACES",
    "AudioMemory",
    "Hit",
    "Recording",
    "Segment",
    "SessionSummary",
    "Speaker",
    "VerifyReport",
]
