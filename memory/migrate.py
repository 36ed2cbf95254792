"""Copying a memory between engines: from the embedded store (SQLite, FLAC files,
embedded Chroma) to the server engines (PostgreSQL, a Chroma server) and back.

:func:`migrate` copies tenants whole, as the catalog holds them (recordings, speakers
with their names and voiceprints, segments with their ids, transcripts, labels and
vectors, the audio, the LangGraph store's items), writes the target's index from the
copied catalog, then checks the copy: the counts of every kind of row, and for a
sample of turns the vectors' bytes and the decoded audio's hash. Nothing is changed in
the source; a tenant the target already holds is refused, so a copy never mixes with
other turns. Run it while nothing else writes to those tenants.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from voxmem.memory.entries import SOURCES
from voxmem.memory.protocols import SegmentFilter
from voxmem.memory.records import SPACES, StoreError, check_tenant

#: segments read and written per transaction
BATCH = 500


class MigrationError(StoreError, RuntimeError):
    """A copy that cannot start (the target already holds the tenant) or that does not
    check out (counts, vectors or audio differ)."""


@dataclass
class TenantCopy:
    """What was copied of one tenant and how it checked out."""

    tenant: str
    counts: dict[str, int] = field(default_factory=dict)
    sampled: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _shared_engines(source: Any, target: Any) -> str | None:
    """What of the source's storage the target would share, if anything."""
    a, b = source.settings, target.settings
    if a.data_dir.resolve() == b.data_dir.resolve():
        return f"data folder {a.data_dir}"
    if a.chroma.url and a.chroma.url == b.chroma.url:
        return f"Chroma server {a.chroma.url}"
    embedded = not a.chroma.url and not b.chroma.url and a.chroma.path and b.chroma.path
    if embedded and Path(a.chroma.path).resolve() == Path(b.chroma.path).resolve():
        return f"Chroma folder {a.chroma.path}"
    url_a = a.catalog.url.get_secret_value() if a.catalog.url else None
    url_b = b.catalog.url.get_secret_value() if b.catalog.url else None
    if url_a and url_a == url_b:
        return "PostgreSQL catalog"
    dir_a, dir_b = a.catalog.audio_dir, b.catalog.audio_dir
    if dir_a and dir_b and Path(dir_a).resolve() == Path(dir_b).resolve():
        return f"audio folder {dir_a}"
    return None


def _counts(memory: Any, tenant: str) -> dict[str, int]:
    catalog = memory.catalog
    return {
        "segments": int(catalog.counts(tenant)["segments"]),
        "speakers": len(catalog.speakers(tenant)),
        "recordings": len(catalog.recordings(tenant)),
        "items": len(catalog.item_rows(tenant)),
    }


def _audio_hash(memory: Any, tenant: str, segment_id: str) -> str:
    samples = np.asarray(memory.files.read(tenant, segment_id).samples, np.float32)
    return hashlib.sha256(samples.tobytes()).hexdigest()


def migrate(
    source: Any,
    target: Any,
    tenants: Sequence[str] | None = None,
    *,
    sample: int = 50,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[TenantCopy]:
    """Copy ``tenants`` (default: all) of ``source`` into ``target`` (two open
    ``AudioMemory`` objects) and check the copies; raises :class:`MigrationError` when
    a copy does not check out (what was copied stays, for a look; forget it there)."""
    names = [check_tenant(t) for t in tenants] if tenants else source.tenants()
    unknown = [t for t in names if not source.catalog.has_tenant(t)]
    if unknown:
        raise MigrationError(f"the source holds no tenant {', '.join(map(repr, unknown))}")
    same = _shared_engines(source, target)
    if same:
        raise MigrationError(
            f"the target uses the source's own {same}; give the target engines of its own"
        )
    taken = [t for t in names if target.catalog.has_tenant(t)]
    if taken:
        raise MigrationError(
            f"the target already holds {', '.join(map(repr, taken))}; forget it there first "
            "(voxmem forget --everything) or leave it out, so copies never mix"
        )
    pending = sorted({j.tenant for j in source.catalog.forget_jobs()} & set(names))
    if pending:
        raise MigrationError(
            f"a forget of {', '.join(map(repr, pending))} is not finished in the source; "
            "finish it first (`voxmem verify`), so that nothing it erases is copied"
        )
    out = []
    for tenant in names:
        try:
            out.append(_copy(source, target, tenant, sample, progress))
        except Exception as exc:
            # no half copy is left behind: what was copied of this tenant is forgotten
            if target.catalog.has_tenant(tenant):
                target.forget(tenant, everything=True)
            raise MigrationError(
                f"copying {tenant!r} failed ({type(exc).__name__}: {exc}); nothing of it was "
                "kept in the target, the source is unchanged"
            ) from exc
    bad = [c for c in out if not c.ok]
    if bad:
        raise MigrationError(
            "the copy does not check out: "
            + "; ".join(f"{c.tenant}: {', '.join(c.problems)}" for c in bad)
        )
    return out


def _copy(
    source: Any,
    target: Any,
    tenant: str,
    sample: int,
    progress: Callable[[str, int, int], None] | None,
) -> TenantCopy:
    src, dst = source.catalog, target.catalog
    dims = src.space_dims()
    encoders = {s: "migrated" for s in dims}
    recordings = src.recordings(tenant)
    speakers = src.speakers(tenant)
    with dst.write() as tx:
        tx.ensure_tenant(tenant, min([r.created_at for r in recordings], default=0.0))
        tx.register_spaces(dims, encoders)
        for rec in recordings:
            tx.add_recording(rec)
        for spk in speakers:
            tx.put_speaker(spk)
        for row in src.item_rows(tenant):
            tx.put_item_row(tenant, row)
    total = int(src.counts(tenant)["segments"])
    # in the order they were stored (their ``rowid``/``seq`` order in the target too)
    ids = [seg.id for seg in src.segments(tenant, vectors=False)]
    done = 0
    for start in range(0, len(ids), BATCH):
        segs = src.segments(tenant, SegmentFilter(ids=ids[start : start + BATCH]))
        for seg in segs:
            target.files.write(source.files.read(tenant, seg.id), tenant, seg.id)
        with dst.write() as tx:
            for seg in segs:
                tx.add_segment(seg, target.files.relative(tenant, seg.id))
        done += len(segs)
        if progress is not None:
            progress(tenant, done, total)
    # the index from the copied catalog, as a rebuild writes it
    for source_kind in SOURCES:
        source_kind.put(dst, target.index, tenant, None)
    copy = TenantCopy(tenant, _counts(source, tenant))
    got = _counts(target, tenant)
    for kind, n in copy.counts.items():
        if got.get(kind) != n:
            copy.problems.append(f"{kind}: {n} in the source, {got.get(kind)} copied")
    indexed = {space: target.index.ids(tenant, space) for space in SPACES}
    for space, have in indexed.items():
        if len(have) != len(ids):
            copy.problems.append(f"{space} index: {len(have)} entries for {len(ids)} turns")
    picks = np.random.default_rng(0).permutation(len(ids))[:sample]
    for i in sorted(int(p) for p in picks):
        seg_id = ids[i]
        a = src.segments(tenant, SegmentFilter(ids=[seg_id]))
        b = dst.segments(tenant, SegmentFilter(ids=[seg_id]))
        if not b:
            copy.problems.append(f"segment {seg_id} missing")
            continue
        va, vb = a[0].vectors, b[0].vectors
        if set(va) != set(vb) or any(va[s].tobytes() != vb[s].tobytes() for s in va):
            copy.problems.append(f"segment {seg_id}: vectors differ")
        if _audio_hash(source, tenant, seg_id) != _audio_hash(target, tenant, seg_id):
            copy.problems.append(f"segment {seg_id}: audio differs")
        if any(seg_id not in have for have in indexed.values()):
            copy.problems.append(f"segment {seg_id}: not in every index space")
        copy.sampled += 1
    return copy


__all__ = ["MigrationError", "TenantCopy", "migrate"]
