"""Memory writes off the reply path.

The agent never waits for a store write before it answers: the user's turn (its
audio and what perception found) and the agent's turn (its synthesised audio and
text) are queued here and written by one worker thread, in order. ``flush`` waits
for the queue (recall does, for its own tenant, so a fact said a moment ago is
found), and ``close`` drains it, so a turn that was answered is never lost when the
process exits normally (``close`` is also registered with ``atexit``). A crash (kill
-9, power loss) loses at most the writes still queued: each write is one catalog
transaction, so nothing is ever half stored.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger("voxmem.agent")


@dataclass
class WriteJob:
    """One unit of work for the writer: ``run`` is called in the worker thread."""

    tenant: str
    what: str
    run: Callable[[], Any]
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None
    seconds: float = 0.0
    _waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = field(
        default_factory=list
    )


class MemoryWriter:
    """One worker thread that performs queued memory writes in order."""

    def __init__(self) -> None:
        # unbounded: a put never blocks the event loop; what waits is a few turns' audio
        self._queue: queue.Queue[WriteJob | None] = queue.Queue()
        self._pending: dict[str, int] = {}
        self._cond = threading.Condition()
        self._closed = False
        self.failures: list[tuple[str, str]] = []
        self._thread = threading.Thread(target=self._work, name="voxmem-writer", daemon=True)
        self._thread.start()
        atexit.register(self.close)

    def submit(self, tenant: str, what: str, run: Callable[[], Any]) -> WriteJob:
        """Queue ``run``; returns at once (blocks only when the queue is full)."""
        if self._closed:
            raise RuntimeError("the memory writer is closed; open a new agent")
        job = WriteJob(tenant, what, run)
        with self._cond:
            self._pending[tenant] = self._pending.get(tenant, 0) + 1
        self._queue.put(job)
        return job

    async def wait(self, job: WriteJob | None) -> None:
        """Wait for ``job`` without holding a thread (None: nothing to wait for)."""
        if job is None:
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._cond:
            if job.done.is_set():
                return
            job._waiters.append((loop, future))
        await future

    def take_failures(self) -> list[tuple[str, str]]:
        """Writes that failed since the last call (for the next turn's notes)."""
        with self._cond:
            out, self.failures = self.failures, []
        return out

    def pending(self, tenant: str | None = None) -> int:
        """Writes (of ``tenant``) queued or running."""
        with self._cond:
            return self._count(tenant)

    def flush(self, tenant: str | None = None, timeout: float | None = None) -> bool:
        """Wait until no write (of ``tenant``) is queued or running; False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._count(tenant):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def _count(self, tenant: str | None) -> int:
        if tenant is None:
            return sum(self._pending.values())
        return self._pending.get(tenant, 0)

    def close(self, timeout: float | None = None) -> None:
        """Finish every queued write, then stop the worker."""
        if self._closed:
            return
        self._closed = True
        self._queue.put(None)
        self._thread.join(timeout)
        with contextlib.suppress(Exception):  # the interpreter may be shutting down
            atexit.unregister(self.close)

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            began = time.perf_counter()
            try:
                job.result = job.run()
            except BaseException as exc:  # the worker must outlive one bad write
                job.error = exc
                self.failures.append((job.what, f"{type(exc).__name__}: {exc}"))
                log.error("memory write failed (%s): %s", job.what, exc)
            finally:
                job.seconds = time.perf_counter() - began
                with self._cond:
                    job.done.set()
                    self._pending[job.tenant] -= 1
                    if not self._pending[job.tenant]:
                        del self._pending[job.tenant]
                    self._cond.notify_all()
                    waiters, job._waiters = job._waiters, []
                for loop, future in waiters:
                    with contextlib.suppress(RuntimeError):  # its loop has closed
                        loop.call_soon_threadsafe(_resolve, future)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class MetaLedger:
    """Which stored turns were requests to the memory (and the agent's answers to
    them), so recall can skip them: "what did I say about the budget?" is not what
    the user said about the budget. A small SQLite table beside the checkpoints,
    shared by every process on the data directory; forgotten turns simply stop
    coming back from recall, so stale ids are harmless."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
        self._lock = threading.Lock()
        with self._lock, self._conn:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS meta_turns (tenant TEXT NOT NULL, "
                "segment_id TEXT NOT NULL, PRIMARY KEY (tenant, segment_id))"
            )
            # the agent's replies to questions about someone's life that the memory
            # could not answer ("I don't know when Ben's test is"): they hold the
            # question's words, so a later asking of it would take them for an answer
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS unanswered_replies (tenant TEXT NOT NULL, "
                "segment_id TEXT NOT NULL, PRIMARY KEY (tenant, segment_id))"
            )
            # an answer that quoted a turn goes when that turn is forgotten
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS meta_cites (tenant TEXT NOT NULL, "
                "segment_id TEXT NOT NULL, cited TEXT NOT NULL, "
                "PRIMARY KEY (tenant, segment_id, cited))"
            )

    def add(self, tenant: str, segment_ids: Sequence[str], cites: Sequence[str] = ()) -> None:
        with self._lock, self._conn:
            self._conn.executemany(
                "INSERT OR IGNORE INTO meta_turns (tenant, segment_id) VALUES (?, ?)",
                [(tenant, s) for s in segment_ids],
            )
            self._conn.executemany(
                "INSERT OR IGNORE INTO meta_cites (tenant, segment_id, cited) VALUES (?, ?, ?)",
                [(tenant, s, c) for s in segment_ids for c in cites],
            )

    def add_unanswered(self, tenant: str, segment_ids: Sequence[str]) -> None:
        """Mark replies to a question the memory held no answer to."""
        with self._lock, self._conn:
            self._conn.executemany(
                "INSERT OR IGNORE INTO unanswered_replies (tenant, segment_id) VALUES (?, ?)",
                [(tenant, s) for s in segment_ids],
            )

    def unanswered(self, tenant: str) -> set[str]:
        """The tenant's replies to questions the memory held no answer to."""
        return self._segments("unanswered_replies", tenant)

    def citing(self, tenant: str, cited: Sequence[str]) -> set[str]:
        """Stored answers that quoted any of ``cited``."""
        if not cited:
            return set()
        marks = ",".join("?" * len(cited))
        with self._lock:
            rows = self._conn.execute(
                f"SELECT segment_id FROM meta_cites WHERE tenant = ? AND cited IN ({marks})",
                (tenant, *cited),
            ).fetchall()
        return {r[0] for r in rows}

    def ids(self, tenant: str) -> set[str]:
        return self._segments("meta_turns", tenant)

    def _segments(self, table: str, tenant: str) -> set[str]:
        with self._lock:
            rows = self._conn.execute(
                f"SELECT segment_id FROM {table} WHERE tenant = ?", (tenant,)
            ).fetchall()
        return {r[0] for r in rows}

    def close(self) -> None:
        with self._lock:
            self._conn.close()


__all__ = ["MemoryWriter", "MetaLedger", "WriteJob"]
