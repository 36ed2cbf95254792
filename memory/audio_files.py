"""The audio of every segment: one FLAC file per segment under ``audio/<tenant>/`` (of the
data folder, or of a folder several processes share), or, with a catalog that holds
audio, FLAC bytes in the catalog itself. Both keep the same small surface (``AudioStore``),
so the memory, forget and verify never know which."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Any, Protocol

from voxmem.audio import Audio, flac_bytes, load_audio, write_flac
from voxmem.errors import UnreadableAudio


class AudioStore(Protocol):
    #: whether deleting a turn's catalog rows deletes its audio too (a forget then does
    #: not erase it separately)
    erased_with_rows: bool

    def write(self, audio: Audio, tenant: str, segment_id: str) -> None: ...
    def read(self, tenant: str, segment_id: str) -> Audio: ...
    def erase(self, tenant: str, segment_id: str) -> None: ...
    def relative(self, tenant: str, segment_id: str) -> str: ...
    def stored(self) -> dict[tuple[str, str], float]: ...
    def size(self, tenant: str | None = None) -> int: ...
    def remove_temporaries(self, older_than: float | None = None) -> None: ...


class AudioFiles:
    """FLAC files under ``folder`` (default ``root/audio``)."""

    erased_with_rows = False

    def __init__(self, root: Path, folder: Path | None = None) -> None:
        self.root = root
        self.folder = folder or root / "audio"

    def path(self, tenant: str, segment_id: str) -> Path:
        return self.folder / tenant / f"{segment_id}.flac"

    def relative(self, tenant: str, segment_id: str) -> str:
        path = self.path(tenant, segment_id)
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)

    def write(self, audio: Audio, tenant: str, segment_id: str) -> None:
        write_flac(audio, self.path(tenant, segment_id))

    def read(self, tenant: str, segment_id: str) -> Audio:
        return load_audio(self.path(tenant, segment_id))

    def erase(self, tenant: str, segment_id: str) -> None:
        erase_file(self.path(tenant, segment_id))

    def all(self) -> set[Path]:
        return set(self.folder.rglob("*.flac")) if self.folder.exists() else set()

    def stored(self) -> dict[tuple[str, str], float]:
        """Every clip: (tenant, segment id) -> when its file was last written."""
        out = {}
        for p in self.all():
            with contextlib.suppress(FileNotFoundError):  # erased meanwhile
                out[(p.parent.name, p.stem)] = p.stat().st_mtime
        return out

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


class DatabaseAudio:
    """FLAC bytes in the catalog's ``audio`` table (a catalog with ``stores_audio``)."""

    erased_with_rows = True

    def __init__(self, catalog: Any) -> None:
        self.catalog = catalog

    def write(self, audio: Audio, tenant: str, segment_id: str) -> None:
        data = flac_bytes(audio)
        with self.catalog.write() as tx:
            tx.put_audio(tenant, segment_id, data, time.time())

    def read(self, tenant: str, segment_id: str) -> Audio:
        data = self.catalog.audio(tenant, segment_id)
        if data is None:
            raise UnreadableAudio(
                f"no audio stored for segment {segment_id!r} of tenant {tenant!r}; "
                "run `voxmem verify` to list the turns that lost theirs"
            )
        return load_audio(data)

    def erase(self, tenant: str, segment_id: str) -> None:
        with self.catalog.write() as tx:
            tx.delete_audio([segment_id])

    def relative(self, tenant: str, segment_id: str) -> str:
        return f"catalog:audio/{tenant}/{segment_id}"

    def stored(self) -> dict[tuple[str, str], float]:
        return dict(self.catalog.audio_keys())

    def size(self, tenant: str | None = None) -> int:
        return int(self.catalog.audio_size(tenant))

    def remove_temporaries(self, older_than: float | None = None) -> None:
        """Nothing is half-written: a clip's bytes commit in one statement."""


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
