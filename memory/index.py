"""The vector index: Chroma collections, one per tenant and embedding space.

A tenant's vectors live only in that tenant's collections, so no filter or
search can reach another tenant's data. The same code runs on an embedded
``PersistentClient`` (the default) or a Chroma server (``chroma.url``).
Chroma holds copies only; the catalog can always rebuild it. Chroma's file
layout is known here and nowhere else (``purge``, ``holds``).

Errors are never read as "nothing there": only Chroma's "collection does not
exist" is; a server that cannot be reached raises ``IndexUnavailable``.

An embedded Chroma keeps its HNSW graphs in each process's memory: a process
does not see another's writes, and two processes persisting graphs at once
lose vectors. So in embedded mode every index operation holds a file lock
(shared to read, exclusive to write), writers bump a generation number, and a
process that finds the generation moved reloads the index before using it.
Many processes writing at once is what the Chroma server mode is for; this
keeps the embedded mode correct when it happens anyway.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import struct
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlparse

import numpy as np

from voxmem.memory.protocols import IndexHit, Metadata
from voxmem.memory.records import IndexDamaged, IndexUnavailable, MemoryClosed
from voxmem.settings import ChromaSettings

__all__ = ["ChromaIndex", "IndexHit", "IndexUnavailable", "VectorIndex", "collection_name"]
T = TypeVar("T")
log = logging.getLogger(__name__)
#: below Chroma's largest accepted batch
UPSERT_BATCH = 4000
#: Chroma's defaults for when a collection's graph is written out, which an erase
#: changes for its own writes and puts back
HNSW_WRITE_DEFAULTS = {"sync_threshold": 1000, "batch_size": 100}
#: seconds without a new orphan graph folder before compaction trusts the disk
ORPHAN_SETTLE_S = 0.3
#: seconds without any change to the index's files before they are trusted to hold
#: what this process wrote (Chroma writes graphs out from background tasks)
INDEX_SETTLE_S = 0.3
#: the longest wait for the index's files to settle
SETTLE_TIMEOUT_S = 60.0
#: the same with every writer and reader of the index held back meanwhile: the files
#: settle within a moment then, unless something outside the locks keeps writing, and
#: the wait should not stall the searches of live sessions for long
SETTLE_LOCKED_TIMEOUT_S = 10.0


def collection_name(tenant: str, space: str) -> str:
    """Chroma-safe, fixed-length name; the tenant id itself is kept in the metadata."""
    digest = hashlib.sha256(tenant.encode()).hexdigest()[:24]
    return f"vx-{digest}-{space}"


def _unreachable() -> tuple[type[BaseException], ...]:
    """The exceptions that mean the index engine cannot be reached or failed inside."""
    import httpx
    from chromadb.errors import InternalError

    return (httpx.HTTPError, ConnectionError, OSError, InternalError)


def _damaged(exc: BaseException) -> bool:
    """Whether opening an embedded index failed on its files' contents (SQLite's "not a
    database", "malformed"), not on access to them."""
    text = str(exc).lower()
    return any(s in text for s in ("not a database", "malformed", "database disk image"))


def _missing(exc: BaseException) -> bool:
    """Whether ``exc`` is Chroma saying a collection does not exist (by version)."""
    from chromadb.errors import ChromaError, NotFoundError

    return isinstance(exc, NotFoundError) or (
        isinstance(exc, ValueError | ChromaError) and "does not exist" in str(exc)
    )


class SharedLock:
    """Many readers or one writer, among a process's threads; a waiting writer holds new
    readers back. Re-entrant: a thread holding it exclusively may take it again either
    way, and a reader may read again."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer: int | None = None
        self._depth = 0
        self._waiting = 0
        self._mine = threading.local()

    @contextmanager
    def shared(self) -> Iterator[None]:
        me = threading.get_ident()
        reads = getattr(self._mine, "reads", 0)
        with self._cond:
            if self._writer != me and not reads:
                while self._writer is not None or self._waiting:
                    self._cond.wait()
            self._readers += 1
        self._mine.reads = reads + 1
        try:
            yield
        finally:
            self._mine.reads = reads
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        me = threading.get_ident()
        with self._cond:
            if self._writer == me:
                self._depth += 1
            else:
                self._waiting += 1
                while self._writer is not None or self._readers:
                    self._cond.wait()
                self._waiting -= 1
                self._writer = me
        try:
            yield
        finally:
            with self._cond:
                if self._depth:
                    self._depth -= 1
                else:
                    self._writer = None
                self._cond.notify_all()


class ChromaIndex:
    """Per-tenant, per-space cosine collections. Reads from several threads run side by
    side; writes, reconnects and reloads run alone."""

    def __init__(self, chroma: ChromaSettings, default_path: Path) -> None:
        self.mode = chroma.mode
        self.url = chroma.url
        self.path = chroma.path or default_path
        self._collections: dict[str, Any] = {}
        self._lock = SharedLock()
        #: the thread holding the index's file lock exclusively (taken only under
        #: ``self._lock.exclusive()``), which may take it again
        self._file_writer: int | None = None
        self._generation = -1
        self._closed = False
        #: whether a collection was dropped since the last purge (its graph folder can
        #: appear on disk after the drop returns)
        self._dropped = False
        if self.mode == "embedded":
            _fill_new_memory()
        self._connect()
        if self.mode == "embedded":
            self._generation = self._read_generation()

    def _connect(self) -> None:
        import chromadb
        from chromadb.config import Settings as ChromaClientSettings

        client_settings = ChromaClientSettings(anonymized_telemetry=False, allow_reset=False)
        try:
            if self.url:
                url = urlparse(self.url)
                self.client = chromadb.HttpClient(
                    host=url.hostname or "localhost",
                    port=url.port or 8000,
                    ssl=url.scheme == "https",
                    settings=client_settings,
                )
                self.client.heartbeat()
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                self.client = chromadb.PersistentClient(
                    path=str(self.path), settings=client_settings
                )
        except Exception as exc:  # chroma raises many kinds; callers get one
            from chromadb.api.client import SharedSystemClient

            # a failed open leaves a half-built client in chroma's per-path cache, and the
            # next open in this process would fail on that instead of on the real cause
            SharedSystemClient.clear_system_cache()
            where = self.url or str(self.path)
            if not self.url and _damaged(exc):
                raise IndexDamaged(
                    f"the embedded Chroma index at {where} is damaged ({exc}). It holds "
                    "copies only: `voxmem rebuild --fresh` erases it and builds it again "
                    "from the catalog (nothing stored is lost)"
                ) from exc
            raise IndexUnavailable(
                f"cannot open the Chroma index at {where} ({type(exc).__name__}: {exc}); "
                "check that the server is running or the folder is writable"
            ) from exc
        self._collections = {}

    # -- cross-process coordination (embedded mode) ----------------------------------

    def _read_generation(self) -> int:
        try:
            return int((self.path / ".voxmem-generation").read_text() or 0)
        except (FileNotFoundError, ValueError):
            return 0

    def _bump_generation(self) -> None:
        gen = self._read_generation() + 1
        tmp = self.path / f".voxmem-generation.{os.getpid()}"
        tmp.write_text(str(gen))
        os.replace(tmp, self.path / ".voxmem-generation")
        self._generation = gen

    def release(self, settle: bool = False) -> None:
        """Let go of the client and everything it holds; the next operation reconnects.
        With ``settle`` (embedded mode), return only once the graphs Chroma writes out
        when it lets go have landed: no file of the index changed for a while."""
        import gc

        with self._lock.exclusive():
            self._collections = {}
            self.client = None  # type: ignore[assignment]
            from chromadb.api.client import SharedSystemClient

            SharedSystemClient.clear_system_cache()
            gc.collect()
            self._generation = -1  # forces a reload on the next access
            if settle:
                self._settle()

    def _settle(self) -> None:
        """Wait until the embedded index's files are quiet, with this process's other
        threads and other processes' writers held back meanwhile: writes that go on
        would keep the files changing for the whole wait (a minute per wait, seen with
        a forget beside a steady ingest), while what Chroma writes out in the background
        for the operations already done lands within a moment. Not to be called from a
        read (the read's shared hold would wait on itself)."""
        if self.mode != "embedded":
            return
        with self._lock.exclusive(), self._file_lock(write=True):
            _wait_quiet(self.path, timeout_s=SETTLE_LOCKED_TIMEOUT_S)

    def _reload(self) -> None:
        from chromadb.api.client import SharedSystemClient

        SharedSystemClient.clear_system_cache()
        self._connect()

    def close(self) -> None:
        """Let go of Chroma for good; later calls raise MemoryClosed."""
        self.release()
        self._closed = True

    @contextmanager
    def access(self, write: bool) -> Iterator[None]:
        """Hold the index for one operation; reload first if another process wrote.
        A failure to reach the engine becomes IndexUnavailable."""
        if self._closed:
            raise MemoryClosed("the memory's index is closed; open the memory again")
        try:
            if write:
                with self._lock.exclusive(), self._hold(write=True):
                    if self.client is None:
                        self._connect()
                    yield
            else:
                with self._reading():
                    yield
        except _unreachable() as exc:
            self._collections = {}
            where = self.url or str(self.path)
            raise IndexUnavailable(
                f"the Chroma index at {where} failed ({type(exc).__name__}: {exc}); check "
                "that the server is running, then retry"
            ) from exc

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """Hold the index to read: shared with other readers, with a client that is
        connected and current (a release or a reload may land between the check and the
        lock: then check again)."""
        while True:
            self._refresh()
            with self._lock.shared(), self._hold(write=False):
                if self.client is not None and (
                    self.mode != "embedded" or self._read_generation() == self._generation
                ):
                    yield
                    return

    def _refresh(self) -> None:
        """Before a read: connect if let go, and reload what another process wrote (alone,
        as it replaces the client the readers use)."""
        if self.client is not None and (
            self.mode != "embedded" or self._read_generation() == self._generation
        ):
            return
        with self._lock.exclusive(), self._hold(write=False):
            if self.client is None:
                self._connect()
            if self.mode == "embedded" and self._read_generation() != self._generation:
                self._reload()
                self._generation = self._read_generation()

    @contextmanager
    def _hold(self, write: bool) -> Iterator[None]:
        """The embedded index's file lock (shared to read, exclusive to write); a writer
        reloads what another process wrote first, and bumps the generation after."""
        with self._file_lock(write):
            if self.mode != "embedded":
                yield
                return
            if write and self._read_generation() != self._generation:
                self._reload()
                self._generation = self._read_generation()
            yield
            if write:
                self._bump_generation()

    @contextmanager
    def _file_lock(self, write: bool) -> Iterator[None]:
        """The embedded index's file lock alone (shared to read, exclusive to write)."""
        if self.mode != "embedded":
            yield
            return
        me = threading.get_ident()
        if self._file_writer == me:  # held exclusively by this thread already
            yield
            return
        with open(self.path / ".voxmem-index.lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX if write else fcntl.LOCK_SH)
            if write:
                self._file_writer = me
            try:
                yield
            finally:
                if write:
                    self._file_writer = None
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _on(self, tenant: str, space: str, create: bool, use: Callable[[Any], T]) -> T | None:
        """``use(collection)``; None when it does not exist (and ``create`` is False).
        A cached collection that another process dropped (a rebuild after its forget)
        is looked up again once."""
        for attempt in (0, 1):
            col = self._collection(tenant, space, create)
            if col is None:
                return None
            try:
                return use(col)
            except Exception as exc:
                if attempt or not _missing(exc):
                    raise
                self._collections.pop(collection_name(tenant, space), None)
        return None  # not reached

    def _collection(self, tenant: str, space: str, create: bool = True) -> Any | None:
        name = collection_name(tenant, space)
        if name in self._collections:
            return self._collections[name]
        if create:
            col = self.client.get_or_create_collection(
                name, metadata={"hnsw:space": "cosine", "tenant": tenant, "space": space}
            )
        else:
            try:
                col = self.client.get_collection(name)
            except Exception as exc:
                if _missing(exc):
                    return None
                raise
        self._collections[name] = col
        return col

    def upsert(
        self,
        tenant: str,
        space: str,
        ids: Sequence[str],
        vectors: Sequence[np.ndarray],
        metadatas: Sequence[Metadata],
    ) -> None:
        if not ids:
            return

        def put(col: Any) -> None:
            for i in range(0, len(ids), UPSERT_BATCH):
                col.upsert(
                    ids=list(ids[i : i + UPSERT_BATCH]),
                    embeddings=[np.asarray(v, np.float32) for v in vectors[i : i + UPSERT_BATCH]],
                    metadatas=[dict(m) for m in metadatas[i : i + UPSERT_BATCH]],
                )

        with self.access(write=True):
            self._on(tenant, space, True, put)

    def update_metadata(
        self, tenant: str, space: str, ids: Sequence[str], metadatas: Sequence[Metadata]
    ) -> None:
        if not ids:
            return
        with self.access(write=True):
            self._on(
                tenant,
                space,
                False,
                lambda col: col.update(ids=list(ids), metadatas=[dict(m) for m in metadatas]),
            )

    def delete(self, tenant: str, space: str, ids: Iterable[str]) -> None:
        ids = list(ids)
        if not ids:
            return
        with self.access(write=True):
            self._on(tenant, space, False, lambda col: col.delete(ids=ids))

    def erase(self, tenant: str, spaces: Sequence[str], ids: Iterable[str]) -> None:
        """Delete ``ids`` from ``spaces`` so that their vectors leave the collections'
        files, without rebuilding them. A deleted HNSW entry keeps its vector in the graph
        file (it is only marked deleted), so each entry is first overwritten in place with
        a random unit vector, then deleted.

        Embedded, with the collection set to write its graph out after every batch of
        changes (then put back to Chroma's defaults). Chroma reads that setting when it
        loads a graph, so this process first lets go of every graph it holds (waiting for
        what Chroma writes out when it lets go, which could otherwise land after the
        erase), loads each again under the setting, and lets go once more after, as a
        graph loaded with it writes itself out after every change for as long as it is
        held. All of it under one hold of the index, so no reader here loads a graph in
        between. A server's setting is left alone: the overwritten entries reach its files
        at its next write-out of the graph."""
        if isinstance(spaces, str):
            raise TypeError("erase takes a sequence of spaces, not one space's name")
        ids = list(dict.fromkeys(ids))
        if not ids or not spaces:
            return
        embedded = self.mode == "embedded"
        with self.access(write=True):
            if embedded:
                self.release(settle=True)
                self._connect()
            try:
                for space in spaces:
                    self._on(tenant, space, False, lambda col: _erase_from(col, ids, embedded))
            finally:
                if embedded:  # settled before another reader may load these graphs
                    self.release(settle=True)

    def query(
        self,
        tenant: str,
        space: str,
        vector: np.ndarray,
        k: int,
        where: Mapping[str, Any] | None = None,
        metadata: bool = False,
    ) -> list[IndexHit]:
        if k <= 0:
            return []
        include = ["distances", "metadatas"] if metadata else ["distances"]
        with self.access(write=False):
            res = self._on(
                tenant,
                space,
                False,
                lambda col: col.query(
                    query_embeddings=[np.asarray(vector, np.float32)],
                    n_results=k,
                    where=dict(where) if where else None,
                    include=include,
                ),
            )
        if res is None:
            return []
        ids, dists = res["ids"][0], res["distances"][0]
        metas = res["metadatas"][0] if metadata else [None] * len(ids)
        return [
            IndexHit(i, 1.0 - float(d), dict(m or {}))
            for i, d, m in zip(ids, dists, metas, strict=True)
        ]

    def ids(self, tenant: str, space: str) -> set[str]:
        def read(col: Any) -> set[str]:
            out: set[str] = set()
            offset, page = 0, 5000
            while True:
                got = col.get(include=[], limit=page, offset=offset)["ids"]
                out.update(got)
                if len(got) < page:
                    return out
                offset += page

        with self.access(write=False):
            return self._on(tenant, space, False, read) or set()

    def count(self, tenant: str, space: str) -> int:
        with self.access(write=False):
            return int(self._on(tenant, space, False, lambda col: col.count()) or 0)

    def drop(self, tenant: str, space: str) -> None:
        name = collection_name(tenant, space)
        with self.access(write=True):
            self._dropped = True
            self._collections.pop(name, None)
            try:
                self.client.delete_collection(name)
            except Exception as exc:
                if not _missing(exc):
                    raise

    def tenants(self) -> set[str]:
        out = set()
        with self.access(write=False):
            for col in self.client.list_collections():
                meta = getattr(col, "metadata", None) or {}
                if "tenant" in meta:
                    out.add(str(meta["tenant"]))
        return out

    def purge(self) -> None:
        """Make deleted vectors unrecoverable from the embedded index's files.

        Chroma leaves the graph folders of dropped collections on disk and deleted
        rows in free pages of its database: erase folders that no live Chroma segment
        owns, then vacuum the database. A server keeps its own files."""
        if self.mode != "embedded":
            return
        import sqlite3

        if self._closed:
            raise MemoryClosed("the memory's index is closed; open the memory again")
        # the files only: no client is needed, nor a reload of what another process wrote
        with self._lock.exclusive(), self._file_lock(write=True):
            db = self.path / "chroma.sqlite3"
            if not db.exists():
                return
            conn = sqlite3.connect(db, timeout=120)
            try:
                live = {r[0] for r in conn.execute("SELECT id FROM segments")}
                # Chroma writes out the graph of a dropped collection from a background
                # task when it lets go of it, which can land after the drop returns: keep
                # erasing orphan folders until none has appeared for a while.
                # With no drop here since the last purge and none found, one look is
                # enough.
                found = _erase_orphans(self.path, live)
                quiet_since = time.monotonic()
                wait = self._dropped or found
                deadline = quiet_since + (ORPHAN_SETTLE_S * 4 if wait else 0.0)
                while time.monotonic() < deadline:
                    if _erase_orphans(self.path, live):
                        quiet_since = time.monotonic()
                    elif time.monotonic() - quiet_since >= ORPHAN_SETTLE_S:
                        break
                    time.sleep(0.05)
                conn.execute("VACUUM")
                self._dropped = False
            finally:
                conn.close()

    compact = purge  # the name earlier callers use

    def clear_unused(self) -> int:
        """Zero the unused part of every graph file's element buffer; the number of
        files changed. A graph file holds room for more elements than it has, and that
        room is written out, when the graph is made, as it lay in this process's
        memory, so it can hold bytes the process once had, a forgotten vector among
        them. Embedded only, under one hold of the index with no graph loaded here
        (this process lets go of them first, so none is written out over the files
        while they are cleared). A file whose header is not the graph layout this reads
        is left alone."""
        if self.mode != "embedded" or not self.path.exists():
            return 0
        changed = 0
        with self.access(write=True):
            self.release(settle=True)
            for folder in self.path.iterdir():
                if folder.is_dir() and _is_uuid(folder.name):
                    changed += _clear_graph_room(folder)
        return changed

    def holds(self, needles: Sequence[bytes]) -> set[str]:
        """The tenants whose collection files contain any of ``needles`` ("" for files
        that belong to no one collection); empty when none does, or in server mode (the
        server's files are out of reach)."""
        if self.mode != "embedded" or not needles:
            return set()
        import sqlite3

        self._settle()  # let Chroma's background writes land first
        owner: dict[str, str] = {}
        db = self.path / "chroma.sqlite3"
        if db.exists():
            conn = sqlite3.connect(db, timeout=120)
            try:
                rows = conn.execute(
                    "SELECT s.id, m.str_value FROM segments s JOIN collection_metadata m "
                    "ON m.collection_id = s.collection WHERE m.key = 'tenant'"
                ).fetchall()
            except sqlite3.DatabaseError:
                rows = []
            finally:
                conn.close()
            owner = {str(folder): str(tenant) for folder, tenant in rows}
        wanted = Needles(needles)

        def holder(path: Path) -> str | None:
            try:
                data = path.read_bytes()
            except FileNotFoundError:  # erased meanwhile (an orphan folder)
                return None
            if not wanted.found_in(data, aligned=path.suffix == ".bin"):
                return None
            rel = path.relative_to(self.path).parts
            return owner.get(rel[0], "") if len(rel) > 1 else ""

        # the largest first, side by side: reading and searching let go of the GIL
        files = sorted(
            (p for p in self.path.rglob("*") if p.is_file()),
            key=lambda p: -_size(p),
        )
        with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
            return {t for t in pool.map(holder, files) if t is not None}


VectorIndex = ChromaIndex  # the name earlier code imported


def erase_embedded(path: Path) -> None:
    """Zero and remove an embedded index's files (a damaged one, before it is built again
    from the catalog): its vectors are copies, and copies of forgotten turns must not
    outlive it in a folder moved aside."""
    import shutil

    if not path.exists():
        return
    for f in path.rglob("*"):
        if f.is_file():
            _zero(f)
    shutil.rmtree(path)


def needle_offset(vector: bytes, prefix: int) -> int | None:
    """Where in a float32 vector the ``prefix`` bytes a search looks for begin: at its
    start, unless it starts with zeros (a sparse or one-hot vector, whose leading zero
    bytes are found in every file), then at its first nonzero value (or as near as the
    window fits). None for a vector of zeros only: nothing in it can be told from the
    zero padding everywhere, and it holds nothing to erase."""
    v = np.frombuffer(vector, np.float32)
    nonzero = np.flatnonzero(v)
    if not nonzero.size:
        return None
    return 4 * int(min(nonzero[0], max(0, v.size - prefix // 4)))


def stored_forms(vector: bytes, prefix: int) -> tuple[bytes, ...]:
    """``prefix`` bytes of a float32 vector (from ``needle_offset``: its first bytes,
    unless they are zeros) as a cosine collection's graph file may hold them: as
    given, and as HNSW normalises it again when it stores it (a unit vector's last bits
    can change), summed in order or pairwise, in float32 or in double (the form as
    given first). A search of the index files for forgotten vectors looks for each
    form. None for a vector of zeros only."""
    v = np.frombuffer(vector, np.float32)
    at = needle_offset(vector, prefix)
    if at is None:
        return ()
    given = bytes(vector[at : at + prefix])
    forms: set[bytes] = set()
    squares = v * v
    sums = (
        np.cumsum(squares, dtype=np.float32)[-1],
        np.sum(squares, dtype=np.float32),
        np.float32(np.sum(v.astype(np.float64) ** 2)),
    )
    for total in sums:
        norm = np.float32(1.0) / (np.sqrt(np.float32(total)) + np.float32(1e-30))
        forms.add((v * norm).astype(np.float32).tobytes()[at : at + prefix])
    return (given, *sorted(forms - {given}))


#: files at least this large are searched with numpy rather than once per needle
_BIG_FILE = 1 << 20
#: 4-byte words looked at per step of that search
_CHUNK_WORDS = 1 << 22


class Needles:
    """Byte strings to look for in large files, prepared once for every file searched.

    A large file is read as 32-bit words at multiples of four. Any occurrence of a
    needle of at least 8 bytes covers a whole word at one of the needle's first four
    offsets, so each needle is entered under its four words there: one pass over the
    data, whatever the needles' number (an index of 100k turns holds half a gigabyte,
    and a forget looks for hundreds of needles). A word is a candidate when its low and
    its high 16 bits both occur in the table (two lookups in tables small enough to
    stay in the CPU's cache), then when it is one of the needles' words, and each
    candidate is compared in full."""

    def __init__(self, needles: Iterable[bytes]) -> None:
        found = [bytes(n) for n in dict.fromkeys(needles) if n]
        # a needle shorter than two words, or with a zero word at its head (zero padding
        # is everywhere in HNSW's files and would make every zero word a candidate), is
        # searched for plainly
        self.plain = [
            n for n in found if len(n) < 8 or any(n[j : j + 4] == bytes(4) for j in range(4))
        ]
        plain = set(self.plain)
        self.tables = {
            aligned: self._table(
                [(j, n) for n in found if n not in plain for j in ((0,) if aligned else range(4))]
            )
            for aligned in (False, True)
        }
        self.all = found

    @staticmethod
    def _table(
        entries: list[tuple[int, bytes]],
    ) -> tuple[dict[int, list[tuple[int, bytes]]], np.ndarray, np.ndarray, np.ndarray]:
        by_word: dict[int, list[tuple[int, bytes]]] = {}
        for j, n in entries:
            by_word.setdefault(int.from_bytes(n[j : j + 4], "little"), []).append((j, n))
        words = np.array(sorted(by_word), dtype=np.uint32)
        low = np.zeros(1 << 16, dtype=bool)
        high = np.zeros(1 << 16, dtype=bool)
        low[words & 0xFFFF] = True
        high[words >> 16] = True
        return by_word, words, low, high

    def found_in(self, data: bytes, aligned: bool = False) -> bool:
        """Whether any needle occurs in ``data``. ``aligned``: only at positions that are
        a multiple of four, for files made of 4-byte fields written from 4-byte-aligned
        memory (HNSW's ``.bin`` files), where a copy of a float vector can sit nowhere
        else."""
        if not self.all or not data:
            return False
        if len(data) < _BIG_FILE:
            return any(n in data for n in self.all)
        if any(n in data for n in self.plain):
            return True
        by_word, words, low, high = self.tables[aligned]
        if not by_word:
            return False
        total = len(data) // 4
        for first in range(0, total, _CHUNK_WORDS):
            view = np.frombuffer(
                data, "<u4", count=min(_CHUNK_WORDS, total - first), offset=4 * first
            )
            at = np.flatnonzero(low[view & 0xFFFF])
            got = view[at]
            keep = high[got >> 16]
            at, got = at[keep], got[keep]
            keep = np.isin(got, words)
            for k, word in zip(at[keep].tolist(), got[keep].tolist(), strict=True):
                q = 4 * (first + k)
                for j, n in by_word[word]:
                    if q >= j and data[q - j : q - j + len(n)] == n:
                        return True
        return False


def contains_any(data: bytes, needles: Sequence[bytes], aligned: bool = False) -> bool:
    """Whether any needle occurs in ``data`` (see ``Needles``)."""
    return Needles(needles).found_in(data, aligned)


def _snapshot(path: Path) -> set[tuple[str, int, int]] | None:
    """Every file's name, size and time; None when the folder changed while it was read."""
    out = set()
    try:
        for f in path.rglob("*"):
            st = f.stat()
            out.add((str(f), st.st_size, st.st_mtime_ns))
    except OSError:  # a file or folder went away meanwhile
        return None
    return out


def _wait_quiet(
    path: Path, quiet_s: float = INDEX_SETTLE_S, timeout_s: float = SETTLE_TIMEOUT_S
) -> None:
    """Wait until no file under ``path`` has appeared, changed or gone for ``quiet_s``
    (at most ``timeout_s``): a fixed sleep is too short on a busy machine."""
    if not path.exists():
        return
    deadline = time.monotonic() + timeout_s
    last = _snapshot(path)
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(min(0.05, quiet_s))
        now = _snapshot(path)
        if now is None or now != last:
            last, quiet_since = now, time.monotonic()
        elif time.monotonic() - quiet_since >= quiet_s:
            return
    log.warning("the index files at %s kept changing for %.0f s", path, timeout_s)


def _erase_orphans(path: Path, live: set[str]) -> bool:
    """Zero and remove graph folders that no live segment owns; True if any was found."""
    import shutil

    found = False
    for folder in path.iterdir():
        if folder.is_dir() and _is_uuid(folder.name) and folder.name not in live:
            found = True
            for f in folder.rglob("*"):
                if f.is_file():
                    _zero(f)
            shutil.rmtree(folder, ignore_errors=True)
    return found


def _is_uuid(name: str) -> bool:
    import uuid

    try:
        uuid.UUID(name)
    except ValueError:
        return False
    return True


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # gone meanwhile
        return 0


#: glibc's mallopt parameter that fills every block it hands out and takes back with a
#: fixed byte
_M_PERTURB = -6
_PERTURBED = False


def _fill_new_memory() -> bool:
    """Make this process's allocator fill each block it hands out (and takes back) with
    a fixed byte, so that memory Chroma writes out without having filled it (a new
    graph file's room for entries) holds that byte, never bytes the process once had,
    such as a vector it has since forgotten. glibc only; elsewhere False, and
    ``clear_unused`` after a forget is what remains. Once per process."""
    global _PERTURBED
    if not _PERTURBED:
        import ctypes

        try:
            _PERTURBED = bool(ctypes.CDLL(None).mallopt(_M_PERTURB, 0xA5))
        except (AttributeError, OSError):
            log.info("this C library cannot fill new memory; forgets clear graph files after")
    return _PERTURBED


#: a graph's header.bin: format version (int32), then the element buffer's offset,
#: capacity, elements in use and bytes per element (size_t each)
_GRAPH_HEADER = struct.Struct("<iQQQQ")


def _clear_graph_room(folder: Path) -> int:
    """Zero ``data_level0.bin`` past the elements in use; 1 if bytes changed."""
    header, data = folder / "header.bin", folder / "data_level0.bin"
    try:
        head = header.read_bytes()[: _GRAPH_HEADER.size]
        size = data.stat().st_size
    except FileNotFoundError:
        return 0
    if len(head) < _GRAPH_HEADER.size:
        return 0
    version, offset, capacity, used, per = _GRAPH_HEADER.unpack(head)
    # a graph grown since it was made writes only its elements: no room on disk
    if (
        version != 1
        or offset != 0
        or not per
        or used > capacity
        or not (used * per <= size <= capacity * per and size % per == 0)
    ):
        log.warning("graph file %s has a layout this version does not read; left alone", data)
        return 0
    start = used * per
    if start >= size:
        return 0
    with open(data, "r+b") as f:
        f.seek(start)
        if not any(f.read(size - start)):
            return 0
        f.seek(start)
        f.write(b"\0" * (size - start))
        f.flush()
        os.fsync(f.fileno())
    return 1


def _zero(path: Path) -> None:
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.write(b"\0" * size)
        f.flush()
        os.fsync(f.fileno())


def _erase_from(col: Any, ids: list[str], write_out: bool) -> None:
    """Overwrite ``ids``' entries in ``col`` with random unit vectors, then delete them;
    ``write_out``: with the collection set to write its graph out after each batch."""
    dim = getattr(getattr(col, "_model", None), "dimension", None)
    if write_out:  # before anything loads the graph: out after each call
        col.modify(configuration={"hnsw": {"sync_threshold": 2, "batch_size": UPSERT_BATCH}})
    try:
        present = [
            i
            for k in range(0, len(ids), UPSERT_BATCH)
            for i in col.get(ids=ids[k : k + UPSERT_BATCH], include=[])["ids"]
        ]
        if not present:
            return
        if not dim:  # nothing to overwrite with: delete; the check finds the rest
            col.delete(ids=present)
            return
        rng = np.random.default_rng()
        for k in range(0, len(present), UPSERT_BATCH):
            chunk = present[k : k + UPSERT_BATCH]
            noise = rng.standard_normal((len(chunk), dim)).astype(np.float32)
            noise /= np.linalg.norm(noise, axis=1, keepdims=True)
            col.update(ids=chunk, embeddings=list(noise))
        for k in range(0, len(present), UPSERT_BATCH):
            col.delete(ids=present[k : k + UPSERT_BATCH])
    finally:
        # back to Chroma's defaults, which is all voxmem creates collections with (a
        # value read back could be one an interrupted erase left behind)
        if write_out:
            col.modify(configuration={"hnsw": dict(HNSW_WRITE_DEFAULTS)})
