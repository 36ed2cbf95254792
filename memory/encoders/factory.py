"""Build the encoder each role's settings name, with its resolved weights."""

from __future__ import annotations

from voxmem.errors import ModelUnavailable
from voxmem.memory.encoders.asr import WhisperTranscriber
from voxmem.memory.encoders.base import AudioEncoder, TextEncoder
from voxmem.models import resolve
from voxmem.settings import Role, Settings


def speaker_encoder(settings: Settings) -> AudioEncoder:
    model = resolve(Role.SPEAKER, settings)
    if model.backend == "voicefilter-dvector":
        from voxmem.memory.encoders.speaker import DVectorEncoder

        return DVectorEncoder(model, settings.threads)
    raise ModelUnavailable(
        Role.SPEAKER,
        f"backend {model.backend!r} has no encoder yet",
        "set VOXMEM_SPEAKER__BACKEND=voicefilter-dvector",
    )


def text_encoder(settings: Settings) -> TextEncoder:
    model = resolve(Role.TEXT, settings)
    if model.backend == "minilm":
        from voxmem.memory.encoders.text import MiniLMEncoder

        return MiniLMEncoder(model, settings.threads)
    raise ModelUnavailable(
        Role.TEXT,
        f"backend {model.backend!r} has no encoder yet",
        "set VOXMEM_TEXT__BACKEND=minilm",
    )


def transcriber(settings: Settings) -> WhisperTranscriber:
    return WhisperTranscriber(resolve(Role.ASR, settings), settings.threads)


def environment_encoder(settings: Settings) -> AudioEncoder:
    model = resolve(Role.ENVIRONMENT, settings)
    if model.backend == "yamnet":
        from voxmem.memory.encoders.environment import YamnetEnvironmentEncoder

        return YamnetEnvironmentEncoder(model, settings.threads)
    raise ModelUnavailable(
        Role.ENVIRONMENT,
        f"backend {model.backend!r} has no encoder yet",
        "set VOXMEM_ENVIRONMENT__BACKEND=yamnet",
    )
