"""The catalog in PostgreSQL: the same tables, rows and promises as the SQLite catalog,
for memories that several voxmem processes or hosts share.

The statements are the SQLite catalog's own (:class:`~voxmem.memory.catalog.SqlCatalog`
and :class:`~voxmem.memory.catalog.SqlWrite`): this module's connection rewrites their
placeholders and the two idioms PostgreSQL spells differently (``INSERT OR IGNORE``,
``rowid``). Text keys are ``COLLATE "C"``, so they sort and compare byte by byte, as in
SQLite, whatever the database's locale.

- **Writes are serialised**, as SQLite's ``BEGIN IMMEDIATE`` serialises them: each write
  transaction first takes one transaction-level advisory lock, so a forget job decides
  what to erase while no other process can store a turn, exactly as on SQLite. Reads
  never wait (each statement sees what was committed before it).
- **Audio in the database** (``audio="database"``): each turn's FLAC bytes in the
  ``audio`` table, written and erased with its row; or in a shared folder
  (``audio="folder"``), as the SQLite catalog keeps them.
- **Forget erases the bytes from the tables**: after the rows are deleted, ``scrub``
  rewrites the tables that held them (``VACUUM FULL``), so the deleted tuples are not in
  the database's files any more. What remains elsewhere: the write-ahead log
  (``pg_wal``) keeps the erased rows until its segments are recycled (after a
  checkpoint, typically within ``max_wal_size`` of later writes or
  ``checkpoint_timeout``, 5 minutes by default; longer with WAL archiving or
  replication slots), and base backups and WAL archives keep them until they expire.
"""

from __future__ import annotations

import functools
import re
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from voxmem.memory.catalog import CHUNK, SCHEMA_VERSION, SqlCatalog, SqlWrite, _chunks
from voxmem.memory.records import CatalogBusy, MemoryClosed, SchemaTooNew, Segment, StoreError

#: the advisory lock every write transaction takes first (an arbitrary constant: "vxm1")
WRITE_LOCK = 0x76786D31
#: the lock that keeps two processes from creating the schema at once
SCHEMA_LOCK = 0x76786D30

#: the schema at SCHEMA_VERSION: the SQLite catalog's tables (see catalog.MIGRATIONS),
#: with PostgreSQL's types, a ``seq`` column where SQLite's ``rowid`` is read, the
#: ``audio`` table and the ``catalog_meta`` counters
SCHEMA = [
    """CREATE TABLE tenants (
        id TEXT COLLATE "C" PRIMARY KEY,
        created_at DOUBLE PRECISION NOT NULL)""",
    """CREATE TABLE spaces (
        space TEXT COLLATE "C" PRIMARY KEY,
        dim INTEGER NOT NULL,
        encoder TEXT NOT NULL)""",
    """CREATE TABLE recordings (
        id TEXT COLLATE "C" PRIMARY KEY,
        tenant TEXT COLLATE "C" NOT NULL,
        session TEXT COLLATE "C" NOT NULL,
        source TEXT NOT NULL,
        duration DOUBLE PRECISION NOT NULL,
        created_at DOUBLE PRECISION NOT NULL)""",
    "CREATE INDEX recordings_tenant ON recordings (tenant, session)",
    """CREATE TABLE speakers (
        id TEXT COLLATE "C" PRIMARY KEY,
        tenant TEXT COLLATE "C" NOT NULL,
        name TEXT COLLATE "C",
        centroid BYTEA NOT NULL,
        n_segments INTEGER NOT NULL DEFAULT 0,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL)""",
    "CREATE INDEX speakers_tenant ON speakers (tenant)",
    "CREATE UNIQUE INDEX speakers_name ON speakers (tenant, name) WHERE name IS NOT NULL",
    """CREATE TABLE segments (
        id TEXT COLLATE "C" PRIMARY KEY,
        tenant TEXT COLLATE "C" NOT NULL,
        session TEXT COLLATE "C" NOT NULL,
        recording_id TEXT COLLATE "C" NOT NULL,
        start_s DOUBLE PRECISION NOT NULL,
        end_s DOUBLE PRECISION NOT NULL,
        role TEXT NOT NULL,
        speaker_id TEXT COLLATE "C",
        transcript TEXT NOT NULL,
        words TEXT NOT NULL,
        language TEXT,
        style_labels TEXT NOT NULL,
        environment_labels TEXT NOT NULL,
        audio_path TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        state TEXT NOT NULL DEFAULT 'live',
        seq BIGSERIAL)""",
    "CREATE INDEX segments_tenant ON segments (tenant, session, created_at)",
    "CREATE INDEX segments_speaker ON segments (tenant, speaker_id)",
    "CREATE INDEX segments_state ON segments (state)",
    """CREATE TABLE vectors (
        segment_id TEXT COLLATE "C" NOT NULL,
        space TEXT COLLATE "C" NOT NULL,
        data BYTEA NOT NULL,
        PRIMARY KEY (segment_id, space))""",
    """CREATE TABLE items (
        tenant TEXT COLLATE "C" NOT NULL,
        namespace TEXT COLLATE "C" NOT NULL,
        key TEXT COLLATE "C" NOT NULL,
        value TEXT NOT NULL,
        vector BYTEA,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        seq BIGSERIAL,
        PRIMARY KEY (tenant, namespace, key))""",
    """CREATE TABLE forget_jobs (
        id TEXT COLLATE "C" PRIMARY KEY,
        tenant TEXT COLLATE "C" NOT NULL,
        selector TEXT NOT NULL,
        state TEXT NOT NULL,
        speaker_id TEXT,
        everything INTEGER NOT NULL DEFAULT 0,
        owner TEXT,
        created_at DOUBLE PRECISION NOT NULL)""",
    """CREATE TABLE forget_job_segments (
        job_id TEXT COLLATE "C" NOT NULL,
        segment_id TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (job_id, segment_id))""",
    """CREATE TABLE unindexed (
        segment_id TEXT COLLATE "C" PRIMARY KEY,
        tenant TEXT COLLATE "C" NOT NULL)""",
    """CREATE TABLE audio (
        segment_id TEXT COLLATE "C" PRIMARY KEY,
        tenant TEXT COLLATE "C" NOT NULL,
        data BYTEA NOT NULL,
        created_at DOUBLE PRECISION NOT NULL)""",
    "CREATE INDEX audio_tenant ON audio (tenant)",
    # FLAC and float vectors do not compress: store them as they are, out of line
    "ALTER TABLE audio ALTER COLUMN data SET STORAGE EXTERNAL",
    "ALTER TABLE vectors ALTER COLUMN data SET STORAGE EXTERNAL",
    "CREATE TABLE catalog_meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL)",
    f"INSERT INTO catalog_meta VALUES ('schema_version', {SCHEMA_VERSION}), ('version', 0)",
]
#: what a forget's scrub rewrites: every table a forget deletes rows from
SCRUBBED = (
    "segments",
    "vectors",
    "audio",
    "recordings",
    "speakers",
    "items",
    "forget_job_segments",
    "unindexed",
)


@functools.lru_cache(maxsize=1024)
def translate(sql: str) -> str:
    """A statement of the SQLite catalog as PostgreSQL reads it."""
    out = sql.replace("%", "%%").replace("?", "%s")
    out = re.sub(r"\browid\b", "seq", out)
    if re.match(r"\s*INSERT OR IGNORE INTO\b", out):
        out = (
            re.sub(r"INSERT OR IGNORE INTO", "INSERT INTO", out, count=1)
            + " ON CONFLICT DO NOTHING"
        )
    return out


class Row(dict[str, Any]):
    """A row read by column name or by position, as ``sqlite3.Row`` is."""

    __slots__ = ("_values",)

    def __init__(self, names: Sequence[str], values: Sequence[Any]) -> None:
        super().__init__(zip(names, values, strict=True))
        self._values = tuple(values)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, int | slice):
            return self._values[key]
        return dict.__getitem__(self, key)


def _row_factory(cursor: Any) -> Any:
    names = [c.name for c in cursor.description or ()]
    return lambda values: Row(names, values)


class PgConnection:
    """One psycopg connection that speaks the SQLite catalog's SQL."""

    def __init__(self, conn: Any) -> None:
        self.raw = conn

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        return self.raw.execute(translate(sql), tuple(args))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        rows = [tuple(r) for r in rows]
        cursor = self.raw.cursor()
        if rows:
            cursor.executemany(translate(sql), rows)
        return cursor


class PostgresWrite(SqlWrite):
    """A write transaction on PostgreSQL, with the audio table."""

    def put_audio(self, tenant: str, segment_id: str, data: bytes, now: float) -> None:
        self.conn.execute(
            "INSERT INTO audio (segment_id, tenant, data, created_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (segment_id) DO UPDATE SET data = excluded.data",
            (segment_id, tenant, data, now),
        )

    def delete_audio(self, segment_ids: Sequence[str]) -> None:
        for chunk, marks in _chunks(segment_ids):
            self.conn.execute(f"DELETE FROM audio WHERE segment_id IN ({marks})", chunk)

    def delete_segments(self, ids: Sequence[str]) -> None:
        super().delete_segments(ids)
        self.delete_audio(ids)


class PostgresCatalog(SqlCatalog):
    """A PostgreSQL catalog shared by threads (one connection each), processes and hosts."""

    NO_LIMIT = "ALL"

    def __init__(self, url: str, audio_in_database: bool = True) -> None:
        import psycopg  # noqa: F401 (a clear ImportError here, not at the first query)

        self.url = url
        self.stores_audio = audio_in_database
        self._local = threading.local()
        self._open: list[Any] = []
        self._open_lock = threading.Lock()
        self._closed = False
        self._migrate()

    def __repr__(self) -> str:
        return f"PostgresCatalog({_redacted(self.url)})"

    def child_env(self) -> dict[str, str]:
        return {
            "VOXMEM_CATALOG__URL": self.url,
            "VOXMEM_CATALOG__AUDIO": "database" if self.stores_audio else "folder",
        }

    # -- connections ---------------------------------------------------------------

    def connection(self) -> PgConnection:
        if self._closed:
            raise MemoryClosed(f"the catalog at {_redacted(self.url)} is closed; open it again")
        conn: PgConnection | None = getattr(self._local, "conn", None)
        if conn is None or conn.raw.closed:
            import psycopg

            try:
                raw = psycopg.connect(self.url, autocommit=True, row_factory=_row_factory)
            except psycopg.OperationalError as exc:
                raise StoreError(
                    f"cannot reach the PostgreSQL catalog at {_redacted(self.url)} ({exc}); "
                    "check that the server is running and VOXMEM_CATALOG__URL"
                ) from exc
            conn = PgConnection(raw)
            with self._open_lock:
                self._open.append(raw)
            self._local.conn = conn
        return conn

    def read(self) -> PgConnection:
        return self.connection()

    @contextmanager
    def write(self) -> Iterator[PostgresWrite]:
        """A transaction that holds the catalog's write lock from its first statement."""
        conn = self.connection()
        with conn.raw.transaction():
            conn.raw.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            conn.raw.execute("UPDATE catalog_meta SET value = value + 1 WHERE key = 'version'")
            yield PostgresWrite(conn)

    def scrub(self, timeout: float = 5.0) -> None:
        """Rewrite the tables a forget deletes from, so that deleted rows leave the
        database's files; CatalogBusy when other sessions' locks keep it from starting
        within ``timeout`` seconds (what remains in the WAL: see the module's notes)."""
        conn = self.connection()
        conn.raw.execute(f"SET lock_timeout = {max(1, int(timeout * 1000))}")
        try:
            for table in SCRUBBED:
                conn.raw.execute(f"VACUUM FULL {table}")
        except Exception as exc:
            import psycopg

            if isinstance(exc, psycopg.errors.LockNotAvailable):
                raise CatalogBusy(
                    f"the catalog's tables stayed locked by other sessions for {timeout:.0f} s, "
                    "so deleted rows may linger in its files; run `voxmem verify` when fewer "
                    "processes use the memory"
                ) from exc
            raise
        finally:
            conn.raw.execute("SET lock_timeout = 0")

    def close(self) -> None:
        """Close every thread's connection; later calls raise MemoryClosed."""
        self._closed = True
        with self._open_lock:
            conns, self._open = self._open, []
        for conn in conns:
            conn.close()
        self._local = threading.local()

    def version(self) -> int:
        """Moves whenever anything was committed, by this process or another."""
        row = self.read().execute("SELECT value FROM catalog_meta WHERE key = 'version'")
        return int(row.fetchone()[0])

    # -- schema --------------------------------------------------------------------

    def _migrate(self) -> None:
        conn = self.connection()
        with conn.raw.transaction():
            conn.raw.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            exists = conn.raw.execute(
                "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() "
                "AND table_name = 'catalog_meta'"
            ).fetchone()
            if exists is None:
                for statement in SCHEMA:
                    conn.raw.execute(statement)
                return
        version = self.schema_version
        if version > SCHEMA_VERSION:
            raise SchemaTooNew(
                f"the catalog at {_redacted(self.url)} was written by a newer voxmem (schema "
                f"{version}, this one understands up to {SCHEMA_VERSION}); upgrade voxmem "
                "to open it. Nothing was changed."
            )

    @property
    def schema_version(self) -> int:
        row = self.read().execute("SELECT value FROM catalog_meta WHERE key = 'schema_version'")
        return int(row.fetchone()[0])

    # -- what PostgreSQL spells differently -------------------------------------------

    def with_labels(
        self, tenant: str, kind: str, labels: Sequence[str], limit: int
    ) -> list[Segment]:
        from voxmem.memory.catalog import _row_to_segment

        column = {"style": "style_labels", "environment": "environment_labels"}[kind]
        if not labels:
            return []
        parts = [f"COALESCE(({column}::jsonb ->> ?)::double precision, 0)" for _ in labels]
        score = parts[0] if len(parts) == 1 else f"GREATEST({', '.join(parts)})"
        rows = self.read().execute(
            f"SELECT * FROM segments WHERE tenant = ? AND state = 'live' AND {score} > 0 "
            f"ORDER BY {score} DESC LIMIT ?",
            (tenant, *labels, *labels, limit),
        )
        return [_row_to_segment(r) for r in rows]

    # -- audio ---------------------------------------------------------------------

    def audio(self, tenant: str, segment_id: str) -> bytes | None:
        row = (
            self.read()
            .execute(
                "SELECT data FROM audio WHERE tenant = ? AND segment_id = ?", (tenant, segment_id)
            )
            .fetchone()
        )
        return None if row is None else bytes(row[0])

    def audio_keys(self) -> dict[tuple[str, str], float]:
        """Every stored clip: (tenant, segment id) -> when it was written."""
        rows = self.read().execute("SELECT tenant, segment_id, created_at FROM audio")
        return {(r[0], r[1]): float(r[2]) for r in rows}

    def audio_size(self, tenant: str | None) -> int:
        cond, args = ("WHERE tenant = ?", (tenant,)) if tenant else ("", ())
        row = self.read().execute(
            f"SELECT COALESCE(SUM(octet_length(data)), 0) FROM audio {cond}", args
        )
        return int(row.fetchone()[0])

    def size(self) -> int:
        """Bytes the catalog's tables take in the database."""
        row = self.read().execute(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind = 'r'"
        )
        return int(row.fetchone()[0])


def _redacted(url: str) -> str:
    """The URL without its password."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


def wait_for(url: str, timeout: float = 30.0) -> None:
    """Wait until the server at ``url`` answers (for processes started with it)."""
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        try:
            psycopg.connect(url, connect_timeout=2).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


__all__ = ["CHUNK", "PostgresCatalog", "translate"]
