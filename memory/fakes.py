"""In-memory twins of the catalog and the index, for fast tests of the logic above
them. They pass the same conformance suite as the real back ends
(``tests/test_conformance_*.py``), so what a test learns on them holds on the real
ones. One process only; nothing is kept after it ends.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import numpy as np

from voxmem.memory.protocols import ForgetJob, IndexHit, Metadata, SegmentFilter
from voxmem.memory.records import (
    MemoryClosed,
    Recording,
    Segment,
    Speaker,
    UnknownSpeaker,
    WrongDimension,
)


class _State:
    def __init__(self) -> None:
        self.tenants: dict[str, float] = {}
        self.spaces: dict[str, tuple[int, str]] = {}
        self.recordings: dict[str, Recording] = {}
        self.segments: dict[str, Segment] = {}  # insertion order is storage order
        self.hidden: set[str] = set()
        self.speakers: dict[str, Speaker] = {}
        self.items: dict[tuple[str, str], tuple[bytes, str, float]] = {}
        self.jobs: dict[str, ForgetJob] = {}
        self.unindexed: dict[str, str] = {}
        self.audio: dict[str, tuple[str, bytes, float]] = {}


def _copy_segment(seg: Segment, vectors: bool) -> Segment:
    out = copy.copy(seg)
    out.words = list(seg.words)
    out.style_labels = dict(seg.style_labels)
    out.environment_labels = dict(seg.environment_labels)
    out.vectors = {k: v.copy() for k, v in seg.vectors.items()} if vectors else {}
    return out


def _copy_speaker(spk: Speaker) -> Speaker:
    return replace(spk, centroid=spk.centroid.copy())


def _matches(seg: Segment, where: SegmentFilter) -> bool:
    return (
        (where.ids is None or seg.id in where.ids)
        and (where.session is None or seg.session == where.session)
        and (where.speaker_id is None or seg.speaker_id == where.speaker_id)
        and (where.role is None or seg.role == where.role)
    )


class _Reads:
    """What both the catalog and its write transaction can read."""

    _s: _State

    def _live(self, tenant: str) -> Iterator[Segment]:
        return (
            s
            for s in self._s.segments.values()
            if s.tenant == tenant and s.id not in self._s.hidden
        )

    def speakers(self, tenant: str) -> list[Speaker]:
        found = [s for s in self._s.speakers.values() if s.tenant == tenant]
        return [_copy_speaker(s) for s in sorted(found, key=lambda s: (s.created_at, s.id))]

    def space_vectors_of(
        self, space: str, speaker_ids: Sequence[str]
    ) -> dict[str, list[np.ndarray]]:
        out: dict[str, list[np.ndarray]] = {}
        for i in speaker_ids:
            spk = self._s.speakers.get(i)  # a stored speaker's, of its own tenant
            out[i] = [
                s.vectors[space].copy()
                for s in self._s.segments.values()
                if spk is not None
                and s.speaker_id == i
                and s.tenant == spk.tenant
                and s.id not in self._s.hidden
                and space in s.vectors
            ]
        return out

    def space_sums(
        self, space: str, speaker_ids: Sequence[str]
    ) -> dict[str, tuple[np.ndarray | None, int]]:
        """Summed afresh from the stored turns: what the SQL catalogs' running sums
        must equal."""
        out: dict[str, tuple[np.ndarray | None, int]] = {}
        for i, rows in self.space_vectors_of(space, speaker_ids).items():
            if i not in self._s.speakers:
                out[i] = (None, 0)
            elif not rows:
                out[i] = (np.zeros(0), 0)
            else:
                out[i] = (np.sum(np.asarray(rows, np.float64), axis=0), len(rows))
        return out

    def speaker(self, tenant: str, ref: str) -> Speaker:
        known = self.speakers(tenant)
        for spk in [s for s in known if s.id == ref] + [s for s in known if s.name == ref]:
            return spk
        raise UnknownSpeaker(
            f"tenant {tenant!r} has no speaker {ref!r}; "
            "list them with voxmem speakers list --tenant ..."
        )


class MemoryCatalogWrite(_Reads):
    def __init__(self, state: _State) -> None:
        self._s = state

    def ensure_tenant(self, tenant: str, now: float) -> None:
        self._s.tenants.setdefault(tenant, now)

    def register_spaces(self, dims: Mapping[str, int], encoders: Mapping[str, str]) -> None:
        for space, dim in dims.items():
            known = self._s.spaces.get(space)
            if known is not None and known[0] != dim:
                raise WrongDimension(
                    f"this memory stores {known[0]}-d {space} vectors, "
                    f"got {dim}; open it with the encoders it was built with"
                )
            self._s.spaces.setdefault(space, (dim, encoders.get(space, "given")))

    def add_recording(self, recording: Recording) -> None:
        if recording.id in self._s.recordings:
            raise ValueError(f"recording {recording.id} already exists")
        self._s.recordings[recording.id] = replace(recording)

    def add_segment(self, segment: Segment, audio_path: str) -> None:
        if segment.id in self._s.segments:
            raise ValueError(f"segment {segment.id} already exists")
        seg = _copy_segment(segment, vectors=True)
        seg.vectors = {k: np.asarray(v, np.float32).copy() for k, v in seg.vectors.items()}
        self._s.segments[seg.id] = seg

    def segment_ids(self, tenant: str, where: SegmentFilter) -> list[str]:
        return [s.id for s in self._live(tenant) if _matches(s, where)]

    def segment_speakers(self, ids: Sequence[str]) -> set[str]:
        segs = [self._s.segments.get(i) for i in ids]
        return {s.speaker_id for s in segs if s is not None and s.speaker_id is not None}

    def delete_segments(self, ids: Sequence[str]) -> None:
        for i in ids:
            self._s.segments.pop(i, None)
            self._s.hidden.discard(i)
            self._s.unindexed.pop(i, None)
            self._s.audio.pop(i, None)

    def put_audio(self, tenant: str, segment_id: str, data: bytes, now: float) -> None:
        self._s.audio[segment_id] = (tenant, bytes(data), now)

    def delete_audio(self, segment_ids: Sequence[str]) -> None:
        for i in segment_ids:
            self._s.audio.pop(i, None)

    def drop_empty_recordings(self, tenant: str) -> None:
        used = {s.recording_id for s in self._s.segments.values()}
        for rid, rec in list(self._s.recordings.items()):
            if rec.tenant == tenant and rid not in used:
                del self._s.recordings[rid]

    def put_speaker(self, speaker: Speaker) -> None:
        clash = [
            s
            for s in self._s.speakers.values()
            if speaker.name is not None
            and s.tenant == speaker.tenant
            and s.name == speaker.name
            and s.id != speaker.id
        ]
        if clash:
            raise ValueError(f"tenant {speaker.tenant!r} already has a speaker {speaker.name!r}")
        old = self._s.speakers.get(speaker.id)
        stored = _copy_speaker(speaker)
        if old is not None:
            stored.created_at = old.created_at
        self._s.speakers[speaker.id] = stored

    def delete_speaker(self, speaker_id: str) -> None:
        self._s.speakers.pop(speaker_id, None)

    def voiceprints(self, speaker_id: str) -> list[np.ndarray]:
        return self.space_vectors_of("speaker", [speaker_id])[speaker_id]

    def voiceprints_of(self, speaker_ids: Sequence[str]) -> dict[str, list[np.ndarray]]:
        return self.space_vectors_of("speaker", speaker_ids)

    def print_sums(self, speaker_ids: Sequence[str]) -> dict[str, tuple[np.ndarray | None, int]]:
        return self.space_sums("speaker", speaker_ids)

    def set_print_sum(self, speaker_id: str, total: np.ndarray | None, n: int) -> None:
        """Nothing to keep: the sums are read afresh."""

    def set_space_sum(self, space: str, speaker_id: str, total: np.ndarray | None, n: int) -> None:
        """Nothing to keep: the sums are read afresh."""

    def set_speaker(self, segment_ids: Sequence[str], speaker_id: str) -> None:
        for i in segment_ids:
            if i in self._s.segments:
                self._s.segments[i].speaker_id = speaker_id

    def delete_items(self, tenant: str, before: float) -> None:
        for key, (_, _, updated) in list(self._s.items.items()):
            if key[0] == tenant and updated <= before:
                del self._s.items[key]

    def drop_tenant_if_empty(self, tenant: str) -> bool:
        if (
            any(s.tenant == tenant for s in self._s.segments.values())
            or any(s.tenant == tenant for s in self._s.speakers.values())
            or any(k[0] == tenant for k in self._s.items)
            or sum(j.tenant == tenant for j in self._s.jobs.values()) > 1
        ):
            return False
        self._s.tenants.pop(tenant, None)
        return True

    def add_forget_job(self, job: ForgetJob) -> None:
        self._s.jobs[job.id] = job
        self._s.hidden |= set(job.segments)

    def forget_job(self, job_id: str) -> ForgetJob | None:
        return self._s.jobs.get(job_id)

    def set_forget_job(self, job_id: str, *, state: str | None = None, owner: str | None) -> None:
        job = self._s.jobs.get(job_id)
        if job is not None:
            self._s.jobs[job_id] = replace(job, state=state or job.state, owner=owner)

    def delete_forget_job(self, job_id: str) -> None:
        self._s.jobs.pop(job_id, None)

    def mark_unindexed(self, tenant: str, ids: Sequence[str]) -> None:
        for i in ids:
            self._s.unindexed[i] = tenant

    def clear_unindexed(self, ids: Sequence[str]) -> None:
        for i in ids:
            self._s.unindexed.pop(i, None)


class MemoryCatalog(_Reads):
    """The catalog in a process's memory: one lock, copies in and out, and a write
    transaction that is undone on error."""

    def __init__(self, audio: bool = False) -> None:
        self._s = _State()
        self._lock = threading.RLock()
        self._version = 0
        self._closed = False
        #: whether it holds the audio bytes too, as the PostgreSQL catalog can
        self.stores_audio = audio

    @contextmanager
    def write(self) -> Iterator[MemoryCatalogWrite]:
        self._check_open()
        with self._lock:
            before = copy.deepcopy(self._s)
            try:
                yield MemoryCatalogWrite(self._s)
            except BaseException:
                self._s.__dict__.update(before.__dict__)
                raise
            self._version += 1

    def _check_open(self) -> None:
        if self._closed:
            raise MemoryClosed("the memory is closed; open it again")

    def tenants(self) -> list[str]:
        self._check_open()
        with self._lock:
            return sorted(self._s.tenants)

    def has_tenant(self, tenant: str) -> bool:
        self._check_open()
        return tenant in self._s.tenants

    def count_segments(self, tenant: str, where: SegmentFilter, at_most: int) -> int:
        self._check_open()
        with self._lock:
            return min(at_most, sum(1 for s in self._live(tenant) if _matches(s, where)))

    def segments(
        self,
        tenant: str,
        where: SegmentFilter | None = None,
        *,
        limit: int = -1,
        offset: int = 0,
        vectors: bool = True,
        newest_first: bool = False,
    ) -> list[Segment]:
        self._check_open()
        where = where or SegmentFilter()
        with self._lock:
            found = [s for s in self._live(tenant) if _matches(s, where)]
            if newest_first:
                found = sorted(enumerate(found), key=lambda p: (p[1].created_at, p[0]))
                found = [s for _, s in reversed(found)]
            else:
                found.sort(key=lambda s: (s.created_at, s.recording_id, s.start))
            end = None if limit < 0 else offset + limit
            return [_copy_segment(s, vectors) for s in found[offset:end]]

    def with_labels(
        self, tenant: str, kind: str, labels: Sequence[str], limit: int
    ) -> list[Segment]:
        if not labels:
            return []
        attr = {"style": "style_labels", "environment": "environment_labels"}[kind]
        with self._lock:
            scored = [
                (max(getattr(s, attr).get(label, 0.0) for label in labels), s)
                for s in self._live(tenant)
            ]
            best = sorted([p for p in scored if p[0] > 0], key=lambda p: -p[0])[:limit]
            return [_copy_segment(s, False) for _, s in best]

    def sessions(self, tenant: str) -> list[tuple[str, float, float, int]]:
        by: dict[str, list[float]] = {}
        with self._lock:
            for s in self._live(tenant):
                by.setdefault(s.session, []).append(s.created_at)
        rows = [(name, min(t), max(t), len(t)) for name, t in by.items()]
        return sorted(rows, key=lambda r: (r[1], r[0]))

    def vectors(
        self, tenant: str, space: str, limit: int
    ) -> tuple[list[str], list[str | None], list[bytes]]:
        with self._lock:
            segs = [s for s in self._live(tenant) if space in s.vectors][:limit]
            return (
                [s.id for s in segs],
                [s.speaker_id for s in segs],
                [s.vectors[space].tobytes() for s in segs],
            )

    def vector_bytes(self, segment_ids: Sequence[str]) -> list[bytes]:
        with self._lock:
            segs = [self._s.segments[i] for i in segment_ids if i in self._s.segments]
            return [v.tobytes() for s in segs for v in s.vectors.values()]

    def shared_windows(self, windows: Sequence[tuple[int, bytes]]) -> set[tuple[int, bytes]]:
        with self._lock:
            stored = [v.tobytes() for s in self._s.segments.values() for v in s.vectors.values()]
        return {(at, b) for at, b in windows if any(v[at : at + len(b)] == b for v in stored)}

    def space_dims(self) -> dict[str, int]:
        return {space: dim for space, (dim, _) in self._s.spaces.items()}

    def speaker_sums(self, tenant: str, space: str) -> dict[str, tuple[np.ndarray | None, int]]:
        with self._lock:
            ids = [i for i, spk in self._s.speakers.items() if spk.tenant == tenant]
            return self.space_sums(space, ids)

    def speaker_names(self, tenant: str) -> list[str]:
        return sorted(s.name for s in self.speakers(tenant) if s.name is not None)

    def counts(self, tenant: str | None) -> dict[str, int | float]:
        with self._lock:
            segs = [
                s
                for s in self._s.segments.values()
                if s.id not in self._s.hidden and (tenant is None or s.tenant == tenant)
            ]
            return {
                "segments": len(segs),
                "seconds": float(sum(s.end - s.start for s in segs)),
                "sessions": len({(s.tenant, s.session) for s in segs}),
                "speakers": sum(
                    tenant is None or s.tenant == tenant for s in self._s.speakers.values()
                ),
                "recordings": sum(
                    tenant is None or r.tenant == tenant for r in self._s.recordings.values()
                ),
            }

    def live_ids(self) -> dict[str, set[str]]:
        with self._lock:
            out: dict[str, set[str]] = {t: set() for t in self._s.tenants}
            for s in self._s.segments.values():
                if s.id not in self._s.hidden:
                    out.setdefault(s.tenant, set()).add(s.id)
            return out

    def item_entries(self, tenant: str) -> list[tuple[str, bytes, str]]:
        with self._lock:
            return [
                (key, vector, ns)
                for (t, key), (vector, ns, _) in self._s.items.items()
                if t == tenant
            ]

    def forget_jobs(self) -> list[ForgetJob]:
        with self._lock:
            return sorted(self._s.jobs.values(), key=lambda j: (j.created_at, j.id))

    def unindexed(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        with self._lock:
            for seg_id, tenant in self._s.unindexed.items():
                out.setdefault(tenant, []).append(seg_id)
        return out

    def version(self) -> int:
        return self._version

    def size(self) -> int:
        return 0  # nothing on disk

    def child_env(self) -> dict[str, str]:
        return {}  # never reopened by another process (its index is in memory too)

    def audio(self, tenant: str, segment_id: str) -> bytes | None:
        self._check_open()
        with self._lock:
            found = self._s.audio.get(segment_id)
            return found[1] if found and found[0] == tenant else None

    def audio_keys(self) -> dict[tuple[str, str], float]:
        with self._lock:
            return {(t, i): when for i, (t, _, when) in self._s.audio.items()}

    def audio_size(self, tenant: str | None) -> int:
        with self._lock:
            return sum(len(d) for t, d, _ in self._s.audio.values() if tenant in (None, t))

    def scrub(self, timeout: float = 5.0) -> None:
        self._check_open()  # nothing lingers in a process's dictionaries

    def close(self) -> None:
        self._closed = True


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(a @ b) / (na * nb) if na and nb else 0.0


_OPS: dict[str, Any] = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b,
    "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b,
    "$lte": lambda a, b: a is not None and a <= b,
    "$in": lambda a, b: a in b,
    "$nin": lambda a, b: a not in b,
}


def where_matches(where: Mapping[str, Any] | None, meta: Mapping[str, Any]) -> bool:
    """Chroma's metadata filter language, evaluated on one entry's metadata."""
    if not where:
        return True
    for key, cond in where.items():
        if key == "$and":
            if not all(where_matches(c, meta) for c in cond):
                return False
        elif key == "$or":
            if not any(where_matches(c, meta) for c in cond):
                return False
        elif isinstance(cond, Mapping):
            for op, value in cond.items():
                if op not in _OPS:
                    raise ValueError(f"unknown filter operator {op!r}")
                if key not in meta and op not in ("$ne", "$nin"):
                    return False
                if not _OPS[op](meta.get(key), value):
                    return False
        elif meta.get(key) != cond or key not in meta:
            return False
    return True


class MemoryIndex:
    """Exact cosine search over dictionaries, with Chroma's filter language."""

    mode = "memory"

    def __init__(self) -> None:
        self._cols: dict[tuple[str, str], dict[str, tuple[np.ndarray, dict[str, Any]]]] = {}
        self._lock = threading.RLock()
        self._closed = False
        #: set to an exception to make every call fail with it (an engine gone away)
        self.failing: BaseException | None = None

    def _check(self) -> None:
        if self._closed:
            raise MemoryClosed("the memory's index is closed; open the memory again")
        if self.failing is not None:
            raise self.failing

    def upsert(
        self,
        tenant: str,
        space: str,
        ids: Sequence[str],
        vectors: Sequence[np.ndarray],
        metadatas: Sequence[Metadata],
    ) -> None:
        self._check()
        if not ids:
            return
        with self._lock:
            col = self._cols.setdefault((tenant, space), {})
            for i, v, m in zip(ids, vectors, metadatas, strict=True):
                col[i] = (np.asarray(v, np.float32).copy(), dict(m))

    def update_metadata(
        self, tenant: str, space: str, ids: Sequence[str], metadatas: Sequence[Metadata]
    ) -> None:
        self._check()
        with self._lock:
            col = self._cols.get((tenant, space), {})
            for i, m in zip(ids, metadatas, strict=True):
                if i in col:
                    col[i] = (col[i][0], dict(m))

    def delete(self, tenant: str, space: str, ids: Iterable[str]) -> None:
        self._check()
        with self._lock:
            col = self._cols.get((tenant, space), {})
            for i in ids:
                col.pop(i, None)

    def erase(self, tenant: str, spaces: Sequence[str], ids: Iterable[str]) -> None:
        if isinstance(spaces, str):
            raise TypeError("erase takes a sequence of spaces, not one space's name")
        ids = list(ids)
        for space in spaces:
            self.delete(tenant, space, ids)  # a deleted entry leaves nothing behind here

    def query(
        self,
        tenant: str,
        space: str,
        vector: np.ndarray,
        k: int,
        where: Mapping[str, Any] | None = None,
        metadata: bool = False,
    ) -> list[IndexHit]:
        self._check()
        if k <= 0:
            return []
        q = np.asarray(vector, np.float32)
        with self._lock:
            col = dict(self._cols.get((tenant, space), {}))
        hits = [
            IndexHit(i, _cosine(v, q), dict(m) if metadata else {})
            for i, (v, m) in col.items()
            if where_matches(where, m)
        ]
        return sorted(hits, key=lambda h: -h.score)[:k]

    def ids(self, tenant: str, space: str) -> set[str]:
        self._check()
        with self._lock:
            return set(self._cols.get((tenant, space), {}))

    def count(self, tenant: str, space: str) -> int:
        return len(self.ids(tenant, space))

    def drop(self, tenant: str, space: str) -> None:
        self._check()
        with self._lock:
            self._cols.pop((tenant, space), None)

    def tenants(self) -> set[str]:
        self._check()
        with self._lock:
            return {t for (t, _), col in self._cols.items()}

    def purge(self) -> None:
        self._check()  # a dropped dictionary keeps no bytes anyone can read

    compact = purge

    def clear_unused(self) -> int:
        self._check()
        return 0  # dictionaries keep no room beyond their entries

    def holds(self, needles: Sequence[bytes]) -> set[str]:
        with self._lock:
            return {
                t
                for (t, _), col in self._cols.items()
                for v, _ in col.values()
                if any(v.tobytes().startswith(n) for n in needles)
            }

    def release(self, settle: bool = False) -> None:
        self._check()

    def close(self) -> None:
        self._closed = True


__all__ = ["MemoryCatalog", "MemoryCatalogWrite", "MemoryIndex", "where_matches"]
