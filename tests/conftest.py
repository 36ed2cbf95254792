from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pg_server import PgServer, postgres, postgres_bin
from voxmem.benchmarks.synth import ClipCache

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv")) / "bin"


@pytest.fixture(scope="session")
def clip_cache(pytestconfig: pytest.Config) -> ClipCache:
    """Synthesised clips, kept between runs in pytest's cache folder."""
    return ClipCache(pytestconfig.cache.mkdir("voxmem-synth"))


@pytest.fixture
def clips_tmpdir(tmp_path: Path, clip_cache: ClipCache) -> Path:
    """A TMPDIR for a ``voxmem demo`` or ``benchmarks run voice`` process, whose clip
    cache (``voxmem-agent-bench-clips`` in the temporary folder) is then this session's
    clip cache: the agent script's lines that the agent tests rendered are reused."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    clip_cache.root.mkdir(parents=True, exist_ok=True)
    (folder / "voxmem-agent-bench-clips").symlink_to(clip_cache.root, target_is_directory=True)
    return folder


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No VOXMEM_* variable of the developer's shell leaks into a test, nor a .env."""
    for key in list(os.environ):
        if key.startswith("VOXMEM_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="session")
def pg() -> Iterator[PgServer]:
    """A real PostgreSQL server (Debian's), in a throwaway cluster on loopback."""
    if postgres_bin() is None:
        pytest.fail("PostgreSQL is not installed: run `bash scripts/setup.sh`")
    with postgres() as server:
        yield server
