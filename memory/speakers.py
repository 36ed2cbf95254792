"""Speakers across sessions: per-tenant voiceprints that new turns are matched to."""

from __future__ import annotations

import sqlite3
import time
import uuid
from dataclasses import dataclass

import numpy as np

from voxmem.memory.records import Speaker, UnknownSpeaker


@dataclass(frozen=True)
class SpeakerParams:
    """Tunable settings of speaker matching, in one place."""

    #: cosine similarity to a known speaker's centroid above which a turn is theirs
    match_threshold: float = 0.65
    #: turns shorter than this update no centroid (their voiceprints are unreliable)
    min_update_seconds: float = 1.0


def _blob(v: np.ndarray) -> bytes:
    return np.asarray(v, np.float32).tobytes()


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, np.float32)
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


def row_to_speaker(row: sqlite3.Row) -> Speaker:
    return Speaker(
        row["id"],
        row["tenant"],
        row["name"],
        np.frombuffer(row["centroid"], np.float32).copy(),
        int(row["n_segments"]),
        float(row["created_at"]),
        float(row["updated_at"]),
    )


def all_speakers(conn: sqlite3.Connection, tenant: str) -> list[Speaker]:
    rows = conn.execute(
        "SELECT * FROM speakers WHERE tenant = ? ORDER BY created_at, id", (tenant,)
    ).fetchall()
    return [row_to_speaker(r) for r in rows]


def get_speaker(conn: sqlite3.Connection, tenant: str, speaker: str) -> Speaker:
    """By id or by name."""
    row = conn.execute(
        "SELECT * FROM speakers WHERE tenant = ? AND (id = ? OR name = ?)",
        (tenant, speaker, speaker),
    ).fetchone()
    if row is None:
        raise UnknownSpeaker(
            f"tenant {tenant!r} has no speaker {speaker!r}; list them with "
            "voxmem speakers --tenant ..."
        )
    return row_to_speaker(row)


def match_or_create(
    conn: sqlite3.Connection,
    tenant: str,
    voiceprint: np.ndarray,
    seconds: float,
    params: SpeakerParams,
) -> str:
    """The id of the known speaker this voiceprint belongs to, or of a new one.

    Runs inside the caller's write transaction, so concurrent ingests of one
    voice cannot both create a speaker."""
    v = _unit(voiceprint)
    best_id, best = None, -1.0
    rows = conn.execute("SELECT id, centroid FROM speakers WHERE tenant = ?", (tenant,)).fetchall()
    if rows:
        matrix = np.frombuffer(b"".join(r["centroid"] for r in rows), np.float32)
        if matrix.size == len(rows) * v.size:
            sims = matrix.reshape(len(rows), v.size) @ v
            i = int(np.argmax(sims))
            best_id, best = rows[i]["id"], float(sims[i])
    now = time.time()
    if best_id is not None and best >= params.match_threshold:
        if seconds >= params.min_update_seconds:
            row = conn.execute(
                "SELECT centroid, n_segments FROM speakers WHERE id = ?", (best_id,)
            ).fetchone()
            n = int(row["n_segments"])
            old = np.frombuffer(row["centroid"], np.float32)
            new = _unit(old * n + v) if n else v
            conn.execute(
                "UPDATE speakers SET centroid = ?, n_segments = ?, updated_at = ? WHERE id = ?",
                (_blob(new), n + 1, now, best_id),
            )
        return best_id
    new_id = f"spk_{uuid.uuid4().hex[:12]}"
    conn.execute(
        "INSERT INTO speakers (id, tenant, name, centroid, n_segments, created_at, "
        "updated_at) VALUES (?, ?, NULL, ?, 1, ?, ?)",
        (new_id, tenant, _blob(v), now, now),
    )
    return new_id


def recompute_centroid(conn: sqlite3.Connection, speaker_id: str) -> None:
    """Centroid = normalised mean of the speaker's segment voiceprints (if any)."""
    rows = conn.execute(
        "SELECT v.data FROM vectors v JOIN segments s ON s.id = v.segment_id "
        "WHERE s.speaker_id = ? AND v.space = 'speaker' AND s.state = 'live'",
        (speaker_id,),
    ).fetchall()
    if not rows:
        conn.execute(
            "UPDATE speakers SET n_segments = 0, updated_at = ? WHERE id = ?",
            (time.time(), speaker_id),
        )
        return
    mean = _unit(np.mean([np.frombuffer(r["data"], np.float32) for r in rows], axis=0))
    conn.execute(
        "UPDATE speakers SET centroid = ?, n_segments = ?, updated_at = ? WHERE id = ?",
        (_blob(mean), len(rows), time.time(), speaker_id),
    )
