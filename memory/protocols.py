"""The two back-end contracts of the memory: the catalog and the vector index.

``AudioMemory`` talks to its back end only through these. Each has a real
implementation (``SQLiteCatalog``, ``ChromaIndex``) and an in-memory fake
(``voxmem.memory.fakes``), and one conformance suite
(``tests/test_conformance_*.py``) runs against every implementation, so a new
back end (another database, another vector engine) is one more fixture there.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from voxmem.memory.records import Recording, Segment, Speaker

Metadata = Mapping[str, str | int | float | bool]


@dataclass(frozen=True)
class SegmentFilter:
    """Which live segments of a tenant a catalog query means (all given conditions)."""

    ids: Sequence[str] | None = None
    session: str | None = None
    speaker_id: str | None = None
    role: str | None = None


@dataclass(frozen=True)
class ForgetJob:
    """A recorded erasure (see ``voxmem.memory.forget``). ``state`` is the next step:
    ``erase`` (catalog rows and audio), ``index`` (index entries), ``compact`` (rebuild
    the tenant's collections so no deleted vector stays in the index files)."""

    id: str
    tenant: str
    selector: str
    state: str
    segments: tuple[str, ...] = ()
    speaker_id: str | None = None
    everything: bool = False
    owner: str | None = None
    created_at: float = 0.0


@dataclass(frozen=True)
class IndexHit:
    """What the index answers before the catalog hydrates it into a ``Hit``: the entry's
    id, its cosine similarity and the metadata the index filters on."""

    id: str
    score: float  # cosine similarity, 1 is identical
    metadata: dict[str, Any] = field(default_factory=dict)


class CatalogWrite(Protocol):
    """The operations of one write transaction; all or none of them happen."""

    def ensure_tenant(self, tenant: str, now: float) -> None: ...
    def register_spaces(self, dims: Mapping[str, int], encoders: Mapping[str, str]) -> None: ...
    def add_recording(self, recording: Recording) -> None: ...
    def add_segment(self, segment: Segment, audio_path: str) -> None: ...
    def segment_ids(self, tenant: str, where: SegmentFilter) -> list[str]: ...
    def segment_speakers(self, ids: Sequence[str]) -> set[str]: ...
    def delete_segments(self, ids: Sequence[str]) -> None: ...
    def drop_empty_recordings(self, tenant: str) -> None: ...
    def speakers(self, tenant: str) -> list[Speaker]: ...
    def speaker(self, tenant: str, ref: str) -> Speaker: ...
    def put_speaker(self, speaker: Speaker) -> None: ...
    def delete_speaker(self, speaker_id: str) -> None: ...
    def voiceprints(self, speaker_id: str) -> list[np.ndarray]:
        """The voiceprints of a stored speaker's live turns (none for an unknown id)."""
        ...

    def voiceprints_of(self, speaker_ids: Sequence[str]) -> dict[str, list[np.ndarray]]:
        """``voiceprints`` of several speakers at once (every id a key)."""
        ...

    def print_sums(self, speaker_ids: Sequence[str]) -> dict[str, tuple[np.ndarray | None, int]]:
        """Per speaker: the sum (float64) of its live turns' voiceprints and their count,
        kept as turns are stored, moved and forgotten; ``(None, 0)`` when not known."""
        ...

    def set_print_sum(self, speaker_id: str, total: np.ndarray | None, n: int) -> None: ...
    def space_vectors_of(
        self, space: str, speaker_ids: Sequence[str]
    ) -> dict[str, list[np.ndarray]]:
        """The ``space`` vectors of each stored speaker's live turns (every id a key)."""
        ...

    def space_sums(
        self, space: str, speaker_ids: Sequence[str]
    ) -> dict[str, tuple[np.ndarray | None, int]]:
        """``print_sums`` for any space of ``catalog.SUMMED_SPACES`` (the voiceprints, the
        raw style functionals)."""
        ...

    def set_space_sum(
        self, space: str, speaker_id: str, total: np.ndarray | None, n: int
    ) -> None: ...
    def set_speaker(self, segment_ids: Sequence[str], speaker_id: str) -> None: ...
    def delete_items(self, tenant: str, before: float) -> None: ...
    def drop_tenant_if_empty(self, tenant: str) -> bool: ...
    def add_forget_job(self, job: ForgetJob) -> None: ...
    def forget_job(self, job_id: str) -> ForgetJob | None: ...
    def set_forget_job(
        self, job_id: str, *, state: str | None = None, owner: str | None
    ) -> None: ...
    def delete_forget_job(self, job_id: str) -> None: ...
    def mark_unindexed(self, tenant: str, ids: Sequence[str]) -> None: ...
    def clear_unindexed(self, ids: Sequence[str]) -> None: ...


class CatalogBackend(Protocol):
    """The memory's source of truth: tenants, recordings, segments with their vectors,
    speakers, and the durable forget jobs."""

    def write(self) -> AbstractContextManager[CatalogWrite]: ...
    def tenants(self) -> list[str]: ...
    def has_tenant(self, tenant: str) -> bool: ...
    def segments(
        self,
        tenant: str,
        where: SegmentFilter | None = None,
        *,
        limit: int = -1,
        offset: int = 0,
        vectors: bool = True,
        newest_first: bool = False,
    ) -> list[Segment]: ...
    def count_segments(self, tenant: str, where: SegmentFilter, at_most: int) -> int:
        """How many live segments of ``tenant`` pass ``where``, counted up to
        ``at_most`` (a larger count answers ``at_most``)."""
        ...

    def with_labels(
        self, tenant: str, kind: str, labels: Sequence[str], limit: int
    ) -> list[Segment]: ...
    def sessions(self, tenant: str) -> list[tuple[str, float, float, int]]: ...
    def vectors(
        self, tenant: str, space: str, limit: int
    ) -> tuple[list[str], list[str | None], list[bytes]]: ...
    def vector_bytes(self, segment_ids: Sequence[str]) -> list[bytes]: ...
    def space_dims(self) -> dict[str, int]: ...
    def speaker_sums(self, tenant: str, space: str) -> dict[str, tuple[np.ndarray | None, int]]:
        """Each of the tenant's speakers' running sum (float64) of its live turns'
        ``space`` vectors (a space of ``catalog.SUMMED_SPACES``) and their count;
        ``(None, 0)`` where not known yet."""
        ...

    def speakers(self, tenant: str) -> list[Speaker]: ...
    def speaker(self, tenant: str, ref: str) -> Speaker: ...
    def speaker_names(self, tenant: str) -> list[str]: ...
    def counts(self, tenant: str | None) -> dict[str, int | float]: ...
    def live_ids(self) -> dict[str, set[str]]: ...
    def item_entries(self, tenant: str) -> list[tuple[str, bytes, str]]: ...
    def forget_jobs(self) -> list[ForgetJob]: ...
    def shared_windows(self, windows: Sequence[tuple[int, bytes]]) -> set[tuple[int, bytes]]:
        """Which of these (byte offset, bytes) a stored vector holds at that offset."""
        ...

    def unindexed(self) -> dict[str, list[str]]: ...
    def version(self) -> Hashable: ...
    def size(self) -> int: ...
    def child_env(self) -> dict[str, str]: ...
    def scrub(self, timeout: float = ...) -> None: ...
    def close(self) -> None: ...


class IndexBackend(Protocol):
    """Per-tenant, per-space cosine collections of copies of the catalog's vectors.
    Every failure to reach the engine raises ``IndexUnavailable``; "no such collection"
    is the only error read as "nothing there"."""

    mode: str

    def upsert(
        self,
        tenant: str,
        space: str,
        ids: Sequence[str],
        vectors: Sequence[np.ndarray],
        metadatas: Sequence[Metadata],
    ) -> None: ...
    def update_metadata(
        self, tenant: str, space: str, ids: Sequence[str], metadatas: Sequence[Metadata]
    ) -> None: ...
    def delete(self, tenant: str, space: str, ids: Iterable[str]) -> None: ...
    def erase(self, tenant: str, spaces: Sequence[str], ids: Iterable[str]) -> None:
        """Delete ``ids`` from each of ``spaces`` so that their vectors also leave the
        engine's files."""
        ...

    def query(
        self,
        tenant: str,
        space: str,
        vector: np.ndarray,
        k: int,
        where: Mapping[str, Any] | None = None,
        metadata: bool = False,
    ) -> list[IndexHit]:
        """The ``k`` nearest entries, best first; each hit's metadata only when asked
        (the catalog holds the same, and fetching it costs most of a query)."""
        ...

    def ids(self, tenant: str, space: str) -> set[str]: ...
    def count(self, tenant: str, space: str) -> int: ...
    def drop(self, tenant: str, space: str) -> None: ...
    def tenants(self) -> set[str]: ...
    def purge(self) -> None: ...
    def clear_unused(self) -> int:
        """Zero what the index's files hold beyond their entries (room written out as
        it lay in memory); the number of files changed."""
        ...

    def holds(self, needles: Sequence[bytes]) -> set[str]: ...
    def release(self, settle: bool = False) -> None: ...
    def close(self) -> None: ...
