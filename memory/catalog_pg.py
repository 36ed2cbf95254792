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

import contextlib
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

#: a setting only connections of this version make, checked by a trigger on the turns:
#: a process of an older version still running cannot change turns behind the sums
WRITER_SETTING = "voxmem.writer_schema"


def writer_check(schema: int) -> str:
    """The trigger function that refuses a connection older than ``schema``."""
    return f"""CREATE OR REPLACE FUNCTION voxmem_writer_check() RETURNS trigger
    LANGUAGE plpgsql AS $f$
    BEGIN
        IF coalesce(nullif(current_setting('{WRITER_SETTING}', true), ''), '0')::int
                < {schema} THEN
            RAISE EXCEPTION 'this voxmem catalog keeps speakers'' sums (schema {schema}); '
                'an older voxmem cannot change its turns: stop it and upgrade it';
        END IF;
        RETURN NULL;
    END $f$"""


WRITER_TRIGGER = (
    "CREATE TRIGGER segments_writer_check BEFORE INSERT OR DELETE OR UPDATE OF state, "
    "speaker_id ON segments FOR EACH STATEMENT EXECUTE FUNCTION voxmem_writer_check()"
)

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
    """CREATE TABLE speaker_sums (
        speaker_id TEXT COLLATE "C" PRIMARY KEY,
        total BYTEA,
        n INTEGER NOT NULL DEFAULT 0)""",
    "ALTER TABLE speaker_sums ALTER COLUMN total SET STORAGE EXTERNAL",
    """CREATE TABLE style_sums (
        speaker_id TEXT COLLATE "C" PRIMARY KEY,
        total BYTEA,
        n INTEGER NOT NULL DEFAULT 0)""",
    "ALTER TABLE style_sums ALTER COLUMN total SET STORAGE EXTERNAL",
    writer_check(SCHEMA_VERSION),
    WRITER_TRIGGER,
    "CREATE TABLE catalog_meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL)",
    f"INSERT INTO catalog_meta VALUES ('schema_version', {SCHEMA_VERSION}), ('version', 0)",
]
#: what a catalog made at an older schema needs to reach each newer one
PG_MIGRATIONS: dict[int, list[str]] = {
    4: [
        next(st for st in SCHEMA if "CREATE TABLE speaker_sums" in st),
        "ALTER TABLE speaker_sums ALTER COLUMN total SET STORAGE EXTERNAL",
        "INSERT INTO speaker_sums (speaker_id, total, n) SELECT id, NULL, 0 FROM speakers",
        writer_check(4),
        WRITER_TRIGGER,
    ],
    5: [
        next(st for st in SCHEMA if "CREATE TABLE style_sums" in st),
        "ALTER TABLE style_sums ALTER COLUMN total SET STORAGE EXTERNAL",
        "INSERT INTO style_sums (speaker_id, total, n) SELECT id, NULL, 0 FROM speakers",
        writer_check(5),
    ],
}
#: the tables each migration creates (kept free of planner statistics, as at creation)
PG_MIGRATION_TABLES: dict[int, tuple[str, ...]] = {4: ("speaker_sums",), 5: ("style_sums",)}

#: what a forget's scrub rewrites: every table a forget deletes rows from
SCRUBBED = (
    "segments",
    "vectors",
    "audio",
    "recordings",
    "speakers",
    "speaker_sums",
    "style_sums",
    "items",
    "tenants",
    "forget_jobs",
    "forget_job_segments",
    "unindexed",
)


#: the catalog's tables
TABLES = (*SCRUBBED, "spaces", "catalog_meta")


def no_statistics(conn: Any, tables: Sequence[str]) -> list[str]:
    """The statements that keep PostgreSQL's planner statistics off ``tables``' columns.
    ANALYZE copies sample values of every column (most common values, histogram bounds)
    into the system table ``pg_statistic``, where a forget could not erase them; the
    catalog's queries are by key and need none."""
    rows = conn.execute(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = ANY(%s)",
        (list(tables),),
    ).fetchall()
    return [f'ALTER TABLE "{r[0]}" ALTER COLUMN "{r[1]}" SET STATISTICS 0' for r in rows]


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


class CatalogUnavailable(StoreError, RuntimeError):
    """The PostgreSQL catalog cannot be reached, or its connection failed mid-call."""


class CatalogRefused(StoreError, ValueError):
    """PostgreSQL refused a value the catalog was given (text with a NUL character)."""


def _typed(exc: BaseException, url: str) -> BaseException:
    """psycopg's errors as the memory's own: an unreachable or failed server, or a value
    PostgreSQL cannot store; anything else as it is."""
    import psycopg

    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return CatalogUnavailable(
            f"the PostgreSQL catalog at {_redacted(url)} failed ({type(exc).__name__}: "
            f"{exc}); check that the server is running and VOXMEM_CATALOG__URL, then retry"
        )
    if isinstance(exc, psycopg.DataError):
        return CatalogRefused(
            f"PostgreSQL refused a value ({exc}); ids, sessions and texts must not contain "
            "NUL characters"
        )
    return exc


class Rows:
    """A read's rows, fetched whole (the connection went back to the pool)."""

    def __init__(self, rows: list[Row]) -> None:
        self._rows = rows

    def fetchone(self) -> Row | None:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[Row]:
        return list(self._rows)

    def __iter__(self) -> Iterator[Row]:
        return iter(self._rows)


class PgConnection:
    """One psycopg connection (a write transaction's) that speaks the SQLite catalog's
    SQL, and notes the tables it deletes from, for the scrub."""

    def __init__(self, conn: Any, catalog: PostgresCatalog) -> None:
        self.raw = conn
        self.catalog = catalog

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        statement = translate(sql)
        self.catalog._note_deletes(statement)
        try:
            return self.raw.execute(statement, tuple(args))
        except Exception as exc:
            raise _typed(exc, self.catalog.url) from exc

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        statement = translate(sql)
        self.catalog._note_deletes(statement)
        cursor = self.raw.cursor()
        batch = [tuple(r) for r in rows]
        if batch:
            try:
                cursor.executemany(statement, batch)
            except Exception as exc:
                raise _typed(exc, self.catalog.url) from exc
        return cursor


class PgReader:
    """What ``read()`` gives: each statement on a pooled connection (the thread's open
    write transaction's, inside one, so that a write reads its own rows)."""

    def __init__(self, catalog: PostgresCatalog) -> None:
        self.catalog = catalog

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        inside = self.catalog._in_write()
        if inside is not None:
            return inside.execute(sql, args)
        with self.catalog._connection() as conn:
            try:
                cursor = conn.execute(translate(sql), tuple(args))
                return Rows(cursor.fetchall() if cursor.description else [])
            except Exception as exc:
                raise _typed(exc, self.catalog.url) from exc


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


def _configure(conn: Any) -> None:
    """Each pooled connection says which schema it writes (see ``writer_check``), and
    that it reads by key.

    The catalog keeps no column statistics (``no_statistics``), so PostgreSQL's planner
    takes any column that no unique index covers alone to hold 200 distinct values: a
    turn's vectors (``vectors``, keyed by turn and space) looked like 0.5 % of the table
    per turn, and the 100 turns of a session like half of it, which it read whole (110
    ms at 100k turns; 3.7 ms by the key, timed once on the catalog alone). The catalog's
    reads and deletes of turns go by a key or a tenant's index, so a sequential scan is
    taken only where no index serves (the few whole-table reads: the audio's keys, the
    turns waiting for the index, the vector bytes a forget checks), and no query is
    compiled (JIT), which such a scan's disabled cost would otherwise call for. These
    are session settings: behind a pooler that hands out connections per transaction, a
    write sets them for its transaction (``write``); for reads, set them on the
    catalog's role (``ALTER ROLE ... SET enable_seqscan = off``)."""
    conn.execute(f"SET {WRITER_SETTING} = '{SCHEMA_VERSION}'")
    conn.execute("SET enable_seqscan = off")
    conn.execute("SET jit = off")


class PostgresCatalog(SqlCatalog):
    """A PostgreSQL catalog shared by threads (a pool of connections), processes and
    hosts."""

    NO_LIMIT = "ALL"

    def __init__(self, url: str, audio_in_database: bool = True, pool_size: int = 8) -> None:
        from psycopg_pool import ConnectionPool

        self.url = url
        self.stores_audio = audio_in_database
        self._closed = False
        self._tx = threading.local()
        self._dirty: set[str] = set()
        self._dirty_lock = threading.Lock()
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True, "row_factory": _row_factory},
            configure=_configure,
            open=False,
            name="voxmem-catalog",
        )
        try:
            self._pool.open(wait=True, timeout=15)
        except Exception as exc:
            self._pool.close()
            raise CatalogUnavailable(
                f"cannot reach the PostgreSQL catalog at {_redacted(url)} ({exc}); check "
                "that the server is running and VOXMEM_CATALOG__URL"
            ) from exc
        self._migrate()

    def __repr__(self) -> str:
        return f"PostgresCatalog({_redacted(self.url)})"

    def child_env(self) -> dict[str, str]:
        return {
            "VOXMEM_CATALOG__URL": self.url,
            "VOXMEM_CATALOG__AUDIO": "database" if self.stores_audio else "folder",
        }

    # -- connections ---------------------------------------------------------------

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        if self._closed:
            raise MemoryClosed(f"the catalog at {_redacted(self.url)} is closed; open it again")
        from psycopg_pool import PoolTimeout

        try:
            with self._pool.connection(timeout=60) as conn:
                yield conn
        except PoolTimeout as exc:
            raise CatalogUnavailable(
                f"no connection to the PostgreSQL catalog at {_redacted(self.url)} within "
                f"60 s ({exc}); check the server, or raise VOXMEM_CATALOG__POOL_SIZE"
            ) from exc

    def _in_write(self) -> PgConnection | None:
        found: PgConnection | None = getattr(self._tx, "conn", None)
        return found

    def _note_deletes(self, statement: str) -> None:
        found = re.match(r"\s*DELETE FROM (\w+)", statement)
        if found:
            # turns deleted change their speakers' rows too (the sum of voiceprints, the
            # centroid): the old versions of those rows would keep a forgotten print
            also = (
                ("speakers", "speaker_sums", "style_sums") if found.group(1) == "segments" else ()
            )
            with self._dirty_lock:
                self._dirty.update((found.group(1), *also))

    def read(self) -> PgReader:
        if self._closed:
            raise MemoryClosed(f"the catalog at {_redacted(self.url)} is closed; open it again")
        return PgReader(self)

    @contextmanager
    def write(self) -> Iterator[PostgresWrite]:
        """A transaction that holds the catalog's write lock from its first statement. A
        write opened inside another one on the same thread is a savepoint of it (on the
        same connection, so it never waits for its own lock)."""
        inside = self._in_write()
        if inside is not None:
            with inside.raw.transaction():
                yield PostgresWrite(inside)
            return
        with self._connection() as conn:
            try:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                    # for this transaction too, whatever pooler sits in front of the server
                    conn.execute(
                        "SELECT set_config(%s, %s, true), set_config('enable_seqscan', 'off', "
                        "true), set_config('jit', 'off', true)",
                        (WRITER_SETTING, str(SCHEMA_VERSION)),
                    )
                    conn.execute("UPDATE catalog_meta SET value = value + 1 WHERE key = 'version'")
                    self._tx.conn = PgConnection(conn, self)
                    try:
                        yield PostgresWrite(self._tx.conn)
                    finally:
                        self._tx.conn = None
            except StoreError:
                raise
            except Exception as exc:
                typed = _typed(exc, self.url)
                if typed is exc:
                    raise
                raise typed from exc

    def scrub(self, timeout: float = 5.0) -> None:
        """Rewrite the tables deleted from since the last scrub, so that the deleted rows
        leave the database's files; CatalogBusy when other sessions' locks keep it from
        starting, or an open snapshot that may still see the deleted rows keeps them, for
        ``timeout`` seconds (what remains in the WAL: see the module's notes)."""
        import psycopg

        with self._dirty_lock:
            # nothing noted: a forget resumed after a crash, whose deletes another process
            # ran; rewrite every table a forget deletes from
            tables, self._dirty = sorted(self._dirty or SCRUBBED), set()
        deadline = time.monotonic() + timeout
        with self._connection() as conn:
            try:
                conn.execute(f"SET lock_timeout = {max(1, int(timeout * 1000))}")
                # no transaction that began before this point may still see the rows
                horizon = int(
                    conn.execute("SELECT pg_current_xact_id()::text::bigint").fetchone()[0]
                )
                while True:
                    for table in tables:
                        conn.execute(f"VACUUM FULL {table}")
                    if not self._older_snapshots(conn, horizon):
                        return
                    if time.monotonic() > deadline:
                        raise CatalogBusy(
                            "another session's open transaction can still see the forgotten "
                            "rows, so PostgreSQL keeps them in its files; the forget finishes "
                            "when it ends (ask the same forget again, or `voxmem verify`)"
                        )
                    time.sleep(0.2)
            except psycopg.errors.LockNotAvailable as exc:
                raise CatalogBusy(
                    f"the catalog's tables stayed locked by other sessions for {timeout:.0f} s, "
                    "so deleted rows may linger in its files; the forget finishes when it is "
                    "asked again, or with `voxmem verify`"
                ) from exc
            except CatalogBusy:
                with self._dirty_lock:
                    self._dirty.update(tables)  # still to do
                raise
            except Exception as exc:
                typed = _typed(exc, self.url)
                if typed is exc:
                    raise
                raise typed from exc
            finally:
                with contextlib.suppress(Exception):
                    conn.execute("SET lock_timeout = 0")

    @staticmethod
    def _older_snapshots(conn: Any, horizon: int) -> bool:
        """Whether a session or a replication slot holds a snapshot from before
        ``horizon`` (a transaction id), which keeps VACUUM from removing what it sees."""
        row = conn.execute(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
            "AND backend_xmin IS NOT NULL "
            "AND (backend_xmin::text::bigint) < %s",
            (horizon % (1 << 32),),
        ).fetchone()
        slots = conn.execute(
            "SELECT COUNT(*) FROM pg_replication_slots WHERE xmin IS NOT NULL "
            "AND (xmin::text::bigint) < %s",
            (horizon % (1 << 32),),
        ).fetchone()
        return bool(row[0] or slots[0])

    def close(self) -> None:
        """Close the pool's connections; later calls raise MemoryClosed."""
        self._closed = True
        self._pool.close()

    def version(self) -> int:
        """Moves whenever anything was committed, by this process or another."""
        row = self.read().execute("SELECT value FROM catalog_meta WHERE key = 'version'")
        return int(row.fetchone()[0])

    # -- schema --------------------------------------------------------------------

    def _migrate(self) -> None:
        with self._connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            exists = conn.execute(
                "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() "
                "AND table_name = 'catalog_meta'"
            ).fetchone()
            if exists is None:
                for statement in SCHEMA:
                    conn.execute(statement)
                for statement in no_statistics(conn, TABLES):
                    conn.execute(statement)
                return
            version = int(
                conn.execute(
                    "SELECT value FROM catalog_meta WHERE key = 'schema_version'"
                ).fetchone()[0]
            )
            if version < SCHEMA_VERSION:
                # and every writer's lock: a write of an older voxmem still running lands
                # wholly before the migration (whose sums then count its turns) or after
                # it (refused by the new guard), never across it
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                for v in range(version + 1, SCHEMA_VERSION + 1):
                    for statement in PG_MIGRATIONS.get(v, []):
                        conn.execute(statement)
                    if v in PG_MIGRATIONS:
                        for statement in no_statistics(conn, PG_MIGRATION_TABLES[v]):
                            conn.execute(statement)
                    conn.execute(
                        "UPDATE catalog_meta SET value = %s WHERE key = 'schema_version'", (v,)
                    )
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
