"""Speakers across sessions: per-tenant voiceprints that new turns are matched to.

Matching, naming, enrolling, merging, splitting and keeping centroids up to date,
all on the catalog's write transaction (so two ingests of one new voice cannot
both create a speaker), with no SQL of their own.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from voxmem.memory.protocols import CatalogWrite, SegmentFilter
from voxmem.memory.records import Speaker, StoreError, UnknownSegment


@dataclass(frozen=True)
class SpeakerParams:
    """Tunable settings of speaker matching, in one place."""

    #: cosine similarity to a known speaker's centroid above which a turn is theirs
    match_threshold: float = 0.65
    #: turns shorter than this update no centroid (their voiceprints are unreliable)
    min_update_seconds: float = 1.0


def unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, np.float32)
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


def new_speaker(tenant: str, centroid: np.ndarray, name: str | None = None, n: int = 0) -> Speaker:
    now = time.time()
    return Speaker(f"spk_{uuid.uuid4().hex[:12]}", tenant, name, unit(centroid), n, now, now)


def best_match(
    known: Sequence[Speaker], voiceprint: np.ndarray, params: SpeakerParams
) -> Speaker | None:
    """The known speaker whose centroid is closest, if close enough."""
    v = unit(voiceprint)
    known = [s for s in known if s.centroid.shape == v.shape]
    if not known:
        return None
    sims = np.stack([s.centroid for s in known]) @ v
    best = int(np.argmax(sims))
    return known[best] if float(sims[best]) >= params.match_threshold else None


def match_or_create(
    tx: CatalogWrite,
    tenant: str,
    voiceprint: np.ndarray,
    seconds: float,
    params: SpeakerParams,
    known: list[Speaker] | None = None,
) -> str:
    """The id of the known speaker this voiceprint belongs to, or of a new one.

    ``known``: the tenant's speakers as read earlier in this transaction, kept up to
    date here (a new speaker is appended, a matched one updated in place), so a batch
    of turns reads the speakers once rather than once per turn."""
    known = tx.speakers(tenant) if known is None else known
    match = best_match(known, voiceprint, params)
    if match is None:
        spk = new_speaker(tenant, voiceprint, n=1)
        tx.put_speaker(spk)
        known.append(spk)
        return spk.id
    if seconds >= params.min_update_seconds:
        n = match.n_segments
        match.centroid = unit(match.centroid * n + unit(voiceprint)) if n else unit(voiceprint)
        match.n_segments, match.updated_at = n + 1, time.time()
        tx.put_speaker(match)
    return match.id


def print_sums(tx: CatalogWrite, speaker_ids: Sequence[str]) -> dict[str, tuple[np.ndarray, int]]:
    """Per speaker: the sum of its live turns' voiceprints and how many (see
    :func:`space_sums`)."""
    return space_sums(tx, "speaker", speaker_ids)


def space_sums(
    tx: CatalogWrite, space: str, speaker_ids: Sequence[str]
) -> dict[str, tuple[np.ndarray, int]]:
    """Per speaker: the sum of its live turns' ``space`` vectors (a space the catalog
    sums) and how many. The catalog keeps them as turns come and go; a speaker from an
    older catalog is summed from its turns once (one pass for all of them) and its sum
    kept from then on."""
    sums = tx.space_sums(space, speaker_ids)
    unknown = [i for i, (total, _) in sums.items() if total is None]
    out = {i: (t, n) for i, (t, n) in sums.items() if t is not None}
    for spk_id, rows in (tx.space_vectors_of(space, unknown) if unknown else {}).items():
        total = np.sum(np.asarray(rows, np.float64), axis=0) if rows else np.zeros(0)
        tx.set_space_sum(space, spk_id, total, len(rows))
        out[spk_id] = (total, len(rows))
    return out


def recompute_centroid(
    tx: CatalogWrite, speaker: Speaker, summed: tuple[np.ndarray, int] | None = None
) -> Speaker:
    """Centroid = normalised mean of the speaker's live segment voiceprints (if any);
    ``summed``: their sum and count, read already (see ``print_sums``)."""
    total, n = print_sums(tx, [speaker.id])[speaker.id] if summed is None else summed
    if n > 0:
        speaker.centroid = unit(total / n)
    speaker.n_segments, speaker.updated_at = n, time.time()
    tx.put_speaker(speaker)
    return speaker


def check_name(tx: CatalogWrite, tenant: str, name: object, speaker_id: str | None) -> str:
    """A usable new name: not empty, not another speaker's name or id."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError("a speaker's name must be a non-empty string")
    for other in tx.speakers(tenant):
        if other.id != speaker_id and name in (other.name, other.id):
            raise StoreError(
                f"tenant {tenant!r} already has a speaker named {name!r} "
                f"({other.id}); merge them or choose another name"
            )
    return name


def name(tx: CatalogWrite, tenant: str, speaker: str, new_name: str) -> Speaker:
    spk = tx.speaker(tenant, speaker)
    spk.name = check_name(tx, tenant, new_name, spk.id)
    spk.updated_at = time.time()
    tx.put_speaker(spk)
    return spk


def enroll(tx: CatalogWrite, tenant: str, new_name: str, voice: np.ndarray) -> Speaker:
    """Create (or refine) the speaker called ``new_name`` from a voiceprint."""
    known = [s for s in tx.speakers(tenant) if s.name == new_name]
    if not known:
        spk = new_speaker(tenant, voice, check_name(tx, tenant, new_name, None))
    else:
        spk = known[0]
        spk.centroid, spk.updated_at = unit(spk.centroid + unit(voice)), time.time()
    tx.put_speaker(spk)
    return spk


def merge(tx: CatalogWrite, tenant: str, keep: str, other: str) -> tuple[Speaker, list[str]]:
    """Fold ``other`` into ``keep``; returns the merged speaker and the moved segments."""
    a, b = tx.speaker(tenant, keep), tx.speaker(tenant, other)
    if a.id == b.id:
        return a, []
    moved = tx.segment_ids(tenant, SegmentFilter(speaker_id=b.id))
    tx.set_speaker(moved, a.id)
    tx.delete_speaker(b.id)
    if a.name is None and b.name is not None:
        a.name = b.name
    return recompute_centroid(tx, a), moved


def split(
    tx: CatalogWrite, tenant: str, speaker: str, segment_ids: Sequence[str], new_name: str | None
) -> Speaker:
    """Move ``segment_ids`` of ``speaker`` to a new speaker; both centroids recomputed."""
    src = tx.speaker(tenant, speaker)
    owned = set(tx.segment_ids(tenant, SegmentFilter(speaker_id=src.id)))
    missing = [s for s in segment_ids if s not in owned]
    if missing or not segment_ids:
        raise UnknownSegment(
            f"speaker {speaker!r} has no segment(s) {', '.join(missing) or '(none given)'}"
        )
    if new_name is not None:
        check_name(tx, tenant, new_name, None)
    new = new_speaker(tenant, src.centroid, new_name)
    tx.put_speaker(new)
    tx.set_speaker(list(segment_ids), new.id)
    recompute_centroid(tx, src)
    return recompute_centroid(tx, new)
