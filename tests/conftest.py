from __future__ import annotations

import os
from pathlib import Path

import pytest

from voxmem.benchmarks.synth import ClipCache

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv")) / "bin"


@pytest.fixture(scope="session")
def clip_cache(pytestconfig: pytest.Config) -> ClipCache:
    """Synthesised clips, kept between runs in pytest's cache folder."""
    return ClipCache(pytestconfig.cache.mkdir("voxmem-synth"))


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No VOXMEM_* variable of the developer's shell leaks into a test, nor a .env."""
    for key in list(os.environ):
        if key.startswith("VOXMEM_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
