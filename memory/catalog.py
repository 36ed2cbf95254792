"""The catalog: the memory's source of truth, in SQLite (WAL mode).

Every segment row, its vectors, speakers and recordings live here; the Chroma
index is a rebuildable copy of the vectors. Writes take an immediate lock
(``BEGIN IMMEDIATE``) and wait on a busy timeout, so concurrent writers from
threads and processes queue rather than fail. Deleted rows are overwritten
(``secure_delete``) and the WAL is truncated after a forget, so forgotten
bytes do not linger in the files.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from voxmem.memory.records import SchemaTooNew

SCHEMA_VERSION = 2
BUSY_TIMEOUT_MS = 120_000

MIGRATIONS: dict[int, list[str]] = {
    1: [
        """CREATE TABLE tenants (
            id TEXT PRIMARY KEY,
            created_at REAL NOT NULL)""",
        """CREATE TABLE spaces (
            space TEXT PRIMARY KEY,
            dim INTEGER NOT NULL,
            encoder TEXT NOT NULL)""",
        """CREATE TABLE recordings (
            id TEXT PRIMARY KEY,
            tenant TEXT NOT NULL,
            session TEXT NOT NULL,
            source TEXT NOT NULL,
            duration REAL NOT NULL,
            created_at REAL NOT NULL)""",
        "CREATE INDEX recordings_tenant ON recordings (tenant, session)",
        """CREATE TABLE speakers (
            id TEXT PRIMARY KEY,
            tenant TEXT NOT NULL,
            name TEXT,
            centroid BLOB NOT NULL,
            n_segments INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL)""",
        "CREATE INDEX speakers_tenant ON speakers (tenant)",
        "CREATE UNIQUE INDEX speakers_name ON speakers (tenant, name) WHERE name IS NOT NULL",
        """CREATE TABLE segments (
            id TEXT PRIMARY KEY,
            tenant TEXT NOT NULL,
            session TEXT NOT NULL,
            recording_id TEXT NOT NULL,
            start_s REAL NOT NULL,
            end_s REAL NOT NULL,
            role TEXT NOT NULL,
            speaker_id TEXT,
            transcript TEXT NOT NULL,
            words TEXT NOT NULL,
            language TEXT,
            style_labels TEXT NOT NULL,
            environment_labels TEXT NOT NULL,
            audio_path TEXT NOT NULL,
            created_at REAL NOT NULL,
            state TEXT NOT NULL DEFAULT 'live')""",
        "CREATE INDEX segments_tenant ON segments (tenant, session, created_at)",
        "CREATE INDEX segments_speaker ON segments (tenant, speaker_id)",
        "CREATE INDEX segments_state ON segments (state)",
        """CREATE TABLE vectors (
            segment_id TEXT NOT NULL,
            space TEXT NOT NULL,
            data BLOB NOT NULL,
            PRIMARY KEY (segment_id, space))""",
    ],
    # 2: key-value items for the LangGraph store adapter
    2: [
        """CREATE TABLE items (
            tenant TEXT NOT NULL,
            namespace TEXT NOT NULL,
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            vector BLOB,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            PRIMARY KEY (tenant, namespace, key))""",
    ],
}


class Catalog:
    """A SQLite catalog shared by threads (one connection each) and processes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._migrate()

    # -- connections ---------------------------------------------------------------

    def connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA secure_delete = ON")
            self._local.conn = conn
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A transaction holding the write lock from its first statement."""
        conn = self.connection()
        for attempt in range(50):
            try:
                conn.execute("BEGIN IMMEDIATE")
                break
            except sqlite3.OperationalError as exc:  # busy beyond the timeout: wait more
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                time.sleep(min(1.0, 0.05 * (attempt + 1)))
        else:
            conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def read(self) -> sqlite3.Connection:
        return self.connection()

    def scrub(self) -> None:
        """Fold the WAL back into the database and truncate it (after deletes)."""
        conn = self.connection()
        for _ in range(100):
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if not busy:
                return
            time.sleep(0.05)

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # -- schema --------------------------------------------------------------------

    def _migrate(self) -> None:
        conn = self.connection()
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise SchemaTooNew(
                f"{self.path} was written by a newer voxmem (schema {version}, this one "
                f"understands up to {SCHEMA_VERSION}); upgrade voxmem to open it. Nothing "
                "was changed."
            )
        if version == SCHEMA_VERSION:
            return
        with self.write() as tx:
            version = tx.execute("PRAGMA user_version").fetchone()[0]
            for v in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[v]:
                    tx.execute(statement)
                tx.execute(f"PRAGMA user_version = {v}")

    @property
    def schema_version(self) -> int:
        return int(self.read().execute("PRAGMA user_version").fetchone()[0])
