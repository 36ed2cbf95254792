from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
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


@pytest.fixture(scope="session")
def local_chat_endpoint() -> Iterator[tuple[str, str]]:
    """A real OpenAI-compatible chat server on loopback: ``transformers serve`` with the
    shipped SmolLM2, one process for the session. Yields (base URL, model)."""
    from voxmem.agent.llm import local_model_dir
    from voxmem.settings import Settings

    model = str(local_model_dir(Settings()))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "transformers"),
            "serve",
            model,
            "--port",
            str(port),
            "--host",
            "127.0.0.1",
            "--device",
            "cpu",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    try:
        deadline = time.time() + 180
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(1)
        else:
            pytest.fail("transformers serve did not start in 180 s")
        yield f"http://127.0.0.1:{port}/v1", model
    finally:
        server.terminate()
        server.wait(30)
