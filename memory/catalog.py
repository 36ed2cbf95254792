"""The catalog: the memory's source of truth, in SQLite (WAL mode); the same statements
run on PostgreSQL (``voxmem.memory.catalog_pg``).

Every segment row, its vectors, speakers, recordings and forget jobs live here;
the index is a rebuildable copy of the vectors. This module holds every SQL
statement of the memory's core (the LangGraph adapter keeps its own items
table). Writes take an immediate lock (``BEGIN IMMEDIATE``) and wait on a busy
timeout, so concurrent writers from threads and processes queue rather than
fail. Deleted rows are overwritten (``secure_delete``) and the WAL is truncated
after a forget, so forgotten bytes do not linger in the files.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from voxmem.memory.protocols import ForgetJob, SegmentFilter
from voxmem.memory.records import (
    CatalogBusy,
    MemoryClosed,
    Recording,
    SchemaTooNew,
    Segment,
    Speaker,
    UnknownSpeaker,
    Word,
    WrongDimension,
)

SCHEMA_VERSION = 5
#: SQL functions only connections of this version define, called by triggers on the
#: turns, so that a process of an older version cannot change turns behind the sums (a
#: later schema keeps defining each earlier one, as the earlier triggers name it)
WRITER_CHECKS = {
    4: "voxmem_writer_schema_4",
    # named so that an older process's refused write says what to do: "no such function:
    # voxmem_is_older_than_schema_5_stop_and_upgrade_it"
    5: "voxmem_is_older_than_schema_5_stop_and_upgrade_it",
}
#: the spaces whose per-speaker running sums the catalog keeps, and their tables: the
#: voiceprints (a speaker's centroid, recomputed by a forget) and the raw style
#: functionals (how a person usually talks, the baseline a style query judges against)
SUMMED_SPACES: dict[str, str] = {"speaker": "speaker_sums", "style_raw": "style_sums"}
BUSY_TIMEOUT_MS = 120_000

#: the changes to turns that move speakers' sums, guarded against older writers
_GUARDED = (
    ("insert", "INSERT"),
    ("delete", "DELETE"),
    ("update", "UPDATE OF state, speaker_id"),
)


def _summed(table: str) -> list[str]:
    """A table of speakers' running sums, every speaker's sum unknown (NULL) at first."""
    return [
        f"""CREATE TABLE {table} (
            speaker_id TEXT PRIMARY KEY,
            total BLOB,
            n INTEGER NOT NULL DEFAULT 0)""",
        f"INSERT INTO {table} (speaker_id, total, n) SELECT id, NULL, 0 FROM speakers",
    ]


def _writers_from(schema: int) -> list[str]:
    """Triggers that let only connections of ``schema`` or later change turns."""
    return [
        f"CREATE TRIGGER segments_schema{schema}_{name} BEFORE {event} ON segments "
        f"BEGIN SELECT {WRITER_CHECKS[schema]}(); END"
        for name, event in _GUARDED
    ]


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
    # 3: durable forget jobs and turns stored while the index was failing; what older
    # versions marked in ordinary columns (-1 stand-ins) becomes jobs
    3: [
        """CREATE TABLE forget_jobs (
            id TEXT PRIMARY KEY,
            tenant TEXT NOT NULL,
            selector TEXT NOT NULL,
            state TEXT NOT NULL,
            speaker_id TEXT,
            everything INTEGER NOT NULL DEFAULT 0,
            owner TEXT,
            created_at REAL NOT NULL)""",
        """CREATE TABLE forget_job_segments (
            job_id TEXT NOT NULL,
            segment_id TEXT NOT NULL,
            PRIMARY KEY (job_id, segment_id))""",
        """CREATE TABLE unindexed (
            segment_id TEXT PRIMARY KEY,
            tenant TEXT NOT NULL)""",
        """INSERT INTO forget_jobs (id, tenant, selector, state, created_at)
            SELECT 'legacy-' || tenant, tenant, 'legacy', 'erase', 0
            FROM segments WHERE state = 'forgetting' GROUP BY tenant""",
        """INSERT INTO forget_job_segments (job_id, segment_id)
            SELECT 'legacy-' || tenant, id FROM segments WHERE state = 'forgetting'""",
        """INSERT OR REPLACE INTO forget_jobs (id, tenant, selector, state, everything,
            created_at) SELECT 'legacy-' || id, id, 'legacy', 'erase', 1, 0
            FROM tenants WHERE created_at = -1""",
        "UPDATE tenants SET created_at = 0 WHERE created_at = -1",
        """INSERT INTO forget_jobs (id, tenant, selector, state, speaker_id, created_at)
            SELECT 'legacy-' || id, tenant, 'legacy', 'erase', id, 0
            FROM speakers WHERE n_segments = -1""",
        "UPDATE speakers SET n_segments = 0 WHERE n_segments = -1",
    ],
    # 4: each speaker's running sum of its live turns' voiceprints, so that a forget
    # subtracts the forgotten prints instead of reading every print of the speaker;
    # speakers from before have an unknown sum (NULL), summed once when first needed
    4: [
        *_summed("speaker_sums"),
        # a voxmem older than this schema, still running, would change turns without
        # keeping the sums: its writes to turns fail instead (the function exists only on
        # this version's connections)
        *_writers_from(4),
    ],
    # 5: each speaker's running sum of its live turns' raw style functionals, so that a
    # style query's baselines are read per speaker instead of every turn of the tenant
    # after each write; speakers from before have an unknown sum, summed once when first
    # needed. A schema 4 voxmem still running would change turns without this sum.
    5: [*_summed("style_sums"), *_writers_from(5)],
}
#: ids per statement in IN (...) lists
CHUNK = 500


class SqlCatalog:
    """The catalog's reads, in SQL both SQLite and PostgreSQL run (PostgreSQL's connection
    translates the placeholders). Subclasses give connections, transactions, the schema
    and the few statements that differ."""

    #: LIMIT's "no limit" in this dialect
    NO_LIMIT = "-1"
    #: whether the catalog also holds the audio bytes (``put_audio`` and friends)
    stores_audio = False

    def read(self) -> Any:
        raise NotImplementedError

    def child_env(self) -> dict[str, str]:
        """Environment a child process needs to open this same catalog with
        :func:`open_catalog` (beside the data folder it is given)."""
        return {}

    # -- reads -----------------------------------------------------------------------

    def tenants(self) -> list[str]:
        return [r["id"] for r in self.read().execute("SELECT id FROM tenants ORDER BY id")]

    def has_tenant(self, tenant: str) -> bool:
        row = self.read().execute("SELECT 1 FROM tenants WHERE id = ?", (tenant,)).fetchone()
        return row is not None

    def segments(
        self,
        tenant: str,
        where: SegmentFilter | None = None,
        *,
        limit: int = -1,
        offset: int = 0,
        vectors: bool = True,
        newest_first: bool = False,
    ) -> list[Segment]:
        where = where or SegmentFilter()
        if where.ids is not None and len(where.ids) > CHUNK:
            out: list[Segment] = []
            for i in range(0, len(where.ids), CHUNK):
                part = SegmentFilter(
                    where.ids[i : i + CHUNK], where.session, where.speaker_id, where.role
                )
                out += self.segments(tenant, part, vectors=vectors, newest_first=newest_first)
            return out
        conn = self.read()
        cond, args = _filter(where)
        order = (
            "created_at DESC, rowid DESC" if newest_first else "created_at, recording_id, start_s"
        )
        page = (limit, offset) if limit >= 0 else (offset,)
        # Turns asked for by id are found by the primary key. PostgreSQL keeps no column
        # statistics of the catalog (no_statistics), so its planner takes an equality on
        # the tenant or the state for a selective one and reads the tenant's every row:
        # written as expressions, they are no index's conditions, only filters.
        # Otherwise the tenant's index (with the session or speaker) is the one to
        # use; SQLite, which keeps no statistics either, would take the state's index
        # for an equality on the state and read every live turn of every tenant.
        scope = (
            "tenant || '' = ? AND state || '' = 'live'"
            if where.ids is not None
            else "tenant = ? AND state || '' = 'live'"
        )
        rows = conn.execute(
            f"SELECT * FROM segments WHERE {scope} AND {cond} "
            f"ORDER BY {order} LIMIT {'?' if limit >= 0 else self.NO_LIMIT} OFFSET ?",
            (tenant, *args, *page),
        ).fetchall()
        out = [_row_to_segment(r) for r in rows]
        if vectors and out:
            _attach_vectors(conn, out)
        return out

    def count_segments(self, tenant: str, where: SegmentFilter, at_most: int) -> int:
        cond, args = _filter(where)
        row = (
            self.read()
            .execute(
                # the state as an expression, as in ``segments``: the tenant's index
                "SELECT count(*) AS n FROM (SELECT 1 FROM segments WHERE tenant = ? AND "
                f"state || '' = 'live' AND {cond} LIMIT ?) AS passing",
                (tenant, *args, at_most),
            )
            .fetchone()
        )
        return int(row["n"])

    def sessions(self, tenant: str) -> list[tuple[str, float, float, int]]:
        rows = self.read().execute(
            "SELECT session, MIN(created_at) AS first, MAX(created_at) AS last, "
            "COUNT(*) AS n FROM segments WHERE tenant = ? AND state = 'live' "
            "GROUP BY session ORDER BY first, session",
            (tenant,),
        )
        return [(r["session"], float(r["first"]), float(r["last"]), int(r["n"])) for r in rows]

    def vectors(
        self, tenant: str, space: str, limit: int
    ) -> tuple[list[str], list[str | None], list[bytes]]:
        rows = (
            self.read()
            .execute(
                "SELECT s.id, s.speaker_id, v.data FROM segments s JOIN vectors v "
                "ON v.segment_id = s.id WHERE s.tenant = ? AND s.state = 'live' AND v.space = ? "
                "LIMIT ?",
                (tenant, space, limit),
            )
            .fetchall()
        )
        return [r["id"] for r in rows], [r["speaker_id"] for r in rows], [r["data"] for r in rows]

    def vector_bytes(self, segment_ids: Sequence[str]) -> list[bytes]:
        out: list[bytes] = []
        for chunk, marks in _chunks(segment_ids):
            out += [
                bytes(r["data"])
                for r in self.read().execute(
                    f"SELECT data FROM vectors WHERE segment_id IN ({marks})", chunk
                )
            ]
        return out

    def speaker_sums(self, tenant: str, space: str) -> dict[str, tuple[np.ndarray | None, int]]:
        """Each of the tenant's speakers' running sum of its live turns' ``space`` vectors
        (one of ``SUMMED_SPACES``) and how many, ``(None, 0)`` where not known yet (a
        speaker from a catalog older than the sums: see ``speakers.space_sums``)."""
        conn = self.read()
        ids = [r[0] for r in conn.execute("SELECT id FROM speakers WHERE tenant = ?", (tenant,))]
        return _space_sums(conn, space, ids)

    def space_dims(self) -> dict[str, int]:
        rows = self.read().execute("SELECT space, dim FROM spaces").fetchall()
        return {r["space"]: int(r["dim"]) for r in rows}

    def speakers(self, tenant: str) -> list[Speaker]:
        return _speakers(self.read(), tenant)

    def speaker(self, tenant: str, ref: str) -> Speaker:
        return _speaker(self.read(), tenant, ref)

    def speaker_names(self, tenant: str) -> list[str]:
        rows = self.read().execute(
            "SELECT name FROM speakers WHERE tenant = ? AND name IS NOT NULL ORDER BY name",
            (tenant,),
        )
        return [r["name"] for r in rows]

    def counts(self, tenant: str | None) -> dict[str, int | float]:
        conn = self.read()
        cond, args = ("tenant = ? AND ", (tenant,)) if tenant else ("", ())
        seg = conn.execute(
            "SELECT COUNT(*) n, COALESCE(SUM(end_s - start_s), 0) secs, "
            f"COUNT(DISTINCT session) sessions FROM segments WHERE {cond}state = 'live'",
            args,
        ).fetchone()
        speakers = conn.execute(f"SELECT COUNT(*) FROM speakers WHERE {cond}1 = 1", args)
        recordings = conn.execute(f"SELECT COUNT(*) FROM recordings WHERE {cond}1 = 1", args)
        return {
            "segments": int(seg["n"]),
            "seconds": float(seg["secs"]),
            "sessions": int(seg["sessions"]),
            "speakers": int(speakers.fetchone()[0]),
            "recordings": int(recordings.fetchone()[0]),
        }

    def live_ids(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {t: set() for t in self.tenants()}
        for r in self.read().execute("SELECT id, tenant FROM segments WHERE state = 'live'"):
            out.setdefault(r["tenant"], set()).add(r["id"])
        return out

    def item_entries(self, tenant: str) -> list[tuple[str, bytes, str]]:
        """The LangGraph store's items that carry a vector: (namespace, key) id, vector,
        namespace."""
        rows = self.read().execute(
            "SELECT namespace, key, vector FROM items WHERE tenant = ? AND vector IS NOT NULL",
            (tenant,),
        )
        return [(f"{r['namespace']}\x1f{r['key']}", r["vector"], r["namespace"]) for r in rows]

    def forget_jobs(self) -> list[ForgetJob]:
        return _forget_jobs(self.read(), None)

    def recordings(self, tenant: str) -> list[Recording]:
        rows = self.read().execute(
            "SELECT * FROM recordings WHERE tenant = ? ORDER BY created_at, id", (tenant,)
        )
        return [
            Recording(
                r["id"], r["tenant"], r["session"], r["source"], r["duration"], r["created_at"]
            )
            for r in rows
        ]

    def item_rows(self, tenant: str) -> list[tuple[str, str, str, bytes | None, float, float]]:
        """The LangGraph store's items of ``tenant``: (namespace, key, value JSON, vector
        bytes or None, created_at, updated_at), oldest first."""
        rows = self.read().execute(
            "SELECT namespace, key, value, vector, created_at, updated_at FROM items "
            "WHERE tenant = ? ORDER BY updated_at, namespace, key",
            (tenant,),
        )
        return [
            (
                r["namespace"],
                r["key"],
                r["value"],
                None if r["vector"] is None else bytes(r["vector"]),
                float(r["created_at"]),
                float(r["updated_at"]),
            )
            for r in rows
        ]

    def shared_windows(self, windows: Sequence[tuple[int, bytes]]) -> set[tuple[int, bytes]]:
        """Which of these (byte offset, bytes) a stored vector still holds at that
        offset."""
        out: set[tuple[int, bytes]] = set()
        by_place: dict[tuple[int, int], list[bytes]] = {}
        for at, data in dict.fromkeys(windows):
            by_place.setdefault((int(at), len(data)), []).append(bytes(data))
        for (at, n), wanted in by_place.items():
            for start in range(0, len(wanted), CHUNK):
                chunk = wanted[start : start + CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = self.read().execute(
                    f"SELECT DISTINCT substr(data, {at + 1}, {n}) FROM vectors "
                    f"WHERE substr(data, {at + 1}, {n}) IN ({marks})",
                    tuple(chunk),
                )
                out |= {(at, bytes(r[0])) for r in rows}
        return out

    def unindexed(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for r in self.read().execute("SELECT segment_id, tenant FROM unindexed"):
            out.setdefault(r["tenant"], []).append(r["segment_id"])
        return out


def _writer_ok() -> int:
    return 1


class SQLiteCatalog(SqlCatalog):
    """A SQLite catalog shared by threads (one connection each) and processes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if path.parent.exists() and not path.parent.is_dir():
            raise NotADirectoryError(f"{path.parent} is a file; give a folder for the memory")
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._open: list[sqlite3.Connection] = []
        self._open_lock = threading.Lock()
        self._closed = False
        self._migrate()

    # -- connections ---------------------------------------------------------------

    def connection(self) -> sqlite3.Connection:
        if self._closed:
            raise MemoryClosed(f"the memory at {self.path.parent} is closed; open it again")
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
            conn.row_factory = sqlite3.Row
            # and the name schema 5's triggers had in the first catalogs made at it
            for check in (*WRITER_CHECKS.values(), "voxmem_writer_schema_5"):
                conn.create_function(check, 0, _writer_ok, deterministic=True)
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA secure_delete = ON")
            with self._open_lock:
                self._open.append(conn)
            self._local.conn = conn
        return conn

    @contextmanager
    def write(self) -> Iterator[SqlWrite]:
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
            yield SqlWrite(conn)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def read(self) -> sqlite3.Connection:
        return self.connection()

    def scrub(self, timeout: float = 5.0) -> None:
        """Fold the WAL back into the database and truncate it (after deletes); raises
        CatalogBusy when readers keep it from finishing within ``timeout`` seconds."""
        conn = self.connection()
        deadline = time.monotonic() + timeout
        while True:
            # the checkpoint waits on readers through the busy handler: keep each try short
            conn.execute("PRAGMA busy_timeout = 100")
            try:
                busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if not busy:
                return
            if time.monotonic() >= deadline:
                raise CatalogBusy(
                    f"the catalog {self.path} stayed busy with readers for {timeout:.0f} s, so "
                    "deleted rows may linger in its write-ahead log; run `voxmem verify` "
                    "when fewer processes use the memory"
                )
            time.sleep(0.05)

    def close(self) -> None:
        """Close every thread's connection; later calls raise MemoryClosed."""
        self._closed = True
        with self._open_lock:
            conns, self._open = self._open, []
        for conn in conns:
            conn.close()
        self._local = threading.local()

    def version(self) -> tuple[int, int]:
        """Moves whenever anything was committed, by this connection or another."""
        conn = self.connection()
        return (conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes)

    # -- schema --------------------------------------------------------------------

    def _migrate(self) -> None:
        conn = self.connection()
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise SchemaTooNew(
                f"{self.path} is not a readable voxmem catalog ({exc}); restore it from a "
                "backup, or move it away to start an empty memory"
            ) from exc
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

    def size(self) -> int:
        """Bytes of the catalog's files (the database, its WAL and shared memory)."""
        return sum(
            p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file()
        )

    def with_labels(
        self, tenant: str, kind: str, labels: Sequence[str], limit: int
    ) -> list[Segment]:
        column = {"style": "style_labels", "environment": "environment_labels"}[kind]
        if not labels:
            return []
        parts = [f"COALESCE(json_extract({column}, ?), 0)" for _ in labels]
        score = parts[0] if len(parts) == 1 else f"max({', '.join(parts)})"
        paths = tuple("$." + json.dumps(label) for label in labels)
        rows = self.read().execute(
            f"SELECT * FROM segments WHERE tenant = ? AND state = 'live' AND {score} > 0 "
            f"ORDER BY {score} DESC LIMIT ?",
            (tenant, *paths, *paths, limit),
        )
        return [_row_to_segment(r) for r in rows]


class SqlWrite:
    """One write transaction. Raw SQL still works (``tx.execute``) for the tables other
    modules own (the LangGraph adapter's items)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)

    def ensure_tenant(self, tenant: str, now: float) -> None:
        self.conn.execute(
            "INSERT OR IGNORE INTO tenants (id, created_at) VALUES (?, ?)", (tenant, now)
        )

    def register_spaces(self, dims: Mapping[str, int], encoders: Mapping[str, str]) -> None:
        known = {r["space"]: r["dim"] for r in self.conn.execute("SELECT space, dim FROM spaces")}
        for space, dim in dims.items():
            if space in known and known[space] != dim:
                raise WrongDimension(
                    f"this memory stores {known[space]}-d {space} vectors, "
                    f"got {dim}; open it with the encoders it was built with"
                )
            if space not in known:
                self.conn.execute(
                    "INSERT INTO spaces (space, dim, encoder) VALUES (?, ?, ?)",
                    (space, dim, encoders.get(space, "given")),
                )

    def add_recording(self, recording: Recording) -> None:
        r = recording
        self.conn.execute(
            "INSERT INTO recordings (id, tenant, session, source, duration, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (r.id, r.tenant, r.session, r.source, r.duration, r.created_at),
        )

    def add_segment(self, segment: Segment, audio_path: str) -> None:
        s = segment
        self.conn.execute(
            "INSERT INTO segments (id, tenant, session, recording_id, start_s, end_s, role, "
            "speaker_id, transcript, words, language, style_labels, environment_labels, "
            "audio_path, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                s.id,
                s.tenant,
                s.session,
                s.recording_id,
                s.start,
                s.end,
                s.role,
                s.speaker_id,
                s.transcript,
                json.dumps([[w.text, w.start, w.end, w.probability] for w in s.words]),
                s.language,
                json.dumps(s.style_labels),
                json.dumps(s.environment_labels),
                audio_path,
                s.created_at,
            ),
        )
        self.conn.executemany(
            "INSERT INTO vectors (segment_id, space, data) VALUES (?, ?, ?)",
            [(s.id, space, _blob(v)) for space, v in s.vectors.items()],
        )
        if s.speaker_id and any(space in s.vectors for space in SUMMED_SPACES):
            owner = self.conn.execute(
                "SELECT tenant FROM speakers WHERE id = ?", (s.speaker_id,)
            ).fetchone()
            if owner is None or owner[0] == s.tenant:  # another tenant's speaker: not its sum
                for space in SUMMED_SPACES:
                    if space in s.vectors:
                        # the value as stored (float32), which is what a forget subtracts
                        stored = np.frombuffer(_blob(s.vectors[space]), np.float32)
                        self._add_sums(space, {s.speaker_id: (stored.astype(np.float64), 1)})

    # -- each speaker's running sums of live turns' vectors (SUMMED_SPACES) ----------

    def space_sums(
        self, space: str, speaker_ids: Sequence[str]
    ) -> dict[str, tuple[np.ndarray | None, int]]:
        """Per speaker: the sum of its live turns' ``space`` vectors (float64; empty when
        it has none) and how many, or ``(None, 0)`` when the sum is not known (a speaker
        from a catalog older than the sums)."""
        return _space_sums(self.conn, space, speaker_ids)

    def set_space_sum(self, space: str, speaker_id: str, total: np.ndarray | None, n: int) -> None:
        """Record a speaker's sum of ``n`` ``space`` vectors (``None``: not known)."""
        data = None if total is None else np.asarray(total, np.float64).tobytes() if n else b""
        self.conn.execute(
            f"INSERT INTO {SUMMED_SPACES[space]} (speaker_id, total, n) VALUES (?, ?, ?) "
            "ON CONFLICT (speaker_id) DO UPDATE SET total = excluded.total, n = excluded.n",
            (speaker_id, data, n if total is not None else 0),
        )

    def print_sums(self, speaker_ids: Sequence[str]) -> dict[str, tuple[np.ndarray | None, int]]:
        """:meth:`space_sums` of the voiceprints."""
        return self.space_sums("speaker", speaker_ids)

    def set_print_sum(self, speaker_id: str, total: np.ndarray | None, n: int) -> None:
        """:meth:`set_space_sum` of the voiceprints."""
        self.set_space_sum("speaker", speaker_id, total, n)

    def _add_sums(self, space: str, change: Mapping[str, tuple[np.ndarray, int]]) -> None:
        """Add (or, with a negative count and a negated sum, take away) ``space`` vectors
        from speakers' sums; an unknown sum stays unknown, a speaker with no row gets an
        unknown one."""
        if not change:
            return
        known = self.space_sums(space, sorted(change))
        for spk, (delta, dn) in change.items():
            total, n = known[spk]
            if total is None:
                self.conn.execute(
                    f"INSERT OR IGNORE INTO {SUMMED_SPACES[space]} (speaker_id, total, n) "
                    "VALUES (?, NULL, 0)",
                    (spk,),
                )
                continue
            n += dn
            if n < 0:  # took away more than it held: no longer to be trusted
                self.set_space_sum(space, spk, None, 0)
                continue
            new = np.zeros(0) if n == 0 else (delta if total.size == 0 else total + delta)
            self.set_space_sum(space, spk, new, n)

    def _live_sums(
        self, space: str, ids: Sequence[str]
    ) -> dict[str | None, tuple[np.ndarray, int]]:
        """Per speaker (``None``: turns with none): the sum and count of the ``space``
        vectors of those of ``ids`` that are live turns."""
        out: dict[str | None, tuple[np.ndarray, int]] = {}
        for chunk, marks in _chunks(list(dict.fromkeys(ids))):
            # a turn counts for its speaker only if the speaker is of the turn's tenant
            rows = self.conn.execute(
                "SELECT k.id, v.data FROM segments s JOIN vectors v "
                "ON v.segment_id = s.id AND v.space = ? "
                "LEFT JOIN speakers k ON k.id = s.speaker_id AND k.tenant = s.tenant "
                f"WHERE s.id IN ({marks}) AND s.state = 'live'",
                (space, *chunk),
            )
            for r in rows:
                v = np.frombuffer(r[1], np.float32).astype(np.float64)
                total, n = out.get(r[0], (np.zeros_like(v), 0))
                out[r[0]] = (total + v, n + 1)
        return out

    def _take_sums(self, ids: Sequence[str]) -> None:
        """Take the live ones of ``ids`` out of their speakers' sums, in every space."""
        for space in SUMMED_SPACES:
            taken = self._live_sums(space, ids)
            self._add_sums(space, {k: (-t, -n) for k, (t, n) in taken.items() if k is not None})

    def segment_ids(self, tenant: str, where: SegmentFilter) -> list[str]:
        out: list[str] = []
        for part in _split_ids(where):
            cond, args = _filter(part)
            out += [
                r["id"]
                for r in self.conn.execute(
                    f"SELECT id FROM segments WHERE tenant = ? AND state = 'live' AND {cond}",
                    (tenant, *args),
                )
            ]
        return out

    def hide_segments(self, ids: Sequence[str]) -> None:
        self._take_sums(ids)
        for chunk, marks in _chunks(ids):
            self.conn.execute(
                f"UPDATE segments SET state = 'forgetting' WHERE id IN ({marks})", chunk
            )

    def delete_segments(self, ids: Sequence[str]) -> None:
        self._take_sums(ids)
        for chunk, marks in _chunks(ids):
            self.conn.execute(f"DELETE FROM vectors WHERE segment_id IN ({marks})", chunk)
            self.conn.execute(f"DELETE FROM segments WHERE id IN ({marks})", chunk)
            self.conn.execute(f"DELETE FROM unindexed WHERE segment_id IN ({marks})", chunk)

    def segment_speakers(self, ids: Sequence[str]) -> set[str]:
        """The speakers of these segments, live or being forgotten."""
        out: set[str] = set()
        for chunk, marks in _chunks(ids):
            out |= {
                r[0]
                for r in self.conn.execute(
                    f"SELECT DISTINCT speaker_id FROM segments WHERE id IN ({marks}) "
                    "AND speaker_id IS NOT NULL",
                    chunk,
                )
            }
        return out

    def drop_empty_recordings(self, tenant: str) -> None:
        self.conn.execute(
            "DELETE FROM recordings WHERE tenant = ? AND id NOT IN "
            "(SELECT DISTINCT recording_id FROM segments WHERE tenant = ?)",
            (tenant, tenant),
        )

    def speakers(self, tenant: str) -> list[Speaker]:
        return _speakers(self.conn, tenant)

    def speaker(self, tenant: str, ref: str) -> Speaker:
        return _speaker(self.conn, tenant, ref)

    def put_speaker(self, speaker: Speaker) -> None:
        s = speaker
        new = self.conn.execute("SELECT 1 FROM speakers WHERE id = ?", (s.id,)).fetchone() is None
        self.conn.execute(
            "INSERT INTO speakers (id, tenant, name, centroid, n_segments, created_at, "
            "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
            "name = excluded.name, centroid = excluded.centroid, "
            "n_segments = excluded.n_segments, updated_at = excluded.updated_at",
            (s.id, s.tenant, s.name, _blob(s.centroid), s.n_segments, s.created_at, s.updated_at),
        )
        # a new speaker's sums are known: empty. A speaker already stored keeps its rows,
        # or, with none (stored by an older voxmem), stays unknown until summed: it may
        # have turns already
        if new:
            for table in SUMMED_SPACES.values():
                self.conn.execute(
                    f"INSERT OR IGNORE INTO {table} (speaker_id, total, n) VALUES (?, ?, 0)",
                    (s.id, b""),
                )

    def delete_speaker(self, speaker_id: str) -> None:
        self.conn.execute("DELETE FROM speakers WHERE id = ?", (speaker_id,))
        for table in SUMMED_SPACES.values():
            self.conn.execute(f"DELETE FROM {table} WHERE speaker_id = ?", (speaker_id,))

    def voiceprints(self, speaker_id: str) -> list[np.ndarray]:
        return self.voiceprints_of([speaker_id])[speaker_id]

    def voiceprints_of(self, speaker_ids: Sequence[str]) -> dict[str, list[np.ndarray]]:
        """:meth:`space_vectors_of` of the voiceprints."""
        return self.space_vectors_of("speaker", speaker_ids)

    def space_vectors_of(
        self, space: str, speaker_ids: Sequence[str]
    ) -> dict[str, list[np.ndarray]]:
        """Each speaker's live turns' ``space`` vectors (a forget recomputes the centroid
        of every speaker of its turns; an unknown sum is summed from these once): their
        turns are found through each speaker's row (so the (tenant, speaker_id) index is used), and
        their vectors read in key order, one pass through the vectors table rather than
        a read of a random page per turn (minutes on a large catalog not in memory)."""
        out: dict[str, list[np.ndarray]] = {i: [] for i in speaker_ids}
        owner: dict[str, str] = {}
        for chunk, marks in _chunks(list(out)):
            rows = self.conn.execute(
                "SELECT s.id, s.speaker_id FROM speakers k "
                "JOIN segments s ON s.tenant = k.tenant AND s.speaker_id = k.id "
                f"WHERE k.id IN ({marks}) AND s.state = 'live'",
                chunk,
            )
            owner.update((r[0], r[1]) for r in rows)
        for chunk, marks in _chunks(sorted(owner)):
            rows = self.conn.execute(
                "SELECT segment_id, data FROM vectors "
                f"WHERE segment_id IN ({marks}) AND space = ? ORDER BY segment_id",
                (*chunk, space),
            )
            for r in rows:
                out[owner[r[0]]].append(np.frombuffer(r[1], np.float32))
        return out

    def set_speaker(self, segment_ids: Sequence[str], speaker_id: str) -> None:
        self._take_sums(segment_ids)
        for chunk, marks in _chunks(segment_ids):
            self.conn.execute(
                f"UPDATE segments SET speaker_id = ? WHERE id IN ({marks})", (speaker_id, *chunk)
            )
        # into the new speaker's sums, as far as the turns are of its tenant
        for space in SUMMED_SPACES:
            moved = self._live_sums(space, segment_ids)
            self._add_sums(space, {k: v for k, v in moved.items() if k is not None})

    def delete_items(self, tenant: str, before: float) -> None:
        self.conn.execute(
            "DELETE FROM items WHERE tenant = ? AND updated_at <= ?", (tenant, before)
        )

    def drop_tenant_if_empty(self, tenant: str) -> bool:
        for table in ("segments", "speakers", "items"):
            if self.conn.execute(
                f"SELECT 1 FROM {table} WHERE tenant = ? LIMIT 1", (tenant,)
            ).fetchone():
                return False
        if self.conn.execute(
            "SELECT 1 FROM forget_jobs WHERE tenant = ? LIMIT 2", (tenant,)
        ).fetchall()[1:]:
            return False  # another forget of the tenant still needs its row
        self.conn.execute("DELETE FROM tenants WHERE id = ?", (tenant,))
        return True

    def add_forget_job(self, job: ForgetJob) -> None:
        self.conn.execute(
            "INSERT INTO forget_jobs (id, tenant, selector, state, speaker_id, everything, "
            "owner, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                job.id,
                job.tenant,
                job.selector,
                job.state,
                job.speaker_id,
                int(job.everything),
                job.owner,
                job.created_at,
            ),
        )
        self.conn.executemany(
            "INSERT INTO forget_job_segments (job_id, segment_id) VALUES (?, ?)",
            [(job.id, s) for s in job.segments],
        )
        self.hide_segments(job.segments)

    def forget_job(self, job_id: str) -> ForgetJob | None:
        jobs = _forget_jobs(self.conn, job_id)
        return jobs[0] if jobs else None

    def set_forget_job(self, job_id: str, *, state: str | None = None, owner: str | None) -> None:
        if state is None:
            self.conn.execute("UPDATE forget_jobs SET owner = ? WHERE id = ?", (owner, job_id))
        else:
            self.conn.execute(
                "UPDATE forget_jobs SET state = ?, owner = ? WHERE id = ?", (state, owner, job_id)
            )

    def delete_forget_job(self, job_id: str) -> None:
        self.conn.execute("DELETE FROM forget_job_segments WHERE job_id = ?", (job_id,))
        self.conn.execute("DELETE FROM forget_jobs WHERE id = ?", (job_id,))

    def put_item_row(
        self,
        tenant: str,
        row: tuple[str, str, str, bytes | None, float, float],
    ) -> None:
        """One LangGraph item as :meth:`SqlCatalog.item_rows` gives it (migrations)."""
        self.conn.execute(
            "INSERT INTO items (tenant, namespace, key, value, vector, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (tenant, *row),
        )

    def mark_unindexed(self, tenant: str, ids: Sequence[str]) -> None:
        self.conn.executemany(
            "INSERT OR IGNORE INTO unindexed (segment_id, tenant) VALUES (?, ?)",
            [(i, tenant) for i in ids],
        )

    def clear_unindexed(self, ids: Sequence[str]) -> None:
        for chunk, marks in _chunks(ids):
            self.conn.execute(f"DELETE FROM unindexed WHERE segment_id IN ({marks})", chunk)


# -- helpers --------------------------------------------------------------------------


def _blob(v: np.ndarray) -> bytes:
    return np.asarray(v, np.float32).tobytes()


def _chunks(ids: Sequence[str]) -> Iterator[tuple[tuple[str, ...], str]]:
    for i in range(0, len(ids), CHUNK):
        chunk = tuple(ids[i : i + CHUNK])
        yield chunk, ",".join("?" * len(chunk))


def _split_ids(where: SegmentFilter) -> Iterator[SegmentFilter]:
    if where.ids is None:
        yield where
        return
    for chunk, _ in _chunks(where.ids):
        yield SegmentFilter(chunk, where.session, where.speaker_id, where.role)


def _filter(where: SegmentFilter) -> tuple[str, tuple[Any, ...]]:
    clauses, args = ["1 = 1"], []
    if where.ids is not None:
        clauses.append(f"id IN ({','.join('?' * len(where.ids))})")
        args += list(where.ids)
    for column, value in (
        ("session", where.session),
        ("speaker_id", where.speaker_id),
        ("role", where.role),
    ):
        if value is not None:
            clauses.append(f"{column} = ?")
            args.append(value)
    return " AND ".join(clauses), tuple(args)


def _row_to_segment(r: sqlite3.Row) -> Segment:
    return Segment(
        r["id"],
        r["tenant"],
        r["session"],
        r["recording_id"],
        r["start_s"],
        r["end_s"],
        r["role"],
        r["speaker_id"],
        r["transcript"],
        [Word(t, s, e, p) for t, s, e, p in json.loads(r["words"])],
        r["language"],
        json.loads(r["style_labels"]),
        json.loads(r["environment_labels"]),
        {},
        r["created_at"],
    )


def _attach_vectors(conn: sqlite3.Connection, segments: list[Segment]) -> None:
    by_id = {s.id: s for s in segments}
    for chunk, marks in _chunks(list(by_id)):
        for r in conn.execute(
            f"SELECT segment_id, space, data FROM vectors WHERE segment_id IN ({marks})", chunk
        ):
            by_id[r["segment_id"]].vectors[r["space"]] = np.frombuffer(r["data"], np.float32).copy()


def _row_to_speaker(row: sqlite3.Row) -> Speaker:
    return Speaker(
        row["id"],
        row["tenant"],
        row["name"],
        np.frombuffer(row["centroid"], np.float32).copy(),
        int(row["n_segments"]),
        float(row["created_at"]),
        float(row["updated_at"]),
    )


def _space_sums(
    conn: Any, space: str, speaker_ids: Sequence[str]
) -> dict[str, tuple[np.ndarray | None, int]]:
    out: dict[str, tuple[np.ndarray | None, int]] = dict.fromkeys(speaker_ids, (None, 0))
    for chunk, marks in _chunks(list(speaker_ids)):
        rows = conn.execute(
            f"SELECT speaker_id, total, n FROM {SUMMED_SPACES[space]} "
            f"WHERE speaker_id IN ({marks}) AND total IS NOT NULL",
            chunk,
        )
        for r in rows:
            out[r[0]] = (np.frombuffer(bytes(r[1]), np.float64).copy(), int(r[2]))
    return out


def _speakers(conn: sqlite3.Connection, tenant: str) -> list[Speaker]:
    rows = conn.execute(
        "SELECT * FROM speakers WHERE tenant = ? ORDER BY created_at, id", (tenant,)
    )
    return [_row_to_speaker(r) for r in rows]


def _speaker(conn: sqlite3.Connection, tenant: str, ref: str) -> Speaker:
    """By id or by name."""
    row = conn.execute(
        "SELECT * FROM speakers WHERE tenant = ? AND (id = ? OR name = ?) "
        "ORDER BY id = ? DESC LIMIT 1",
        (tenant, ref, ref, ref),
    ).fetchone()
    if row is None:
        raise UnknownSpeaker(
            f"tenant {tenant!r} has no speaker {ref!r}; "
            "list them with voxmem speakers list --tenant ..."
        )
    return _row_to_speaker(row)


def _forget_jobs(conn: sqlite3.Connection, job_id: str | None) -> list[ForgetJob]:
    cond, args = ("WHERE id = ?", (job_id,)) if job_id else ("", ())
    jobs = conn.execute(f"SELECT * FROM forget_jobs {cond} ORDER BY created_at, id", args)
    out = []
    for r in jobs.fetchall():
        segs = conn.execute(
            "SELECT segment_id FROM forget_job_segments WHERE job_id = ?", (r["id"],)
        )
        out.append(
            ForgetJob(
                r["id"],
                r["tenant"],
                r["selector"],
                r["state"],
                tuple(s[0] for s in segs),
                r["speaker_id"],
                bool(r["everything"]),
                r["owner"],
                float(r["created_at"]),
            )
        )
    return out


#: the name this class had when SQLite was the only catalog
SQLiteWrite = SqlWrite


def open_catalog(settings: Any, root: Path) -> Any:
    """The catalog the settings choose: SQLite in ``root`` (the default), or PostgreSQL
    at ``settings.catalog.url``."""
    if settings.catalog.url is None:
        return SQLiteCatalog(root / "catalog.sqlite3")
    from voxmem.memory.catalog_pg import PostgresCatalog

    return PostgresCatalog(
        settings.catalog.url.get_secret_value(),
        audio_in_database=settings.catalog.audio == "database",
        pool_size=settings.catalog.pool_size,
    )


def open_audio(settings: Any, catalog: Any, root: Path) -> Any:
    """Where the turns' audio lives: in the catalog when it holds audio, else FLAC files
    in the data folder, or in ``settings.catalog.audio_dir`` when that is set (a folder
    every process of a PostgreSQL catalog shares)."""
    from voxmem.memory.audio_files import AudioFiles, DatabaseAudio

    if getattr(catalog, "stores_audio", False):
        return DatabaseAudio(catalog)
    folder = settings.catalog.audio_dir
    if settings.catalog.url is not None and folder is None:
        raise ValueError(
            "VOXMEM_CATALOG__AUDIO=folder needs VOXMEM_CATALOG__AUDIO_DIR, a folder every "
            "voxmem process of this catalog shares"
        )
    return AudioFiles(root, folder)
