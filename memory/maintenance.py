"""Keeping the index a faithful copy of the catalog: rebuild and verify.

The catalog is the source of truth; every index entry can be written again from
it (``voxmem.memory.entries``). ``rebuild`` recreates tenants' collections,
``verify`` compares catalog, audio files and index and repairs what differs,
and turns stored while the index was failing are indexed here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from voxmem.memory.audio_files import AudioStore
from voxmem.memory.entries import ALL_SPACES, SOURCES, SegmentEntries
from voxmem.memory.protocols import CatalogBackend, IndexBackend
from voxmem.memory.records import StoreError

#: an unreferenced audio file younger than this may be an ingest's whose catalog row is
#: not committed yet (the file is written first), so verify leaves it for a later run
IN_FLIGHT_S = 600.0


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

    def describe(self) -> str:
        """The report in words: what differed, and whether it was repaired."""
        fixable = [
            *(
                f"{n} {space} entries missing from the index"
                for space, n in self.missing_in_index.items()
                if n
            ),
            *(
                f"{n} {space} entries in the index with no turn"
                for space, n in self.extra_in_index.items()
                if n
            ),
        ]
        if self.orphan_audio:
            fixable.append(f"{self.orphan_audio} audio files of no turn")
        # what verify cannot repair: a lost file, a forget for its own request to finish
        lasting = []
        if self.missing_audio:
            lasting.append(
                f"{len(self.missing_audio)} turns with no audio file (restore the audio "
                "folder from a backup, or forget those turns)"
            )
        if self.unfinished_forgets:
            lasting.append(
                f"{self.unfinished_forgets} unfinished forgets (ask the same forget again "
                "to finish it)"
            )
        if not fixable and not lasting:
            return "consistent: the catalog, the audio files and the index agree"
        parts = []
        if fixable:
            what = "; ".join(fixable)
            parts.append(
                f"repaired: {what}"
                if self.repaired
                else f"found: {what} (run voxmem verify without --no-repair to repair)"
            )
        if lasting:
            parts.append("not repaired: " + "; ".join(lasting))
        return ". ".join(parts)


class Maintenance:
    def __init__(
        self, catalog: CatalogBackend, index: IndexBackend, files: AudioStore, root: Path
    ) -> None:
        self.catalog = catalog
        self.index = index
        self.files = files
        self.root = root

    def rebuild(self, tenants: Sequence[str] | None = None, purge: bool = True) -> int:
        """Recreate ``tenants``' collections (all by default) from the catalog; how many
        segments were indexed."""
        if tenants is None:
            tenants = sorted(set(self.catalog.tenants()) | self.index.tenants())
        total = 0
        for tenant in tenants:
            for space in ALL_SPACES:
                self.index.drop(tenant, space)
            if not self.catalog.has_tenant(tenant):
                continue
            for source in SOURCES:
                n = source.put(self.catalog, self.index, tenant, None)
                total += n if isinstance(source, SegmentEntries) else 0
        if purge:
            self.index.purge()
        return total

    def rebuild_clean(self, tenants: Sequence[str]) -> None:
        """Rebuild ``tenants``' collections so that no deleted vector stays in the index
        files: in a fresh process when the index is embedded (the graph files Chroma
        writes can carry stale bytes of the writing process's freed memory, and a new
        process never held the forgotten vectors). This process lets go of its index
        client first and reconnects after."""
        if self.index.mode != "embedded":
            self.rebuild(tenants, purge=False)
            return
        # Drop here, so that the new process never loads the old graphs either.
        for tenant in tenants:
            for space in ALL_SPACES:
                self.index.drop(tenant, space)
        self.index.purge()
        self._in_fresh_process(["rebuild", *tenants])

    def erase_clean(self, tenant: str, segment_ids: Sequence[str]) -> None:
        """Delete these turns' index entries so that their vectors leave the index files
        (``erase``: overwritten in place, then deleted), without rebuilding the tenant's
        collections: a search meanwhile sees every other turn. Then ``purge``: the
        embedded index's database keeps deleted rows in its free pages until vacuumed."""
        if not segment_ids:
            return
        try:
            self.index.erase(tenant, SegmentEntries.spaces, segment_ids)
            self.index.purge()
        except StoreError:
            raise  # typed already (an index away leaves the forget pending)
        except Exception as exc:
            raise StoreError(
                "clearing the index after a forget failed; the catalog and audio are already "
                f"erased, run `voxmem rebuild` to finish. Details: {type(exc).__name__}: {exc}"
            ) from exc

    def _in_fresh_process(self, args: list[str]) -> None:
        # letting go writes out what this process held (Chroma does it in the background,
        # into the dropped collections' folders too): wait for it, so that the new
        # process's purge finds those folders
        self.index.release(settle=True)
        index_path = getattr(self.index, "path", self.root / "chroma")
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "voxmem.memory.rebuild_child",
                str(self.root),
                str(index_path),
                *args,
            ],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
            timeout=3600,
            env={
                **{k: v for k, v in os.environ.items() if not k.startswith("VOXMEM_CATALOG__")},
                **self.catalog.child_env(),
            },
        )
        if proc.returncode != 0:
            raise StoreError(
                "clearing the index after a forget failed; the catalog and audio are already "
                f"erased, run `voxmem rebuild` to finish. Details: {proc.stderr.strip()[-500:]}"
            )

    def index_unindexed(self) -> int:
        """Index the turns stored while the index was failing; how many."""
        total = 0
        for tenant, ids in self.catalog.unindexed().items():
            total += SegmentEntries().put(self.catalog, self.index, tenant, set(ids))
            with self.catalog.write() as tx:
                tx.clear_unindexed(ids)
        return total

    def verify(self, repair: bool = True) -> VerifyReport:
        """Compare catalog, audio files and index; with ``repair``, fix what differs
        (unfinished forgets are the caller's to finish before)."""
        report = VerifyReport(unfinished_forgets=len(self.catalog.forget_jobs()))
        if repair:
            self.index_unindexed()
        # What is read first matters while others write: a turn's FLAC file is written
        # before its catalog row commits, and its index entries after. So the files and the
        # index are listed before the catalog is read: whatever they held that is not in
        # the catalog read after them is a leftover, never a turn still being stored.
        stored = self.files.stored()
        tenants = set(self.catalog.live_ids()) | self.index.tenants()
        for tenant in sorted(tenants):
            for source in SOURCES:
                have_all = {space: self.index.ids(tenant, space) for space in source.spaces}
                live_now = self.catalog.has_tenant(tenant)
                wanted = (
                    source.wanted(self.catalog, tenant)
                    if live_now
                    else {s: set() for s in source.spaces}
                )
                for space, want in wanted.items():
                    have = have_all[space]
                    missing, extra = want - have, have - want
                    report.missing_in_index[space] = report.missing_in_index.get(space, 0) + len(
                        missing
                    )
                    report.extra_in_index[space] = report.extra_in_index.get(space, 0) + len(extra)
                    if repair and extra:
                        self.index.delete(tenant, space, extra)
                    if repair and missing:
                        source.put(self.catalog, self.index, tenant, missing)
        live = self.catalog.live_ids()
        expected = {(t, i) for t, ids in live.items() for i in ids}
        report.missing_audio = sorted(i for _, i in expected - set(self.files.stored()))
        # a clip written moments ago may belong to an ingest whose row is not committed yet
        cutoff = time.time() - IN_FLIGHT_S
        orphans = {
            key for key, written in stored.items() if key not in expected and written < cutoff
        }
        report.orphan_audio = len(orphans)
        if repair:
            for tenant, segment_id in sorted(orphans):
                self.files.erase(tenant, segment_id)
            self.files.remove_temporaries(older_than=cutoff)
        report.repaired = repair
        return report
