"""One websocket session: its configuration, input audio and turn taking, the items
of its conversation, and the responses it runs. It holds no agent logic: turns go to
the ``VoiceAgent``, events come back out through a bounded outbox."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from voxmem.server import events as ev
from voxmem.server.audio import InputBuffer, StreamResampler, pcm16_to_float, pcm_ms
from voxmem.server.response import ResponseRun, TurnInput
from voxmem.server.vad import SpeechDetector, StreamingVad, TurnTaking, VadEvent
from voxmem.settings import Settings

if TYPE_CHECKING:
    from voxmem.agent.agent import VoiceAgent

log = logging.getLogger("voxmem.server")

#: items remembered per session for truncate and previous_item_id (oldest forgotten)
ITEMS_KEPT = 256
#: audio kept before speech while idle, beyond the prefix padding, milliseconds
IDLE_SLACK_MS = 200
#: silence kept after speech in a committed turn, at most, milliseconds
TAIL_MS = 200
#: a manual commit needs at least this much audio
MIN_COMMIT_MS = 100


class Outbox:
    """Server events waiting for the socket, bounded. A client that reads nothing for
    ``timeout_s`` while the outbox is full is stalled: ``on_stall`` closes it and later
    events are dropped, so the turn in progress still finishes and remembers. Audio
    of an interrupted reply is dropped here rather than sent."""

    def __init__(
        self, size: int, timeout_s: float, on_stall: Callable[[str], None] | None = None
    ) -> None:
        self.queue: asyncio.Queue[ev.ServerEvent | None] = asyncio.Queue(size)
        self.timeout_s = timeout_s
        self.on_stall = on_stall
        self.stalled = False
        self.silenced: set[str] = set()

    async def put(self, event: ev.ServerEvent) -> None:
        if self.stalled:
            return
        try:
            await asyncio.wait_for(self.queue.put(event), self.timeout_s)
        except TimeoutError:
            self.stalled = True
            if self.on_stall is not None:
                self.on_stall(
                    f"client too slow: no events read for {self.timeout_s:.0f} s "
                    f"with {self.queue.maxsize} waiting"
                )

    def close(self) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)

    def wanted(self, event: ev.ServerEvent) -> bool:
        return not (isinstance(event, ev.AudioDelta) and event.response_id in self.silenced)


class AudioBudget:
    """A token bucket of audio seconds: a burst, then ``rate`` seconds per second."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.level = burst
        self._at = time.monotonic()

    def take(self, seconds: float) -> bool:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self._at) * self.rate)
        self._at = now
        if seconds > self.level:
            return False
        self.level -= seconds
        return True


class RealtimeSession:
    """The protocol state machine of one connection."""

    def __init__(
        self,
        agent: VoiceAgent,
        tenant: str,
        conversation: str,
        settings: Settings,
        detector: Callable[[], SpeechDetector],
    ) -> None:
        self.agent, self.tenant, self.conversation = agent, tenant, conversation
        self.settings = settings
        self.limits = settings.server
        self._make_detector = detector
        s = settings.server
        self.config = ev.SessionConfig(
            audio=ev.AudioConfig(
                input=ev.InputAudio(
                    turn_detection=ev.TurnDetection(
                        threshold=s.vad_threshold,
                        prefix_padding_ms=s.prefix_padding_ms,
                        silence_duration_ms=s.silence_duration_ms,
                    )
                ),
                output=ev.OutputAudio(voice=agent.name.lower()),
            ),
            voxmem={"tenant": tenant, "conversation": conversation},
        )
        self.outbox = Outbox(s.send_queue, s.send_timeout_s)
        self.budget = AudioBudget(s.max_audio_rate, s.audio_burst_seconds)
        self.items: OrderedDict[str, ev.Item] = OrderedDict()
        self.last_item_id: str | None = None
        self.pending: list[tuple[ev.Item, bytes | None, str | None]] = []
        self.runs: OrderedDict[str, ResponseRun] = OrderedDict()
        self.active: ResponseRun | None = None
        self._speech_item: str | None = None
        self._speech_start_ms = 0.0
        #: hears the turn in progress while it is spoken (None when not listening)
        self._listener: Any = None
        #: the listener that heard each pending audio item
        self._listeners: dict[str, Any] = {}
        self.errors = 0
        #: (when the user stopped speaking, when the turn was committed) of the last input
        self._timing: tuple[float | None, float] = (None, 0.0)
        self._reset_audio()

    # -- plumbing ------------------------------------------------------------------------

    async def send(self, event: ev.ServerEvent) -> None:
        await self.outbox.put(event)

    async def error(self, exc: ev.ProtocolError) -> None:
        self.errors += 1
        await self.send(ev.ErrorEvent.of(exc))

    async def start(self) -> None:
        await self.send(ev.SessionCreated(session=self.config))

    def _reset_audio(self) -> None:
        rate = self.config.input_rate
        self.buffer = InputBuffer(rate)
        self.resampler = StreamResampler(rate)
        td = self.config.turn_detection
        self.vad: StreamingVad | None = None
        if td is not None:
            self.vad = StreamingVad(
                self._make_detector(),
                TurnTaking(td.threshold, td.prefix_padding_ms, td.silence_duration_ms),
            )
        self._speech_item = None

    def _remember(self, item: ev.Item) -> None:
        self.items[item.id] = item
        while len(self.items) > ITEMS_KEPT:
            self.items.popitem(last=False)
        self.last_item_id = item.id

    # -- client events -------------------------------------------------------------------

    async def handle(self, message: str | bytes) -> None:
        """One client message; every problem becomes an ``error`` event."""
        try:
            event = ev.parse_client_event(message, self.limits.max_message_bytes)
            await self._dispatch(event)
        except ev.ProtocolError as exc:
            await self.error(exc)

    async def _dispatch(self, event: ev.ClientEvent) -> None:
        eid = event.event_id
        if isinstance(event, ev.SessionUpdate):
            await self._session_update(event)
        elif isinstance(event, ev.InputAudioBufferAppend):
            await self._append(event.audio, eid)
        elif isinstance(event, ev.InputAudioBufferCommit):
            await self._commit_by_hand(eid)
        elif isinstance(event, ev.InputAudioBufferClear):
            self.buffer.clear()
            if self.vad is not None:
                self.vad.turns.speaking = False
            self._speech_item = None
            self._listener = None
            await self.send(ev.BufferCleared())
        elif isinstance(event, ev.ConversationItemCreate):
            await self._item_create(event)
        elif isinstance(event, ev.ConversationItemTruncate):
            await self._truncate(event)
        elif isinstance(event, ev.ResponseCreate):
            if self.active is not None and not self.active.done:
                raise ev.ProtocolError(
                    "conversation_already_has_active_response",
                    f"response {self.active.id} is still in progress; cancel it or wait "
                    "for response.done",
                    event_id=eid,
                )
            if not any(item.role == "user" for item, _, _ in self.pending):
                raise ev.ProtocolError(
                    "no_input",
                    "nothing to answer: commit audio or create a user item first",
                    event_id=eid,
                )
            await self._respond()
        elif isinstance(event, ev.ResponseCancel):
            run = self.active
            if run is None or run.done or (event.response_id and event.response_id != run.id):
                raise ev.ProtocolError(
                    "response_cancel_not_active",
                    "there is no response in progress to cancel",
                    param="response_id" if event.response_id else None,
                    event_id=eid,
                )
            self._stop(run, "client_cancelled")

    async def _session_update(self, event: ev.SessionUpdate) -> None:
        try:
            config = self.config.updated(event.session)
        except ValueError as exc:  # a merged value that does not validate
            raise ev.ProtocolError(
                "invalid_value", f"session: {exc}", param="session", event_id=event.event_id
            ) from None
        rate_changed = config.input_rate != self.config.input_rate
        vad_changed = config.turn_detection != self.config.turn_detection
        if rate_changed and (self.buffer.duration_ms > 0 or any(a for _, a, _ in self.pending)):
            raise ev.ProtocolError(
                "buffer_not_empty",
                "change the input rate with an empty input buffer (commit or clear it first)",
                param="session.audio.input.format.rate",
                event_id=event.event_id,
            )
        self.config = config
        if event.session.instructions is not None:
            self.agent.set_instructions(self.tenant, self.conversation, config.instructions or None)
        if rate_changed or vad_changed:
            kept = self.buffer
            self._reset_audio()
            if not rate_changed:
                self.buffer = kept
        await self.send(ev.SessionUpdated(session=self.config))

    async def _append(self, pcm: bytes, eid: str | None) -> None:
        rate = self.config.input_rate
        seconds = pcm_ms(len(pcm), rate) / 1000
        if not self.budget.take(seconds):
            raise ev.ProtocolError(
                "rate_limited",
                f"audio arrives faster than {self.limits.max_audio_rate:g}x real time; "
                "this chunk was dropped",
                param="audio",
                event_id=eid,
                type="rate_limit_error",
            )
        if (
            self.vad is None
            and self.buffer.duration_ms / 1000 + seconds > self.limits.max_buffer_seconds
        ):
            raise ev.ProtocolError(
                "input_audio_buffer_full",
                f"the input buffer holds {self.limits.max_buffer_seconds:g} s at most; commit "
                "or clear it (this chunk was dropped)",
                param="audio",
                event_id=eid,
            )
        self.buffer.append(pcm)
        if self.vad is None or not pcm:
            return
        vad, resampler = self.vad, self.resampler
        listening = self._listener
        if listening is not None:
            await asyncio.to_thread(listening.feed, pcm)
        events = await asyncio.to_thread(lambda: vad.feed(resampler(pcm16_to_float(pcm))))
        for event in events:
            await self._on_vad(event)
        if not vad.turns.speaking:
            keep = self.config.turn_detection.prefix_padding_ms if self.config.turn_detection else 0
            self.buffer.drop_before(vad.now_ms - keep - IDLE_SLACK_MS)
        elif self.buffer.duration_ms / 1000 > self.limits.max_buffer_seconds:
            # a turn that never pauses: close it here rather than grow without bound
            vad.turns.speaking = False
            await self._on_vad(VadEvent("stopped", vad.now_ms, True), forced=True)

    async def _on_vad(self, event: VadEvent, forced: bool = False) -> None:
        td = self.config.turn_detection
        assert td is not None
        if event.kind == "started":
            self._speech_item = ev.new_id("item")
            self._speech_start_ms = event.at_ms
            if self.limits.listen_while_speaking:
                listener = self.agent.listener(self.tenant, sample_rate=self.config.input_rate)
                await asyncio.to_thread(listener.feed, self.buffer.view(event.at_ms))
                self._listener = listener
            run = self.active
            if td.interrupt_response and run is not None and not run.done:
                self._stop(run, "turn_detected")
            await self.send(
                ev.SpeechStarted(audio_start_ms=int(event.at_ms), item_id=self._speech_item)
            )
            return
        item_id = self._speech_item or ev.new_id("item")
        self._speech_item = None
        listener, self._listener = self._listener, None
        now = time.perf_counter()
        await self.send(ev.SpeechStopped(audio_end_ms=int(event.at_ms), item_id=item_id))
        if not event.is_turn:
            self.buffer.drop_before(event.at_ms)
            return
        end = event.at_ms + (0 if forced else min(TAIL_MS, td.silence_duration_ms))
        pcm = self.buffer.take(self._speech_start_ms, end)
        # the user stopped speaking a silence window before the detector could know
        speech_end = now - (0 if forced else td.silence_duration_ms / 1000)
        await self._commit(pcm, item_id, speech_end=speech_end, committed=now, listener=listener)
        if td.create_response:
            await self._respond()

    async def _commit_by_hand(self, eid: str | None) -> None:
        if self.buffer.duration_ms < MIN_COMMIT_MS:
            raise ev.ProtocolError(
                "input_audio_buffer_commit_empty",
                f"the input buffer holds {self.buffer.duration_ms:.0f} ms of audio; commit "
                f"at least {MIN_COMMIT_MS} ms",
                event_id=eid,
            )
        item_id = self._speech_item or ev.new_id("item")
        self._speech_item = None
        self._listener = None
        if self.vad is not None:
            self.vad.turns.speaking = False
        now = time.perf_counter()
        await self._commit(self.buffer.take(), item_id, speech_end=None, committed=now)
        td = self.config.turn_detection
        if td is not None and td.create_response:
            await self._respond()

    async def _commit(
        self,
        pcm: bytes,
        item_id: str,
        *,
        speech_end: float | None,
        committed: float,
        listener: Any = None,
    ) -> None:
        previous = self.last_item_id
        item = ev.Item(
            id=item_id, role="user", content=[ev.ContentPart(type="input_audio", transcript=None)]
        )
        self._remember(item)
        self.pending.append((item, pcm, None))
        self._listeners[item.id] = listener
        self._timing = (speech_end, committed)
        await self.send(ev.BufferCommitted(previous_item_id=previous, item_id=item_id))
        await self.send(ev.ItemAdded(previous_item_id=previous, item=item))

    async def _item_create(self, event: ev.ConversationItemCreate) -> None:
        it = event.item
        eid = event.event_id
        if it.id is not None and it.id in self.items:
            raise ev.ProtocolError(
                "duplicate_item_id", f"item {it.id!r} already exists", param="item.id", event_id=eid
            )
        if len(self.pending) >= ITEMS_KEPT:
            raise ev.ProtocolError(
                "too_many_pending_items",
                f"{ITEMS_KEPT} items wait for an answer; send response.create first",
                event_id=eid,
            )
        texts = [
            p.text for p in it.content if p.type in ("input_text", "text", "output_text") and p.text
        ]
        audio = [p.audio for p in it.content if p.type == "input_audio" and p.audio]
        if it.role == "assistant" and audio:
            raise ev.ProtocolError(
                "invalid_value",
                "assistant items carry text (the agent speaks it in its own voice)",
                param="item.content",
                event_id=eid,
            )
        if not texts and not audio:
            raise ev.ProtocolError(
                "missing_required_parameter",
                "the item has no text and no audio",
                param="item.content",
                event_id=eid,
            )
        if texts and audio:
            raise ev.ProtocolError(
                "invalid_value",
                "an item is text or audio, not both",
                param="item.content",
                event_id=eid,
            )
        parts = (
            [ev.ContentPart(type="input_audio", transcript=None)]
            if audio
            else [
                ev.ContentPart(
                    type="input_text" if it.role == "user" else "output_text", text="\n".join(texts)
                )
            ]
        )
        item = ev.Item(
            **({"id": it.id} if it.id else {}),
            role="user" if it.role == "user" else "assistant",
            content=parts,
        )
        previous = self.last_item_id
        self._remember(item)
        self.pending.append(
            (item, b"".join(a for a in audio if a) if audio else None, "\n".join(texts) or None)
        )
        self._timing = (None, time.perf_counter())
        await self.send(ev.ItemAdded(previous_item_id=previous, item=item))
        if not audio:
            await self.send(ev.ItemDone(previous_item_id=previous, item=item))

    async def _truncate(self, event: ev.ConversationItemTruncate) -> None:
        eid = event.event_id
        run = next((r for r in self.runs.values() if r.item.id == event.item_id), None)
        if run is None:
            raise ev.ProtocolError(
                "item_not_found",
                f"no assistant item {event.item_id!r} with audio in this session",
                param="item_id",
                event_id=eid,
            )
        if event.content_index != 0:
            raise ev.ProtocolError(
                "invalid_value", "content_index must be 0", param="content_index", event_id=eid
            )
        if event.audio_end_ms > run.sent_ms + 1:
            raise ev.ProtocolError(
                "invalid_value",
                f"audio_end_ms {event.audio_end_ms} is past the {run.sent_ms:.0f} ms of audio sent",
                param="audio_end_ms",
                event_id=eid,
            )
        if not run.done:
            self.outbox.silenced.add(run.id)
            run.truncate(event.audio_end_ms)
        else:
            log.info(
                "truncate of %s after its turn was stored: the stored reply keeps all it sent",
                run.id,
            )
        await self.send(
            ev.ItemTruncated(item_id=run.item.id, content_index=0, audio_end_ms=event.audio_end_ms)
        )

    # -- responses -------------------------------------------------------------------------

    def _stop(self, run: ResponseRun, reason: str) -> None:
        self.outbox.silenced.add(run.id)
        run.cancel(reason)

    async def _respond(self) -> None:
        turn = _turn_input(self.pending, self.config.input_rate)
        if turn is None:
            return  # only assistant text so far: it waits for the user's next turn
        users = [item for item, _, _ in self.pending if item.role == "user"]
        if len(users) == 1 and turn.audio is not None and not turn.before:
            turn.listener = self._listeners.get(users[0].id)
        self.pending = []
        self._listeners.clear()
        turn.speech_end, turn.committed = self._timing
        previous = self.active.task if self.active is not None else None
        run = ResponseRun(
            self.agent,
            self.tenant,
            self.conversation,
            turn,
            self.send,
            modalities=self.config.output_modalities,
            truncate_wait_ms=self.limits.truncate_wait_ms,
            playback_lead_ms=self.limits.playback_lead_ms,
            after=previous,
        )
        self.runs[run.id] = run
        while len(self.runs) > ITEMS_KEPT:
            self.runs.popitem(last=False)
        self.active = run
        self._remember(run.item)
        await self.send(ev.ResponseCreated(response=run.response.model_copy(deep=True)))
        run.start()

    async def aclose(self, timeout: float) -> None:
        """The connection is gone: stop the reply, but let the turn finish remembering."""
        run = self.active
        if run is not None and run.task is not None and not run.task.done():
            self._stop(run, "client_disconnected")
            try:
                await asyncio.wait_for(asyncio.shield(run.task), timeout)
            except TimeoutError:
                log.warning("response %s did not finish within %.0f s of close", run.id, timeout)
        self.outbox.close()


def _turn_input(
    inputs: list[tuple[ev.Item, bytes | None, str | None]], rate: int
) -> TurnInput | None:
    """What one response answers. Unanswered user audio is joined into one turn, and
    so is unanswered user text; with both, the audio is taken in first and the text
    answered. Assistant text is taken in as the agent's own turn."""
    user = [(i, a, t) for i, a, t in inputs if i.role == "user"]
    if not user:
        return None
    texts = [t for _, a, t in user if a is None and t]
    audios = [a for _, a, _ in user if a is not None]
    before: list[tuple[str, bytes | None, str | None]] = [
        ("assistant", None, t) for i, _, t in inputs if i.role == "assistant"
    ]
    last = user[-1][0]
    if texts:
        if audios:
            before.append(("user", b"".join(audios), None))
        return TurnInput(item=last, text="\n".join(texts), rate=rate, before=before)
    return TurnInput(item=last, audio=b"".join(audios), rate=rate, before=before)
