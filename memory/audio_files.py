"""The audio of every segment: one FLAC file per segment under ``audio/<tenant>/``."""

from __future__ import annotations

import os
from pathlib import Path

from voxmem.audio import Audio, load_audio, write_flac


class AudioFiles:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / "audio"

    def path(self, tenant: str, segment_id: str) -> Path:
        return self.folder / tenant / f"{segment_id}.flac"

    def relative(self, tenant: str, segment_id: str) -> str:
        return str(self.path(tenant, segment_id).relative_to(self.root))

    def write(self, audio: Audio, tenant: str, segment_id: str) -> None:
        write_flac(audio, self.path(tenant, segment_id))

    def read(self, tenant: str, segment_id: str) -> Audio:
        return load_audio(self.path(tenant, segment_id))

    def erase(self, tenant: str, segment_id: str) -> None:
        erase_file(self.path(tenant, segment_id))

    def all(self) -> set[Path]:
        return set(self.folder.rglob("*.flac")) if self.folder.exists() else set()

    def remove_temporaries(self, older_than: float | None = None) -> None:
        """Delete files a crash left half-written (those modified before ``older_than``,
        a time; all of them when None)."""
        if self.folder.exists():
            for tmp in self.folder.rglob(".tmp-*"):
                try:
                    if older_than is None or tmp.stat().st_mtime < older_than:
                        tmp.unlink()
                except FileNotFoundError:
                    pass

    def size(self, tenant: str | None = None) -> int:
        return dir_size(self.folder / tenant if tenant else self.folder)


def erase_file(path: Path) -> None:
    """Overwrite then delete, so the bytes do not stay in the data directory's blocks."""
    try:
        size = path.stat().st_size
        with open(path, "r+b") as f:
            f.write(b"\0" * size)
            f.flush()
            os.fsync(f.fileno())
        path.unlink()
    except FileNotFoundError:
        pass


def dir_size(path: Path, pattern: str = "**/*") -> int:
    if not path.exists():
        return 0
    return sum(p.stat().st_size for p in path.glob(pattern) if p.is_file())
