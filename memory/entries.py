"""What the index holds for each thing the catalog keeps: its index entries.

A segment is one entry in each of the four spaces (same id, same metadata); an item
of the LangGraph store adapter that has a vector is one entry in the ``items``
space. Rebuild and verify go through these sources, so a new kind of entry plugs in
here and the store does not need to know about it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np

from voxmem.memory.protocols import CatalogBackend, IndexBackend, SegmentFilter
from voxmem.memory.records import SPACES, Segment

#: ids per index write
BATCH = 2000
#: the index space of the LangGraph store adapter's items
ITEM_SPACE = "items"


class EntrySource(Protocol):
    """One kind of catalog record that has copies in the index."""

    spaces: tuple[str, ...]

    def wanted(self, catalog: CatalogBackend, tenant: str) -> dict[str, set[str]]:
        """The entry ids each space should hold for ``tenant``."""
        ...

    def put(
        self, catalog: CatalogBackend, index: IndexBackend, tenant: str, ids: set[str] | None
    ) -> int:
        """Write the entries of ``ids`` (all when None) into every space; how many."""
        ...


def metadata(seg: Segment) -> dict[str, str | float]:
    """What the index can filter a segment's entries on."""
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


def index_segments(
    index: IndexBackend, tenant: str, segments: Sequence[Segment], spaces: Iterable[str] = SPACES
) -> None:
    metas = [metadata(s) for s in segments]
    for space in spaces:
        have = [i for i, s in enumerate(segments) if space in s.vectors]
        index.upsert(
            tenant,
            space,
            [segments[i].id for i in have],
            [segments[i].vectors[space] for i in have],
            [metas[i] for i in have],
        )


def update_segment_metadata(index: IndexBackend, tenant: str, segments: Sequence[Segment]) -> None:
    for space in SPACES:
        index.update_metadata(
            tenant, space, [s.id for s in segments], [metadata(s) for s in segments]
        )


class SegmentEntries:
    spaces = SPACES

    def wanted(self, catalog: CatalogBackend, tenant: str) -> dict[str, set[str]]:
        ids = catalog.live_ids().get(tenant, set())
        return {space: set(ids) for space in self.spaces}

    def put(
        self, catalog: CatalogBackend, index: IndexBackend, tenant: str, ids: set[str] | None
    ) -> int:
        total = 0
        if ids is None:
            # the ids first, then their rows a batch at a time: paging the rows by offset
            # would skip a live turn whenever a concurrent forget hides an earlier one
            ids = catalog.live_ids().get(tenant, set())
        order = sorted(ids)
        for start in range(0, len(order), BATCH):
            segs = catalog.segments(tenant, SegmentFilter(ids=order[start : start + BATCH]))
            index_segments(index, tenant, segs)
            total += len(segs)
        return total


class ItemEntries:
    spaces = (ITEM_SPACE,)

    def wanted(self, catalog: CatalogBackend, tenant: str) -> dict[str, set[str]]:
        return {ITEM_SPACE: {i for i, _, _ in catalog.item_entries(tenant)}}

    def put(
        self, catalog: CatalogBackend, index: IndexBackend, tenant: str, ids: set[str] | None
    ) -> int:
        rows = [r for r in catalog.item_entries(tenant) if ids is None or r[0] in ids]
        for start in range(0, len(rows), BATCH):
            chunk = rows[start : start + BATCH]
            index.upsert(
                tenant,
                ITEM_SPACE,
                [i for i, _, _ in chunk],
                [np.frombuffer(v, np.float32) for _, v, _ in chunk],
                [{"namespace": ns} for _, _, ns in chunk],
            )
        return len(rows)


#: every kind of entry the index holds
SOURCES: tuple[EntrySource, ...] = (SegmentEntries(), ItemEntries())
ALL_SPACES: tuple[str, ...] = tuple(s for source in SOURCES for s in source.spaces)
