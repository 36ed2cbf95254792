"""Shared helpers for the memory store tests."""

from __future__ import annotations

import uuid
from pathlib import Path

import numpy as np

from voxmem.audio import Audio
from voxmem.memory import AudioMemory
from voxmem.memory.encoders.fake import fake_perception
from voxmem.settings import Settings


def tone(freq: float, seconds: float = 1.5, amp: float = 0.3) -> Audio:
    t = np.arange(int(16_000 * seconds)) / 16_000
    return Audio((amp * np.sin(2 * np.pi * freq * t)).astype(np.float32))


def open_fake(path: Path, url: str | None = None, text: str = "") -> AudioMemory:
    settings = Settings(data_dir=path, cache_dir=path / "cache", chroma={"url": url} if url else {})
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
