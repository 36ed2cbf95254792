"""What one agent turn streams out, and how a caller steers it (barge-in)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass, field
from typing import Any

from voxmem.agent.respond import RecalledTurn


@dataclass(frozen=True)
class Heard:
    """Perception of the user's turn: what was said, by whom, how and where."""

    transcript: str
    speaker_id: str | None
    speaker_name: str | None
    style: dict[str, float] = field(default_factory=dict)
    environment: dict[str, float] = field(default_factory=dict)
    #: (start, end) of each speech turn found in the audio, seconds
    spans: list[tuple[float, float]] = field(default_factory=list)
    #: why nothing could be heard (no speech, unreadable audio), else None
    problem: str | None = None


@dataclass(frozen=True)
class Recalled:
    """The memory's answer to the turn's plan."""

    intent: str
    plan: str
    hits: list[RecalledTurn]


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class AudioChunk:
    """Little-endian PCM16 mono at ``sample_rate`` (24 kHz)."""

    pcm: bytes
    sample_rate: int
    #: "tts" (the agent's voice) or "replay" (a stored original clip)
    source: str = "tts"
    segment_id: str | None = None


@dataclass
class TurnResult:
    """Everything one turn did, for the CLI, the server and the benchmarks."""

    tenant: str
    session: str
    turn: int
    transcript: str
    speaker_id: str | None
    speaker_name: str | None
    intent: str
    plan: str
    hits: list[RecalledTurn]
    reply: str
    #: reply audio, PCM16 at 24 kHz (what was synthesised or replayed)
    audio: bytes
    replayed: list[str]
    timings: dict[str, float]
    notes: list[str]
    interrupted: bool = False
    heard: Heard | None = None
    route: dict[str, Any] = field(default_factory=dict)

    @property
    def citations(self) -> list[RecalledTurn]:
        """The recalled turns an answer that used the memory rests on."""
        return list(self.hits) if self.intent in ("recall", "replay") else []


@dataclass(frozen=True)
class TurnDone:
    result: TurnResult


AgentEvent = Heard | Recalled | TextDelta | AudioChunk | TurnDone


class TurnControl:
    """Lets the caller steer a reply that is being spoken.

    ``cancel(played_ms)`` (barge-in) stops synthesis and audio at once; the turn
    still finishes (drain its stream) and the stored agent turn keeps only the first
    ``played_ms`` of the reply's audio (all that was produced, when not given).

    With ``await_playback=True`` the turn waits, before it remembers, until the caller
    says how playback ended: ``played()`` when the listener heard it all,
    ``played(ms)`` when playback stopped at ``ms`` (a client's truncate after the
    reply was sent), or ``cancel``. A live front end that paces audio to its listener
    uses this, so the stored reply is what was heard; it waits at most
    ``playback_timeout_s``, then keeps everything."""

    def __init__(self, await_playback: bool = False, playback_timeout_s: float = 60.0) -> None:
        self._cancelled = threading.Event()
        self._finished = threading.Event()
        self._waiter: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None
        self.await_playback = await_playback
        self.playback_timeout_s = playback_timeout_s
        self.played_ms: float | None = None
        self.reason: str | None = None

    def cancel(self, played_ms: float | None = None, reason: str = "client_cancelled") -> None:
        if played_ms is not None:
            self.played_ms = max(0.0, float(played_ms))
        self.reason = self.reason or reason
        self._cancelled.set()
        self._finish()

    def played(self, played_ms: float | None = None) -> None:
        """Playback ended: all of the reply (no argument) or its first ``played_ms``."""
        if played_ms is not None:
            self.played_ms = max(0.0, float(played_ms))
        self._finish()

    def _finish(self) -> None:
        self._finished.set()
        if self._waiter is not None:
            loop, event = self._waiter
            with contextlib.suppress(RuntimeError):  # its loop has closed
                loop.call_soon_threadsafe(event.set)

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    async def wait_playback(self) -> None:
        """Wait (holding no thread) until playback is reported, at most the timeout."""
        if not self.await_playback or self._finished.is_set():
            return
        event = asyncio.Event()
        self._waiter = (asyncio.get_running_loop(), event)
        if self._finished.is_set():
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), self.playback_timeout_s)


__all__ = [
    "AgentEvent",
    "AudioChunk",
    "Heard",
    "Recalled",
    "TextDelta",
    "TurnControl",
    "TurnDone",
    "TurnResult",
]
