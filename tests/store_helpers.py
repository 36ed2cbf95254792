"""Shared helpers for the memory store tests."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import ROOT, VENV_BIN
from voxmem.audio import Audio
from voxmem.memory import AudioMemory
from voxmem.memory.encoders.fake import fake_perception
from voxmem.settings import Settings


def store_child(*args: str) -> subprocess.Popen[str]:
    """``python -m tests.store_child ARGS`` in its own process group (so a kill -9 of the
    group also takes what it started)."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.store_child", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def tone(freq: float, seconds: float = 1.5, amp: float = 0.3) -> Audio:
    t = np.arange(int(16_000 * seconds)) / 16_000
    return Audio((amp * np.sin(2 * np.pi * freq * t)).astype(np.float32))


def open_fake(
    path: Path,
    url: str | None = None,
    text: str = "",
    catalog: str | None = None,
    audio_dir: Path | None = None,
) -> AudioMemory:
    """A memory with the fake encoders: in ``path``, its index on the Chroma server at
    ``url`` when given, its catalog in the PostgreSQL database ``catalog`` when given
    (audio in the database, or in ``audio_dir``)."""
    settings = Settings(
        data_dir=path,
        cache_dir=path / "cache",
        chroma={"url": url} if url else {},
        catalog={
            "url": catalog,
            "audio": "folder" if audio_dir else "database",
            "audio_dir": audio_dir,
        }
        if catalog
        else {},
    )
    return AudioMemory(settings, perception=fake_perception(text))


def vectors(memory: AudioMemory, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for space, dim in memory.perception.dims.items():
        v = rng.standard_normal(dim).astype(np.float32)
        out[space] = v / np.linalg.norm(v)
    return out


def marker() -> str:
    return f"zebraquartz{uuid.uuid4().hex[:12]}"


def scan(root: Path, needles: list[bytes]) -> list[tuple[str, bytes]]:
    """Every (file, needle) where a needle's bytes appear in a file under ``root``."""
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            found += [(str(path), n) for n in needles if n in data]
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ChromaServer:
    """A real `chroma run` on loopback that a test can stop and start again (same
    port, same data folder), to see what the memory does while it is away."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                str(VENV_BIN / "chroma"),
                "run",
                "--path",
                str(self.path),
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("chroma run did not start within 60 s")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=30)
            self.proc = None


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `chroma run` on loopback for the server mode, shared by the tests."""
    server = ChromaServer(tmp_path_factory.mktemp("chroma-server"))
    try:
        server.start()
    except RuntimeError as exc:
        pytest.fail(str(exc))
    yield server.url
    server.stop()
