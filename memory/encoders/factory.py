"""Build the encoder each role's settings name, with its resolved weights."""

from __future__ import annotations

from voxmem.errors import ModelUnavailable
from voxmem.memory.encoders.asr import WhisperTranscriber
from voxmem.memory.encoders.base import AudioEncoder, TextEncoder
from voxmem.memory.encoders.diarization import ClusteringDiarizer, Diarizer, PyannoteDiarizer
from voxmem.memory.encoders.style import EgemapsStyleEncoder
from voxmem.memory.encoders.vad import SileroVad
from voxmem.models import resolve
from voxmem.settings import Role, Settings


def _no_backend(role: Role, backend: str, default: str) -> ModelUnavailable:
    """The error for a backend name this role has no implementation of."""
    return ModelUnavailable(
        role,
        f"backend {backend!r} has no implementation for this role yet",
        f"set VOXMEM_{role.value.upper()}__BACKEND={default}",
    )


def speaker_encoder(settings: Settings) -> AudioEncoder:
    model = resolve(Role.SPEAKER, settings)
    if model.backend == "voicefilter-dvector":
        from voxmem.memory.encoders.speaker import DVectorEncoder

        return DVectorEncoder(model, settings.threads)
    if model.backend == "resemblyzer":
        from voxmem.memory.encoders.speaker import ResemblyzerEncoder

        return ResemblyzerEncoder(model, settings.torch_threads)
    if model.backend == "ecapa":
        from voxmem.memory.encoders.speaker import EcapaEncoder

        return EcapaEncoder(
            model, settings.torch_threads, savedir=str(settings.cache_dir / "models" / "ecapa")
        )
    raise _no_backend(Role.SPEAKER, model.backend, "voicefilter-dvector")


def text_encoder(settings: Settings) -> TextEncoder:
    model = resolve(Role.TEXT, settings)
    if model.backend == "minilm":
        from voxmem.memory.encoders.text import MiniLMEncoder

        return MiniLMEncoder(model, settings.torch_threads)
    if model.backend == "e5":
        from voxmem.memory.encoders.text import E5Encoder

        return E5Encoder(model, settings.threads)
    raise _no_backend(Role.TEXT, model.backend, "minilm")


def transcriber(settings: Settings) -> WhisperTranscriber:
    return WhisperTranscriber(
        resolve(Role.ASR, settings), settings.threads, language=settings.asr.language
    )


def reference_transcriber(settings: Settings) -> WhisperTranscriber | None:
    """The transcriber of reference clips when ``asr.reference_variant`` is set: that
    variant's shipped weights (never ``asr.weights``, never a download); None: the ASR's
    own (unset, or the ASR's variant with no weights of the user's)."""
    variant = settings.asr.reference_variant
    if variant is None or (
        variant == (settings.asr.variant or "base") and not settings.asr.weights
    ):
        return None
    asr = settings.asr.model_copy(update={"variant": variant, "weights": None})
    own = settings.model_copy(update={"asr": asr, "allow_downloads": False})
    try:
        return transcriber(own)
    except ModelUnavailable as exc:
        reason = str(exc).split(". To fix:")[0].removeprefix(f"{exc.role}: ")
        raise ModelUnavailable(
            Role.ASR,
            f"reference clips ({variant}): {reason}",
            "set VOXMEM_ASR__REFERENCE_VARIANT to base or tiny.en, whose weights "
            "scripts/setup.sh installs, or unset it",
        ) from exc


def environment_encoder(settings: Settings) -> AudioEncoder:
    model = resolve(Role.ENVIRONMENT, settings)
    if model.backend == "yamnet":
        from voxmem.memory.encoders.environment import YamnetEnvironmentEncoder

        return YamnetEnvironmentEncoder(model, settings.threads)
    raise _no_backend(Role.ENVIRONMENT, model.backend, "yamnet")


def style_encoder(settings: Settings, with_vocal_events: bool = False) -> EgemapsStyleEncoder:
    """The eGeMAPS style encoder; with vocal events, YAMNet scores laughing, crying, ..."""
    model = resolve(Role.STYLE, settings)
    if model.backend != "egemaps":
        raise _no_backend(Role.STYLE, model.backend, "egemaps")
    env = environment_encoder(settings) if with_vocal_events else None
    return EgemapsStyleEncoder(environment=env)


def voice_activity(settings: Settings) -> SileroVad:
    return SileroVad(resolve(Role.VAD, settings))


def diarizer(settings: Settings) -> Diarizer:
    model = resolve(Role.DIARIZATION, settings)
    if model.backend == "clustering":
        return ClusteringDiarizer(voice_activity(settings), speaker_encoder(settings))
    if model.backend == "pyannote":
        return PyannoteDiarizer(model, speaker_encoder(settings), settings.torch_threads)
    raise _no_backend(Role.DIARIZATION, model.backend, "clustering")
