"""One response: an agent turn run for a session, its events turned into Realtime
server events, barge-in, and what the listener actually heard."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from voxmem.agent.events import AudioChunk, Heard, Recalled, TextDelta, TurnControl, TurnDone
from voxmem.server import events as ev
from voxmem.server.audio import chunk_pcm, pcm_ms

if TYPE_CHECKING:
    from voxmem.agent.agent import VoiceAgent
    from voxmem.agent.events import TurnResult

log = logging.getLogger("voxmem.server")

#: the longest audio delta sent; longer agent chunks are cut (Realtime sends 100-200 ms)
MAX_DELTA_MS = 200
DELTA_MS = 160


@dataclass
class TurnInput:
    """What a response answers: the user's audio or text, plus earlier unanswered
    items to take in first (audio the user said, text the assistant said)."""

    item: ev.Item
    audio: bytes | None = None
    rate: int = 24_000
    text: str | None = None
    #: (role, audio PCM16 or None, text or None) taken in without an answer, in order
    before: list[tuple[str, bytes | None, str | None]] = field(default_factory=list)
    #: wall time (perf_counter) when the user stopped speaking, if known
    speech_end: float | None = None
    #: wall time the turn was committed
    committed: float = 0.0
    #: the agent's Listener that heard ``audio`` while it was spoken (the turn's audio)
    listener: Any = None


Send = Callable[[ev.ServerEvent], Awaitable[None]]


class ResponseRun:
    """Runs one agent turn and streams it out as a Realtime response."""

    def __init__(
        self,
        agent: VoiceAgent,
        tenant: str,
        conversation: str,
        turn: TurnInput,
        send: Send,
        *,
        modalities: list[str],
        truncate_wait_ms: int,
        playback_lead_ms: int = 500,
        after: asyncio.Task[Any] | None = None,
    ) -> None:
        self.agent, self.tenant, self.conversation = agent, tenant, conversation
        self.turn, self._send = turn, send
        self.response = ev.Response(output_modalities=list(modalities))
        self.item = ev.Item(role="assistant", status="in_progress")
        self.control = TurnControl()
        self.audio_out = "audio" in modalities
        self.truncate_wait_ms = truncate_wait_ms
        self.playback_lead_ms = playback_lead_ms
        self._stopped = asyncio.Event()
        self._after = after
        #: audio delivered to the client, milliseconds, and when the first delta went out
        self.sent_ms = 0.0
        self.first_delta_at: float | None = None
        self.transcript = ""
        self.truncated_ms: int | None = None
        self._truncated = asyncio.Event()
        self.done = False
        self.result: TurnResult | None = None
        self.task: asyncio.Task[None] | None = None

    @property
    def id(self) -> str:
        return self.response.id

    # -- steering ------------------------------------------------------------------------

    def played_estimate_ms(self, now: float | None = None) -> float:
        """What the listener has heard: the client plays deltas in real time from the
        first one, so no more than the wall time since then, nor than what was sent."""
        if self.first_delta_at is None:
            return 0.0
        now = time.perf_counter() if now is None else now
        return min(self.sent_ms, 1000.0 * (now - self.first_delta_at))

    def cancel(self, reason: str) -> None:
        """Stop the reply at once; the turn still finishes and remembers what was heard."""
        if not self.control.cancelled:
            self.control.cancel(self.played_estimate_ms(), reason=reason)
        self._stopped.set()

    def truncate(self, audio_end_ms: int) -> None:
        """The client says the listener heard ``audio_end_ms`` of this reply."""
        self.truncated_ms = audio_end_ms
        if self.control.cancelled:
            self.control.played_ms = float(audio_end_ms)
        else:
            self.control.cancel(float(audio_end_ms), reason="client_cancelled")
        self._truncated.set()
        self._stopped.set()

    # -- the run -------------------------------------------------------------------------

    def start(self) -> asyncio.Task[None]:
        self.task = asyncio.create_task(self._run(), name=f"response {self.id}")
        return self.task

    async def _run(self) -> None:
        if self._after is not None:
            # turns of one session answer in order
            await asyncio.gather(self._after, return_exceptions=True)
        status, details_error = "completed", None
        try:
            await self._take_in_earlier()
            await self._stream()
        except asyncio.CancelledError:
            self.done = True  # torn down with its connection: nobody to tell
            raise
        except Exception as exc:
            log.exception("response %s failed", self.id)
            status = "failed"
            details_error = {"type": "server_error", "code": "agent_failed", "message": str(exc)}
            await self._send(
                ev.ErrorEvent(
                    error=ev.ErrorDetail(
                        type="server_error", code="agent_failed", message=f"the turn failed: {exc}"
                    )
                )
            )
        self.done = True
        await self._finish(status, details_error)

    async def _take_in_earlier(self) -> None:
        for role, audio, text in self.turn.before:
            if role == "user" and audio is not None:
                await self.agent.observe(
                    self.tenant,
                    self.conversation,
                    audio=_samples(audio),
                    sample_rate=self.turn.rate,
                    role="user",
                )
            elif role == "assistant" and text:
                await self.agent.observe(self.tenant, self.conversation, text=text, role="agent")

    async def _stream(self) -> None:
        t = self.turn
        audio: Any = None
        if t.listener is not None:
            audio = t.listener
        elif t.audio is not None:
            audio = _samples(t.audio)
        stream = self.agent.stream(
            self.tenant,
            self.conversation,
            audio=audio,
            text=t.text,
            sample_rate=t.rate if t.audio is not None and t.listener is None else None,
            control=self.control,
        )
        started = False
        waited = False
        events = stream.__aiter__()
        while True:
            # Hold the turn while the listener is still far behind: the next pull may
            # let the turn store its reply, which should keep only what was heard.
            await self._pace()
            try:
                event = await events.__anext__()
            except StopAsyncIteration:
                break
            if self.control.cancelled and not waited:
                waited = True
                await self._wait_for_truncate()
            if isinstance(event, Heard):
                if t.audio is not None:
                    await self._heard(event)
            elif isinstance(event, Recalled):
                if event.hits or event.intent in ("recall", "replay"):
                    await self._send(
                        ev.RetrievalCompleted(
                            response_id=self.id,
                            item_id=t.item.id,
                            intent=event.intent,
                            plan=event.plan,
                            hits=[ev.RecalledHit(**h.to_dict()) for h in event.hits],
                        )
                    )
            elif isinstance(event, TextDelta):
                if not started:
                    started = True
                    await self._open_item()
                self.transcript += event.text
                if self.control.cancelled:
                    continue
                delta_cls = ev.AudioTranscriptDelta if self.audio_out else ev.TextDelta
                await self._send(
                    delta_cls(response_id=self.id, item_id=self.item.id, delta=event.text)
                )
            elif isinstance(event, AudioChunk):
                if not started:
                    started = True
                    await self._open_item()
                if self.audio_out and not self.control.cancelled:
                    await self._audio(event.pcm, event.sample_rate)
            elif isinstance(event, TurnDone):
                self.result = event.result

    async def _pace(self) -> None:
        while self.audio_out and self.first_delta_at is not None and not self.control.cancelled:
            ahead = self.sent_ms - self.played_estimate_ms()
            if ahead <= self.playback_lead_ms:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopped.wait(), (ahead - self.playback_lead_ms) / 1000)

    async def _wait_for_truncate(self) -> None:
        """After a barge-in, give the client a moment to say how much it played
        (``conversation.item.truncate``) before the turn stores the reply's audio."""
        if self._truncated.is_set() or self.truncate_wait_ms <= 0:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._truncated.wait(), self.truncate_wait_ms / 1000)

    async def _heard(self, heard: Heard) -> None:
        t = self.turn
        if heard.problem:
            t.item.status = "incomplete"
            await self._send(
                ev.TranscriptionFailed(
                    item_id=t.item.id,
                    error=ev.ErrorDetail(
                        type="invalid_request_error", code="no_speech", message=heard.problem
                    ),
                )
            )
        else:
            await self._send(
                ev.TranscriptionCompleted(
                    item_id=t.item.id,
                    transcript=heard.transcript,
                    usage={
                        "type": "duration",
                        "seconds": round(pcm_ms(len(t.audio or b""), t.rate) / 1000, 3),
                    },
                    speaker_id=heard.speaker_id,
                    speaker_name=heard.speaker_name,
                    style={k: round(float(v), 4) for k, v in heard.style.items()},
                    environment={k: round(float(v), 4) for k, v in heard.environment.items()},
                    segments=[{"start": float(a), "end": float(b)} for a, b in heard.spans],
                )
            )
        t.item.content = [ev.ContentPart(type="input_audio", transcript=heard.transcript)]
        await self._send(ev.ItemDone(previous_item_id=None, item=t.item))

    async def _open_item(self) -> None:
        self.response.output = [self.item]
        await self._send(ev.OutputItemAdded(response_id=self.id, item=self.item))
        await self._send(ev.ItemAdded(previous_item_id=self.turn.item.id, item=self.item))
        kind = "output_audio" if self.audio_out else "output_text"
        await self._send(
            ev.ContentPartAdded(
                response_id=self.id, item_id=self.item.id, part=ev.ContentPart(type=kind)
            )
        )

    async def _audio(self, pcm: bytes, rate: int) -> None:
        pieces = [pcm] if pcm_ms(len(pcm), rate) <= MAX_DELTA_MS else chunk_pcm(pcm, rate, DELTA_MS)
        for piece in pieces:
            if self.control.cancelled:
                return
            if self.first_delta_at is None:
                self.first_delta_at = time.perf_counter()
            self.sent_ms += pcm_ms(len(piece), rate)
            await self._send(
                ev.AudioDelta(
                    response_id=self.id,
                    item_id=self.item.id,
                    delta=base64.b64encode(piece).decode("ascii"),
                )
            )

    async def _finish(self, status: str, error: dict[str, Any] | None) -> None:
        result = self.result
        reason = None
        if self.control.cancelled and status == "completed":
            status, reason = "cancelled", self.control.reason
        heard_text = (
            result.reply if result is not None and self.control.cancelled else self.transcript
        )
        ids = {"response_id": self.id, "item_id": self.item.id}
        if self.response.output:
            if self.audio_out:
                part = ev.ContentPart(type="output_audio", transcript=heard_text.strip())
                await self._send(ev.AudioDone(**ids))
                await self._send(ev.AudioTranscriptDone(**ids, transcript=heard_text.strip()))
            else:
                part = ev.ContentPart(type="output_text", text=heard_text.strip())
                await self._send(ev.TextDone(**ids, text=heard_text.strip()))
            await self._send(ev.ContentPartDone(**ids, part=part))
            self.item.status = "completed" if status == "completed" else "incomplete"
            self.item.content = [part]
            await self._send(ev.OutputItemDone(response_id=self.id, item=self.item))
            await self._send(ev.ItemDone(previous_item_id=self.turn.item.id, item=self.item))
        self.response.status = status
        self.response.status_details = ev.StatusDetails(
            type=status,
            reason=reason,
            error=error,
        )
        self.response.voxmem = self._report(result)
        await self._send(ev.ResponseDone(response=self.response))

    def _report(self, result: TurnResult | None) -> dict[str, Any]:
        t = self.turn
        latency: dict[str, float] = {}
        if self.first_delta_at is not None:
            latency["commit_to_first_audio_ms"] = round(
                1000 * (self.first_delta_at - t.committed), 1
            )
            if t.speech_end is not None:
                latency["speech_end_to_first_audio_ms"] = round(
                    1000 * (self.first_delta_at - t.speech_end), 1
                )
        if t.speech_end is not None:
            latency["speech_end_to_commit_ms"] = round(1000 * (t.committed - t.speech_end), 1)
        out: dict[str, Any] = {
            "conversation": self.conversation,
            "latency": latency,
            "sent_audio_ms": round(self.sent_ms, 1),
        }
        if self.control.cancelled:
            out["played_ms"] = (
                round(self.control.played_ms, 1) if self.control.played_ms is not None else None
            )
        if result is not None:
            out.update(
                turn=result.turn,
                intent=result.intent,
                plan=result.plan,
                timings={k: v for k, v in result.timings.items() if isinstance(v, (int, float))},
                notes=list(result.notes),
                replayed=list(result.replayed),
            )
        return out


def _samples(pcm: bytes) -> np.ndarray:
    return np.frombuffer(pcm, "<i2").astype(np.float32) / 32768.0
