"""What the memory stores: recordings, their segments (speaker turns), and speakers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from voxmem.errors import VoxmemError

TurnRole = Literal["user", "agent", "unknown"]
ROLES: tuple[str, ...] = ("user", "agent", "unknown")
#: the embedding spaces every segment has a vector in
SPACES: tuple[str, ...] = ("text", "speaker", "style", "environment")
#: kept in the catalog with the segment but not indexed: raw style functionals, from
#: which a speaker's usual way of talking (their style baseline) is averaged
RAW_SPACES: tuple[str, ...] = ("style_raw",)
_TENANT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class StoreError(VoxmemError):
    """Base of the memory's errors."""


class TenantRequired(StoreError, ValueError):
    """A call that did not name a valid tenant."""


class UnknownTenant(StoreError, KeyError):
    """A tenant with nothing stored."""

    def __str__(self) -> str:
        return str(self.args[0])


class UnknownSpeaker(StoreError, KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


class UnknownSegment(StoreError, KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


class UnknownSession(StoreError, KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


class WrongDimension(StoreError, ValueError):
    """A vector whose length does not match its space."""


class SchemaTooNew(StoreError, RuntimeError):
    """A data directory written by a newer voxmem."""


class MemoryClosed(StoreError, RuntimeError):
    """A call on a memory after ``close()``."""


class IndexUnavailable(StoreError, RuntimeError):
    """The Chroma server cannot be reached, or the embedded index cannot be opened."""


class IndexDamaged(IndexUnavailable):
    """The embedded index's files are damaged; the catalog can rebuild it."""


class CatalogBusy(StoreError, RuntimeError):
    """The catalog's files could not be scrubbed because other readers kept them busy."""


class IndexPending(StoreError, RuntimeError):
    """Turns that are stored in the catalog (with their audio) but not yet in the index,
    because the index failed. They are not lost and must not be stored again: they are
    indexed when the memory is next opened or verified."""

    def __init__(self, message: str, segments: list[Segment]) -> None:
        super().__init__(message)
        self.segments = segments


class ForgetPending(StoreError, RuntimeError):
    """A forget that is recorded (its turns are no longer read back) but not finished,
    because the index or the catalog's files were unavailable. It finishes when the same
    forget is asked again, when the memory is next opened, or on ``verify``."""

    def __init__(self, message: str, job: str, segments: int) -> None:
        super().__init__(message)
        self.job = job
        self.segments = segments


def check_tenant(tenant: object) -> str:
    """The tenant id, or TenantRequired saying what a valid one looks like."""
    if not isinstance(tenant, str) or not tenant:
        raise TenantRequired(
            "every read and write names a tenant: pass tenant='...' (letters, "
            "digits, '_', '.', '-', up to 64 characters)"
        )
    if not _TENANT.fullmatch(tenant):
        raise TenantRequired(
            f"tenant {tenant!r} is not a valid id: use letters, digits, "
            "'_', '.', '-', starting with a letter or digit, up to 64 characters"
        )
    return tenant


def check_role(role: str) -> str:
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
    return role


@dataclass(frozen=True)
class Word:
    text: str
    start: float
    end: float
    probability: float = 1.0


def words_within(words: Sequence[Word], start: float, end: float) -> list[Word]:
    """``words`` with their times kept within ``start``..``end``, the span of the turn
    they belong to: its clip is all that is stored of it, so a word straddling an edge
    (or decoded past the clip's end) starts or ends at the edge."""
    out = []
    for w in words:
        a = min(max(float(w.start), start), end)
        out.append(Word(w.text, a, max(min(float(w.end), end), a), w.probability))
    return out


@dataclass(eq=False)
class Segment:
    """One speaker turn. Times are seconds from the start of its recording."""

    id: str
    tenant: str
    session: str
    recording_id: str
    start: float
    end: float
    role: str = "unknown"
    speaker_id: str | None = None
    transcript: str = ""
    words: list[Word] = field(default_factory=list)
    language: str | None = None
    style_labels: dict[str, float] = field(default_factory=dict)
    environment_labels: dict[str, float] = field(default_factory=dict)
    vectors: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    created_at: float = 0.0

    @property
    def duration(self) -> float:
        return self.end - self.start

    def top_style(self) -> str | None:
        return (
            max(self.style_labels, key=self.style_labels.__getitem__) if self.style_labels else None
        )


@dataclass
class Recording:
    id: str
    tenant: str
    session: str
    source: str
    duration: float
    created_at: float


@dataclass(eq=False)
class Speaker:
    """A voice known to one tenant, across sessions."""

    id: str
    tenant: str
    name: str | None
    centroid: np.ndarray = field(repr=False)
    n_segments: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0


@dataclass(eq=False)
class NewSegment:
    """One already-encoded turn for ``AudioMemory.add_segments``."""

    audio: Any
    transcript: str
    vectors: dict[str, np.ndarray]
    role: str = "unknown"
    sample_rate: int | None = None
    style_labels: dict[str, float] = field(default_factory=dict)
    environment_labels: dict[str, float] = field(default_factory=dict)
