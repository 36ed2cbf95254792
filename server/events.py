"""The websocket protocol: a compatible subset of the OpenAI Realtime API (GA event
names) plus voxmem's own ``memory.*`` events, as pydantic models in one place.

Client events are validated strictly (a string where a number belongs is an error,
not a number) by :func:`parse_client_event`, which turns every way a message can be
wrong into a :class:`ProtocolError` carrying the Realtime error fields. Server
events are models too; :meth:`ServerEvent.wire` is what goes on the socket.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import json
import os
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
)

#: input rates the server takes: the Realtime standard and our 16 kHz extension
INPUT_RATES = (24_000, 16_000)
OUTPUT_RATE = 24_000

_counter = itertools.count(1)
_prefix = os.urandom(3).hex()


def new_id(kind: str) -> str:
    """A short id unique within this process (``event_...``, ``item_...``, ``resp_...``)."""
    return f"{kind}_{_prefix}{next(_counter):07d}"


class ProtocolError(Exception):
    """A client event the server cannot act on; becomes an ``error`` event."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        param: str | None = None,
        event_id: str | None = None,
        type: str = "invalid_request_error",
    ) -> None:
        super().__init__(message)
        self.code, self.message, self.param = code, message, param
        self.event_id, self.type = event_id, type


# -- client events ----------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class AudioFormatPatch(_Strict):
    type: Literal["audio/pcm"] = "audio/pcm"
    rate: Literal[24000, 16000] = 24000


class TurnDetectionPatch(_Strict):
    type: Literal["server_vad"]
    threshold: float | None = Field(default=None, gt=0, lt=1)
    prefix_padding_ms: int | None = Field(default=None, ge=0, le=10_000)
    silence_duration_ms: int | None = Field(default=None, ge=0, le=10_000)
    create_response: bool | None = None
    interrupt_response: bool | None = None


class InputAudioPatch(_Strict):
    format: AudioFormatPatch | None = None
    #: explicit null means push-to-talk (commit by hand)
    turn_detection: TurnDetectionPatch | None = None


class OutputFormatPatch(_Strict):
    type: Literal["audio/pcm"] = "audio/pcm"
    rate: Literal[24000] = 24000


class OutputAudioPatch(_Strict):
    format: OutputFormatPatch | None = None
    voice: str | None = Field(default=None, max_length=64)


class AudioPatch(_Strict):
    input: InputAudioPatch | None = None
    output: OutputAudioPatch | None = None


class SessionPatch(_Strict):
    type: Literal["realtime"] | None = None
    instructions: str | None = Field(default=None, max_length=20_000)
    output_modalities: list[Literal["audio", "text"]] | None = Field(
        default=None, min_length=1, max_length=1
    )
    audio: AudioPatch | None = None


class _ClientEvent(_Strict):
    event_id: str | None = Field(default=None, max_length=256)


class SessionUpdate(_ClientEvent):
    type: Literal["session.update"]
    session: SessionPatch


class InputAudioBufferAppend(_ClientEvent):
    type: Literal["input_audio_buffer.append"]
    #: base64 PCM16 little-endian mono at the session's input rate, decoded
    audio: bytes

    @field_validator("audio", mode="before")
    @classmethod
    def _decode(cls, value: Any) -> bytes:
        return decode_pcm16(value)


class InputAudioBufferCommit(_ClientEvent):
    type: Literal["input_audio_buffer.commit"]


class InputAudioBufferClear(_ClientEvent):
    type: Literal["input_audio_buffer.clear"]


class ContentPartIn(_Strict):
    type: Literal["input_text", "text", "output_text", "input_audio"]
    text: str | None = Field(default=None, max_length=20_000)
    #: base64 PCM16 at the session's input rate (``input_audio`` parts), decoded
    audio: bytes | None = None

    @field_validator("audio", mode="before")
    @classmethod
    def _decode(cls, value: Any) -> bytes | None:
        return None if value is None else decode_pcm16(value)


class ItemIn(_Strict):
    id: str | None = Field(default=None, max_length=64)
    type: Literal["message"] = "message"
    role: Literal["user", "assistant"]
    content: list[ContentPartIn] = Field(min_length=1, max_length=16)


class ConversationItemCreate(_ClientEvent):
    type: Literal["conversation.item.create"]
    previous_item_id: str | None = None
    item: ItemIn


class ConversationItemTruncate(_ClientEvent):
    type: Literal["conversation.item.truncate"]
    item_id: str = Field(max_length=64)
    content_index: int = Field(ge=0)
    audio_end_ms: int = Field(ge=0)


class ResponseCreate(_ClientEvent):
    type: Literal["response.create"]
    response: dict[str, Any] | None = None


class ResponseCancel(_ClientEvent):
    type: Literal["response.cancel"]
    response_id: str | None = None


ClientEvent = (
    SessionUpdate
    | InputAudioBufferAppend
    | InputAudioBufferCommit
    | InputAudioBufferClear
    | ConversationItemCreate
    | ConversationItemTruncate
    | ResponseCreate
    | ResponseCancel
)
_CLIENT = TypeAdapter[ClientEvent](Annotated[ClientEvent, Field(discriminator="type")])
CLIENT_EVENT_TYPES = tuple(
    sorted(m.model_fields["type"].annotation.__args__[0] for m in ClientEvent.__args__)
)


def decode_pcm16(value: Any) -> bytes:
    """Base64 text -> PCM16 bytes, refusing what is not both."""
    if not isinstance(value, str):
        raise ValueError("audio must be a base64 string")
    try:
        data = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("audio is not valid base64") from None
    if len(data) % 2:
        raise ValueError("audio is not PCM16: an odd number of bytes")
    return data


def parse_client_event(text: str | bytes, max_bytes: int) -> ClientEvent:
    """One client message -> its event, or a :class:`ProtocolError` that says why not."""
    if len(text) > max_bytes:
        raise ProtocolError(
            "message_too_large",
            f"the message is {len(text)} bytes; the limit is {max_bytes} "
            "(send audio in chunks of a few hundred milliseconds)",
        )
    try:
        raw = json.loads(text)
    except ValueError:
        raise ProtocolError("invalid_json", "the message is not valid JSON") from None
    except RecursionError:
        raise ProtocolError(
            "invalid_json",
            "the message nests too deeply to read; no event nests more than a few levels",
        ) from None
    if not isinstance(raw, dict):
        raise ProtocolError("invalid_json", "the message must be a JSON object with a 'type'")
    event_id = raw.get("event_id") if isinstance(raw.get("event_id"), str) else None
    kind = raw.get("type")
    if not isinstance(kind, str):
        raise ProtocolError(
            "missing_required_parameter",
            "every event needs a string 'type'",
            param="type",
            event_id=event_id,
        )
    if kind not in CLIENT_EVENT_TYPES:
        raise ProtocolError(
            "unknown_event_type",
            f"unknown event type {kind[:80]!r}; supported: {', '.join(CLIENT_EVENT_TYPES)}",
            param="type",
            event_id=event_id,
        )
    try:
        return _CLIENT.validate_python(raw)
    except ValidationError as exc:
        raise _validation_error(exc, event_id) from None


def _validation_error(exc: ValidationError, event_id: str | None) -> ProtocolError:
    first = exc.errors(include_url=False)[0]
    loc = [str(p) for p in first["loc"][1:]]  # the first element is the union's tag
    param = ".".join(loc) or None
    kind = first["type"]
    first["msg"] = first["msg"].removeprefix("Value error, ")
    if kind == "missing":
        code, message = "missing_required_parameter", f"missing required parameter {param!r}"
    elif kind.endswith("_type") or kind in ("model_type", "model_attributes_type"):
        code, message = "invalid_type", f"{param}: {first['msg']}"
    else:
        code, message = "invalid_value", f"{param}: {first['msg']}"
    return ProtocolError(code, message, param=param, event_id=event_id)


# -- the session, items and responses as the server describes them -----------------------


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AudioFormat(_Out):
    type: Literal["audio/pcm"] = "audio/pcm"
    rate: int = OUTPUT_RATE


class TurnDetection(_Out):
    type: Literal["server_vad"] = "server_vad"
    threshold: float = 0.5
    prefix_padding_ms: int = 300
    silence_duration_ms: int = 500
    create_response: bool = True
    interrupt_response: bool = True
    idle_timeout_ms: int | None = None


class InputAudio(_Out):
    format: AudioFormat = Field(default_factory=AudioFormat)
    transcription: dict[str, Any] | None = Field(default_factory=lambda: {"model": "voxmem"})
    noise_reduction: None = None
    turn_detection: TurnDetection | None = Field(default_factory=TurnDetection)


class OutputAudio(_Out):
    format: AudioFormat = Field(default_factory=AudioFormat)
    voice: str = "vox"
    speed: float = 1.0


class AudioConfig(_Out):
    input: InputAudio = Field(default_factory=InputAudio)
    output: OutputAudio = Field(default_factory=OutputAudio)


class SessionConfig(_Out):
    """The session as ``session.created`` / ``session.updated`` describe it."""

    type: Literal["realtime"] = "realtime"
    object: Literal["realtime.session"] = "realtime.session"
    id: str = Field(default_factory=lambda: new_id("sess"))
    model: str = "voxmem"
    output_modalities: list[str] = Field(default_factory=lambda: ["audio"])
    instructions: str = ""
    audio: AudioConfig = Field(default_factory=AudioConfig)
    #: ours: whose memory this session uses, and the conversation it resumes
    voxmem: dict[str, Any] = Field(default_factory=dict)

    def updated(self, patch: SessionPatch) -> SessionConfig:
        """This session with the client's partial update applied (validated)."""
        merged = _deep_merge(self.model_dump(), patch.model_dump(exclude_unset=True))
        return SessionConfig.model_validate(merged)

    @property
    def input_rate(self) -> int:
        return self.audio.input.format.rate

    @property
    def turn_detection(self) -> TurnDetection | None:
        return self.audio.input.turn_detection


def _deep_merge(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


class ContentPart(_Out):
    type: Literal["input_audio", "input_text", "output_audio", "output_text"]
    transcript: str | None = None
    text: str | None = None


class Item(_Out):
    id: str = Field(default_factory=lambda: new_id("item"))
    type: Literal["message"] = "message"
    object: Literal["realtime.item"] = "realtime.item"
    status: Literal["completed", "in_progress", "incomplete"] = "completed"
    role: Literal["user", "assistant", "system"]
    content: list[ContentPart] = Field(default_factory=list)


class StatusDetails(_Out):
    type: Literal["completed", "cancelled", "failed", "incomplete"]
    reason: str | None = None
    error: dict[str, Any] | None = None


class Response(_Out):
    id: str = Field(default_factory=lambda: new_id("resp"))
    object: Literal["realtime.response"] = "realtime.response"
    status: Literal["in_progress", "completed", "cancelled", "failed", "incomplete"] = "in_progress"
    status_details: StatusDetails | None = None
    output: list[Item] = Field(default_factory=list)
    output_modalities: list[str] = Field(default_factory=lambda: ["audio"])
    conversation_id: str | None = None
    usage: None = None
    metadata: dict[str, str] | None = None
    #: ours: per-stage seconds, the route the agent took, notes
    voxmem: dict[str, Any] = Field(default_factory=dict)


class RecalledHit(_Out):
    """One recalled turn with the evidence for it (``memory.retrieval.completed``)."""

    turn_id: str
    session: str
    speaker_id: str | None
    speaker_name: str | None
    role: str
    transcript: str
    start: float
    end: float
    created_at: float
    score: float
    evidence: dict[str, Any]


# -- server events ---------------------------------------------------------------------------


class ServerEvent(_Out):
    event_id: str = Field(default_factory=lambda: new_id("event"))
    type: str

    def wire(self) -> str:
        return self.model_dump_json()


class ErrorDetail(_Out):
    type: str
    code: str | None
    message: str
    param: str | None = None
    event_id: str | None = None


class ErrorEvent(ServerEvent):
    type: Literal["error"] = "error"
    error: ErrorDetail

    @classmethod
    def of(cls, exc: ProtocolError) -> ErrorEvent:
        return cls(
            error=ErrorDetail(
                type=exc.type,
                code=exc.code,
                message=exc.message,
                param=exc.param,
                event_id=exc.event_id,
            )
        )


class SessionCreated(ServerEvent):
    type: Literal["session.created"] = "session.created"
    session: SessionConfig


class SessionUpdated(ServerEvent):
    type: Literal["session.updated"] = "session.updated"
    session: SessionConfig


class SpeechStarted(ServerEvent):
    type: Literal["input_audio_buffer.speech_started"] = "input_audio_buffer.speech_started"
    audio_start_ms: int
    item_id: str


class SpeechStopped(ServerEvent):
    type: Literal["input_audio_buffer.speech_stopped"] = "input_audio_buffer.speech_stopped"
    audio_end_ms: int
    item_id: str


class BufferCommitted(ServerEvent):
    type: Literal["input_audio_buffer.committed"] = "input_audio_buffer.committed"
    previous_item_id: str | None
    item_id: str


class BufferCleared(ServerEvent):
    type: Literal["input_audio_buffer.cleared"] = "input_audio_buffer.cleared"


class ItemAdded(ServerEvent):
    type: Literal["conversation.item.added"] = "conversation.item.added"
    previous_item_id: str | None
    item: Item


class ItemDone(ServerEvent):
    type: Literal["conversation.item.done"] = "conversation.item.done"
    previous_item_id: str | None
    item: Item


class ItemTruncated(ServerEvent):
    type: Literal["conversation.item.truncated"] = "conversation.item.truncated"
    item_id: str
    content_index: int
    audio_end_ms: int


class TranscriptionCompleted(ServerEvent):
    type: Literal["conversation.item.input_audio_transcription.completed"] = (
        "conversation.item.input_audio_transcription.completed"
    )
    item_id: str
    content_index: int = 0
    transcript: str
    usage: dict[str, Any]
    #: ours: who spoke (a known speaker's name once named), how and where
    speaker_id: str | None
    speaker_name: str | None
    style: dict[str, float]
    environment: dict[str, float]
    #: speech turns found in the item's audio, seconds from its start
    segments: list[dict[str, float]]


class TranscriptionFailed(ServerEvent):
    type: Literal["conversation.item.input_audio_transcription.failed"] = (
        "conversation.item.input_audio_transcription.failed"
    )
    item_id: str
    content_index: int = 0
    error: ErrorDetail


class ResponseCreated(ServerEvent):
    type: Literal["response.created"] = "response.created"
    response: Response


class ResponseDone(ServerEvent):
    type: Literal["response.done"] = "response.done"
    response: Response


class OutputItemAdded(ServerEvent):
    type: Literal["response.output_item.added"] = "response.output_item.added"
    response_id: str
    output_index: int = 0
    item: Item


class OutputItemDone(ServerEvent):
    type: Literal["response.output_item.done"] = "response.output_item.done"
    response_id: str
    output_index: int = 0
    item: Item


class ContentPartAdded(ServerEvent):
    type: Literal["response.content_part.added"] = "response.content_part.added"
    response_id: str
    item_id: str
    output_index: int = 0
    content_index: int = 0
    part: ContentPart


class ContentPartDone(ServerEvent):
    type: Literal["response.content_part.done"] = "response.content_part.done"
    response_id: str
    item_id: str
    output_index: int = 0
    content_index: int = 0
    part: ContentPart


class _ResponseDelta(ServerEvent):
    response_id: str
    item_id: str
    output_index: int = 0
    content_index: int = 0


class AudioDelta(_ResponseDelta):
    type: Literal["response.output_audio.delta"] = "response.output_audio.delta"
    #: base64 PCM16 at 24 kHz
    delta: str


class AudioDone(_ResponseDelta):
    type: Literal["response.output_audio.done"] = "response.output_audio.done"


class AudioTranscriptDelta(_ResponseDelta):
    type: Literal["response.output_audio_transcript.delta"] = (
        "response.output_audio_transcript.delta"
    )
    delta: str


class AudioTranscriptDone(_ResponseDelta):
    type: Literal["response.output_audio_transcript.done"] = "response.output_audio_transcript.done"
    transcript: str


class TextDelta(_ResponseDelta):
    type: Literal["response.output_text.delta"] = "response.output_text.delta"
    delta: str


class TextDone(_ResponseDelta):
    type: Literal["response.output_text.done"] = "response.output_text.done"
    text: str


class RetrievalCompleted(ServerEvent):
    """Ours: the turns the memory recalled for a response, with their evidence."""

    type: Literal["memory.retrieval.completed"] = "memory.retrieval.completed"
    response_id: str
    item_id: str
    intent: str
    plan: str
    hits: list[RecalledHit]


__all__ = [
    "CLIENT_EVENT_TYPES",
    "INPUT_RATES",
    "OUTPUT_RATE",
    "ClientEvent",
    "ErrorEvent",
    "Item",
    "ProtocolError",
    "Response",
    "ServerEvent",
    "SessionConfig",
    "new_id",
    "parse_client_event",
]
