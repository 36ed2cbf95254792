from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
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

    # the shipped model as a fresh machine finds it: no developer's VOXMEM_* or .env
    # (session fixtures are set up before the per-test isolation)
    with tempfile.TemporaryDirectory() as empty, pytest.MonkeyPatch.context() as mp:
        for key in [k for k in os.environ if k.startswith("VOXMEM_")]:
            mp.delenv(key)
        mp.chdir(empty)
        model = str(local_model_dir(Settings()))
    exe = Path(sys.executable).parent / "transformers"
    if not exe.is_file():
        pytest.fail(f"{exe} is missing: run scripts/setup.sh")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    with tempfile.TemporaryFile() as log:
        env = {k: v for k, v in os.environ.items() if not k.startswith("VOXMEM_")}
        command = [str(exe), "serve", model, "--port", str(port), "--host", "127.0.0.1"]
        command += ["--device", "cpu"]
        server = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**env, "HF_HUB_OFFLINE": "1"},
        )

        def output() -> str:
            log.seek(0)
            return log.read().decode(errors="replace")[-2000:]

        try:
            deadline = time.time() + 180
            while time.time() < deadline:
                if server.poll() is not None:
                    pytest.fail(f"transformers serve exited ({server.returncode}):\n{output()}")
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(1)
            else:
                pytest.fail(f"transformers serve did not start in 180 s:\n{output()}")
            yield f"http://127.0.0.1:{port}/v1", model
        finally:
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(10)
