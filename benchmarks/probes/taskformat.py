"""Dynamic-SUPERB task folders: one dataset per task, test split only.

A task folder is a dataset snapshot: parquet files (usually
``data/test-00000-of-00001.parquet``) with columns ``file``, ``audio``,
``instruction``, ``label``, and ``audio2`` or ``enrollment``/``testing`` for
tasks with two clips. Audio cells are ``{bytes, path}`` structs. Extra columns
(our mini edition adds ``speaker``) are kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxmem.audio import Audio, flac_bytes, load_audio
from voxmem.errors import InvalidAudio, VoxmemError

REQUIRED = ("file", "instruction", "label")
AUDIO_COLUMNS = ("audio", "audio2", "enrollment", "testing")


class TaskFormatError(VoxmemError, ValueError):
    """A task folder that does not hold a readable Dynamic-SUPERB task."""


@dataclass
class Task:
    name: str
    rows: list[dict[str, Any]]
    audio_columns: tuple[str, ...]

    def audio(self, row: dict[str, Any], column: str = "audio") -> Audio:
        cell = row[column]
        try:
            if isinstance(cell, dict) and cell.get("bytes"):
                return load_audio(cell["bytes"])
            if isinstance(cell, dict) and cell.get("array") is not None:
                return load_audio(cell["array"], sample_rate=int(cell["sampling_rate"]))
        except InvalidAudio as exc:
            raise TaskFormatError(
                f"{self.name}: row {row.get('file')!r} column {column}: {exc}"
            ) from exc
        raise TaskFormatError(
            f"{self.name}: row {row.get('file')!r} has no audio bytes in column {column!r}"
        )


def read_task(folder: Path) -> Task:
    """Read and validate one task folder."""
    import pyarrow.parquet as pq

    files = sorted(folder.rglob("*.parquet"))
    if not files:
        raise TaskFormatError(
            f"{folder} holds no parquet files; expected a Dynamic-SUPERB "
            "task snapshot (data/test-*.parquet)"
        )
    rows: list[dict[str, Any]] = []
    columns: set[str] | None = None
    for f in files:
        table = pq.read_table(f)
        names = set(table.column_names)
        missing = [c for c in REQUIRED if c not in names]
        if missing:
            raise TaskFormatError(
                f"{f} lacks column(s) {', '.join(missing)}; found {', '.join(sorted(names))}"
            )
        columns = names if columns is None else columns & names
        rows += table.to_pylist()
    assert columns is not None
    audio_cols = tuple(c for c in AUDIO_COLUMNS if c in columns)
    if not audio_cols:
        raise TaskFormatError(f"{folder} has no audio column (one of {', '.join(AUDIO_COLUMNS)})")
    if not rows:
        raise TaskFormatError(f"{folder} has no rows")
    return Task(folder.name, rows, audio_cols)


def audio_cell(audio: Audio, name: str) -> dict[str, Any]:
    return {"bytes": flac_bytes(audio), "path": name}


def write_task(folder: Path, rows: list[dict[str, Any]], description: str) -> Path:
    """Write rows as a one-file test split, the layout ``push_to_hub`` produces."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = folder / "data"
    data.mkdir(parents=True, exist_ok=True)
    path = data / "test-00000-of-00001.parquet"
    tmp = path.with_suffix(".tmp")
    pq.write_table(pa.Table.from_pylist(rows), tmp)
    tmp.replace(path)
    (folder / "README.md").write_text(
        "---\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n"
        "    path: data/test-*\n---\n\n" + description + "\n"
    )
    return path
