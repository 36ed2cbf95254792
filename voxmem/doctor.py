"""Load checks for every model role, as ``voxmem doctor`` runs them."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from voxmem.errors import ModelUnavailable
from voxmem.models import ResolvedModel, resolve
from voxmem.settings import Role, Settings


@dataclass(frozen=True)
class RoleReport:
    """What ``doctor`` found for one role."""

    role: Role
    backend: str
    source: str | None
    location: str | None
    ok: bool
    detail: str
    seconds: float = 0.0


def _onnx(model: ResolvedModel, settings: Settings) -> str:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = settings.threads
    sess = ort.InferenceSession(str(model.path), opts, providers=["CPUExecutionProvider"])
    shapes = ", ".join(f"{i.name}{list(i.shape)}" for i in sess.get_inputs())
    return f"onnx inputs {shapes}"


def _whisper(model: ResolvedModel, settings: Settings) -> str:
    from faster_whisper import WhisperModel

    WhisperModel(
        model.location,
        device="cpu",
        compute_type="int8",
        cpu_threads=settings.threads,
        local_files_only=model.source != "hub",
    )
    return f"whisper {model.variant or ''}".strip()


def _resemblyzer(model: ResolvedModel, settings: Settings) -> str:
    from resemblyzer import VoiceEncoder

    VoiceEncoder(device="cpu", weights_fpath=model.path, verbose=False)
    return "GE2E encoder"


def _ecapa(model: ResolvedModel, settings: Settings) -> str:
    from speechbrain.inference.speaker import EncoderClassifier

    EncoderClassifier.from_hparams(
        source=model.location,
        run_opts={"device": "cpu"},
        savedir=str(settings.cache_dir / "models" / "ecapa"),
    )
    return "ECAPA-TDNN"


def _egemaps(model: ResolvedModel, settings: Settings) -> str:
    import opensmile

    smile = opensmile.Smile(
        feature_set=opensmile.FeatureSet.eGeMAPSv02,
        feature_level=opensmile.FeatureLevel.Functionals,
    )
    return f"{len(smile.feature_names)} functionals"


def _minilm(model: ResolvedModel, settings: Settings) -> str:
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(model.location, device="cpu", local_files_only=model.source != "hub")
    return f"dim {st.get_sentence_embedding_dimension()}"


def _e5(model: ResolvedModel, settings: Settings) -> str:
    from voxmem.memory.encoders.text import E5Encoder

    vector = E5Encoder(model, settings.threads).queries(["doctor"])[0]
    return f"dim {len(vector)}"


def _pyannote(model: ResolvedModel, settings: Settings) -> str:
    from pyannote.audio import Pipeline

    Pipeline.from_pretrained(model.location)
    return "pipeline"


def _clustering(model: ResolvedModel, settings: Settings) -> str:
    parts = []
    for role in (Role.VAD, Role.SPEAKER):
        part = resolve(role, settings)
        LOADERS[(role, part.backend)](part, settings)
        parts.append(f"{role.value} {part.backend} ok")
    return ", ".join(parts)


def _smollm(model: ResolvedModel, settings: Settings) -> str:
    """Loaded as the agent's local responder loads it (VOXMEM_AGENT__RESPONDER=local)."""
    from transformers import AutoModelForCausalLM

    from voxmem.agent.llm import local_model_dir

    AutoModelForCausalLM.from_pretrained(str(local_model_dir(settings)))
    return "SmolLM2-135M-Instruct, the agent's local responder"


def _espeak(model: ResolvedModel, settings: Settings) -> str:
    out = subprocess.run(
        [model.location, "--version"], capture_output=True, text=True, check=True, timeout=30
    )
    return out.stdout.strip().split(" Data")[0]


def _piper(model: ResolvedModel, settings: Settings) -> str:
    from piper import PiperVoice

    voice = PiperVoice.load(str(model.path))
    return f"{Path(model.location).stem}, {voice.config.sample_rate} Hz"


LOADERS: dict[tuple[Role, str], Callable[[ResolvedModel, Settings], str]] = {
    (Role.ASR, "faster-whisper"): _whisper,
    (Role.VAD, "silero"): _onnx,
    (Role.SPEAKER, "voicefilter-dvector"): _onnx,
    (Role.SPEAKER, "resemblyzer"): _resemblyzer,
    (Role.SPEAKER, "ecapa"): _ecapa,
    (Role.STYLE, "egemaps"): _egemaps,
    (Role.ENVIRONMENT, "yamnet"): _onnx,
    (Role.TEXT, "minilm"): _minilm,
    (Role.TEXT, "e5"): _e5,
    (Role.DIARIZATION, "clustering"): _clustering,
    (Role.DIARIZATION, "pyannote"): _pyannote,
    (Role.LLM, "smollm2"): _smollm,
    (Role.TTS, "espeak-ng"): _espeak,
    (Role.TTS, "piper"): _piper,
}


def check_role(role: Role, settings: Settings, load: bool = True) -> RoleReport:
    """Resolve ``role`` and, with ``load``, load its weights once."""
    backend = settings.model_for(role).backend
    try:
        model = resolve(role, settings)
    except ModelUnavailable as exc:
        return RoleReport(role, backend, None, None, False, str(exc))
    if not load:
        return RoleReport(role, model.backend, model.source, model.location, True, "not loaded")
    start = time.perf_counter()
    try:
        detail = LOADERS[(role, model.backend)](model, settings)
    except ModelUnavailable as exc:
        return RoleReport(role, model.backend, model.source, model.location, False, str(exc))
    except Exception as exc:  # a load failure of any library is reported, not raised
        message = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        return RoleReport(
            role,
            model.backend,
            model.source,
            model.location,
            False,
            f"failed to load: {message}. To fix: reinstall with scripts/setup.sh "
            f"or point VOXMEM_{role.value.upper()}__WEIGHTS at working weights",
            time.perf_counter() - start,
        )
    return RoleReport(
        role, model.backend, model.source, model.location, True, detail, time.perf_counter() - start
    )


def check_all(
    settings: Settings, roles: list[Role] | None = None, load: bool = True
) -> list[RoleReport]:
    return [check_role(role, settings, load) for role in (roles or list(Role))]
