"""Erasure as a durable job: recorded first, finished in steps, resumable after a crash.

A forget writes a job (its own table: tenant, the segments chosen, state) in the
same transaction that hides those segments from every read. Then the job runs:

  erase    one write transaction: the segments' rows and vectors, their FLAC files,
           recordings left empty, speakers left without turns (unnamed ones, the
           forgotten speaker, or all of them for ``everything``), and for
           ``everything`` the items stored before the job and the tenant row if
           nothing else is left. Everything is decided inside that transaction, so a
           turn another thread or process stores meanwhile keeps its tenant row,
           speaker, FLAC and vectors.
  index    the segments' entries are erased from the index: overwritten in place with
           random vectors, then deleted, with the graphs written out at once when
           the index is embedded (a Chroma server writes them out at its next
           write-out of each graph), so their vectors leave the index
           files without a rebuild and searches meanwhile see every other turn; the
           catalog's WAL is folded back so the deleted rows leave its files.
  compact  the index files are checked for the forgotten vectors' bytes; where they
           are still found, the tenants whose files hold them are rebuilt. Forgetting
           ``everything``, or a job resumed by a process that never read the forgotten
           vectors (after a crash), rebuilds the tenant's collections (only that
           tenant's).

A step that fails (the index server away, the catalog busy with readers) leaves the
job where it was and raises ``ForgetPending``; the same forget asked again, opening
the memory, or ``verify`` finishes it. A job is claimed by one process at a time; a
claim by a process that died is taken over.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from voxmem.memory.audio_files import AudioStore
from voxmem.memory.entries import ALL_SPACES
from voxmem.memory.index import needle_offset, stored_forms
from voxmem.memory.protocols import CatalogBackend, CatalogWrite, ForgetJob, IndexBackend
from voxmem.memory.records import (
    CatalogBusy,
    ForgetPending,
    IndexUnavailable,
    StoreError,
)
from voxmem.memory.speakers import print_sums, recompute_centroid

#: after a forget, the index files are checked for the vectors of up to this many of
#: the forgotten segments
CHECK_SEGMENTS = 200
#: bytes of each vector looked for in the index files
NEEDLE_BYTES = 32
#: distinct nonzero 4-byte values a window needs to tell its vector from others
MIN_DISTINCT = 3
#: where in a forgotten vector the bytes looked for begin, and those bytes in each form
Needle = tuple[int, tuple[bytes, ...]]

#: seconds after which another machine's claim on a job that was not renewed (each step
#: renews it) is taken over: longer than the slowest step, a compaction of a big tenant
CLAIM_LEASE_S = 1800.0

log = logging.getLogger(__name__)
_RUNNING: set[str] = set()  # jobs this process is running now
_RUNNING_LOCK = threading.Lock()
_HOST = socket.gethostname()


def _me() -> str:
    """This process's claim on a job: host, process id and when (renewed at each step)."""
    return f"{_HOST}:{os.getpid()}@{time.time():.0f}"


def _claimable(owner: str | None) -> bool:
    """Whether this process may run a job claimed by ``owner`` (within the process,
    ``_RUNNING`` keeps two threads from running one job). A claim of this machine is
    taken over when its process is gone; another machine's (a replica sharing the
    catalog) when it was not renewed for ``CLAIM_LEASE_S``, as that machine cannot be
    asked whether its process lives."""
    if owner is None:
        return True
    who, _, when = owner.partition("@")
    host, _, pid = who.rpartition(":")
    if host != _HOST:
        try:
            return time.time() - float(when) > CLAIM_LEASE_S
        except ValueError:
            return True  # a claim without a time (an older voxmem's): long expired
    if int(pid) == os.getpid():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True  # its process died
    except PermissionError:
        return False
    return False


def distinctive(window: bytes) -> bool:
    """Whether a vector's window has MIN_DISTINCT distinct nonzero 4-byte values: enough
    that no unrelated vector holds the same bytes."""
    words = {window[i : i + 4] for i in range(0, len(window) - 3, 4)}
    return len(words - {bytes(4)}) >= MIN_DISTINCT


def selector_key(selector: Mapping[str, Any]) -> str:
    return json.dumps(selector, sort_keys=True)


class Forgetting:
    """Starts, runs and resumes forget jobs for one memory."""

    def __init__(
        self,
        catalog: CatalogBackend,
        index: IndexBackend,
        files: AudioStore,
        rebuild_clean: Callable[[Sequence[str]], None],
        erase_entries: Callable[[str, Sequence[str]], None],
    ) -> None:
        self.catalog = catalog
        self.index = index
        self.files = files
        self.rebuild_clean = rebuild_clean
        self.erase_entries = erase_entries
        #: the bytes to look for in the index files, per job this process has begun: a
        #: job asked again after a failed step no longer finds them in the catalog
        self._needles_of: dict[str, list[Needle]] = {}
        #: seconds each step of the last job run here took: ``catalog`` (rows, audio and
        #: speakers erased), ``index`` (entries erased, the index's files vacuumed) and
        #: ``check`` (the files searched for the forgotten vectors, rebuilt while found)
        self.timings: dict[str, float] = {}

    def start(
        self,
        tx: CatalogWrite,
        tenant: str,
        selector: Mapping[str, Any],
        ids: Sequence[str],
        speaker_id: str | None = None,
        everything: bool = False,
    ) -> ForgetJob | None:
        """Record a job in the caller's transaction (hiding ``ids``); None when there
        is nothing to do."""
        if not ids and speaker_id is None and not everything:
            return None
        job = ForgetJob(
            f"fgt_{uuid.uuid4().hex[:16]}",
            tenant,
            selector_key(selector),
            "erase",
            tuple(ids),
            speaker_id,
            everything,
            _me(),
            time.time(),
        )
        with _RUNNING_LOCK:
            _RUNNING.add(job.id)
        tx.add_forget_job(job)
        return job

    def run(self, job: ForgetJob, claimed: bool = False) -> None:
        """Finish ``job``; ForgetPending if a step cannot be done now."""
        if not claimed and not self._claim(job):
            return
        needles = self._needles(job) or self._needles_of.get(job.id, [])
        self._needles_of[job.id] = needles
        done = False
        self.timings = {}
        clock = time.perf_counter()

        def lap(stage: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            self.timings[stage] = now - clock
            clock = now

        try:
            state = job.state
            if state == "erase":
                with self.catalog.write() as tx:
                    current = tx.forget_job(job.id)
                    if current is None:
                        done = True
                        return
                    self._erase(tx, current)
                    tx.set_forget_job(job.id, state="index", owner=_me())
                state = "index"
                lap("catalog")
            if state == "index" and not job.segments and not job.everything:
                self.catalog.scrub()
                state = "done"  # no vector was erased: the index has nothing to lose
            if state == "index":
                if job.everything:
                    # the tenant's collections are rebuilt (compact): what it held goes
                    for space in ALL_SPACES:
                        self.index.delete(job.tenant, space, job.segments)
                else:
                    self.erase_entries(job.tenant, job.segments)
                self.catalog.scrub()
                with self.catalog.write() as tx:
                    tx.set_forget_job(job.id, state="compact", owner=_me())
                state = "compact"
                lap("index")
            if state == "compact":
                # a job resumed in another process (after a crash) no longer knows the
                # forgotten bytes to look for: the tenant's collections are rebuilt
                self._compact(job.tenant, needles, rebuild=job.everything or not needles)
                lap("check")
            with self.catalog.write() as tx:
                tx.delete_forget_job(job.id)
            done = True
            self._needles_of.pop(job.id, None)
            # the job's own record names what was forgotten (a speaker's name, the ids)
            try:
                self.catalog.scrub()
            except CatalogBusy as exc:  # erased from the rows; the next scrub finishes it
                log.warning("the forget's record is deleted, its bytes not yet: %s", exc)
        except (IndexUnavailable, CatalogBusy) as exc:
            raise ForgetPending(
                f"the forget of {len(job.segments)} turn(s) of tenant {job.tenant!r} is "
                f"recorded and they are no longer read back, but it could not finish ({exc}). "
                "It finishes when the same forget is asked again, when the memory is next "
                "opened, or with `voxmem verify`.",
                job.id,
                len(job.segments),
            ) from exc
        finally:
            with _RUNNING_LOCK:
                _RUNNING.discard(job.id)
            if not done:
                self._release(job)

    def resume(self, tenant: str | None = None) -> list[ForgetJob]:
        """Run every unfinished job (of ``tenant``, or all) this process may claim; the
        ones finished. Stops at the first that cannot finish (ForgetPending)."""
        finished = []
        for job in self.catalog.forget_jobs():
            if tenant is not None and job.tenant != tenant:
                continue
            if self._claim(job):
                self.run(job, claimed=True)
                finished.append(job)
        return finished

    # -- steps -------------------------------------------------------------------------

    def _erase(self, tx: CatalogWrite, job: ForgetJob) -> None:
        speakers = tx.segment_speakers(job.segments)
        if not self.files.erased_with_rows:
            # each file is overwritten and synced before it is deleted: side by side, the
            # waits on the disk overlap
            with ThreadPoolExecutor(max_workers=8) as pool:
                for _ in pool.map(
                    lambda seg_id: self.files.erase(job.tenant, seg_id), job.segments
                ):
                    pass
        tx.delete_segments(job.segments)  # and the audio rows, where the catalog holds them
        tx.drop_empty_recordings(job.tenant)
        if job.speaker_id:
            speakers.add(job.speaker_id)
        known = {s.id: s for s in tx.speakers(job.tenant)}
        if job.everything:
            # the speakers there were when the forget was asked; one enrolled since is
            # another write's, and is kept like its turns
            speakers |= {i for i, s in known.items() if s.created_at <= job.created_at}
        # the forgotten turns left their speakers' running sums as they were hidden and
        # deleted: what is left is read, not every voiceprint of every speaker
        sums = print_sums(tx, sorted(i for i in speakers if i in known))
        for spk_id, summed in sums.items():
            spk = recompute_centroid(tx, known[spk_id], summed)
            doomed = job.everything or spk.id == job.speaker_id or spk.name is None
            if spk.n_segments == 0 and doomed:
                tx.delete_speaker(spk.id)
        if job.everything:
            tx.delete_items(job.tenant, job.created_at)
            tx.drop_tenant_if_empty(job.tenant)

    def _needles(self, job: ForgetJob) -> list[Needle]:
        """Per forgotten vector (of up to CHECK_SEGMENTS turns), where its bytes to look
        for begin and those bytes in every form the index files may hold it (as stored,
        and as Chroma normalises it); none for a vector of zeros only."""
        if job.state != "erase":
            return []  # the vectors are gone from the catalog: nothing to look for
        vectors = self.catalog.vector_bytes(list(job.segments[:CHECK_SEGMENTS]))
        found = [(needle_offset(v, NEEDLE_BYTES), stored_forms(v, NEEDLE_BYTES)) for v in vectors]
        # a window of fewer than MIN_DISTINCT distinct values (a one-hot vector's one value
        # among zeros) is also held by unrelated vectors, at any place: it is kept with no
        # bytes to look for, and the tenant is rebuilt instead (``_compact``)
        return [
            (at, forms if distinctive(forms[0]) else ())
            for at, forms in found
            if at is not None and forms
        ]

    def _compact(self, tenant: str, found: list[Needle], rebuild: bool) -> None:
        """Check that the index files hold no forgotten vector (after ``everything``, or
        when a forgotten vector has too few distinct values to be looked for, rebuild
        the tenant's collections first); while they still do, rebuild the tenants whose
        files hold one."""
        if rebuild or any(not f for _, f in found):
            self.rebuild_clean([tenant])
        found = [(at, f) for at, f in found if f]
        needles = [n for _, f in found for n in f]
        holders = self.index.holds(needles)
        if not holders:
            return
        # a graph file's unused room is written out as it lay in memory, which can hold
        # the bytes of a vector just erased: zero it before anything is rebuilt
        if self.index.clear_unused():
            holders = self.index.holds(needles)
            if not holders:
                return
        # a vector that a live turn also holds at the same place is not a forgotten one
        # (asked only now: each ask reads every stored vector, once per window place)
        shared = self.catalog.shared_windows([(at, f[0]) for at, f in found])
        needles = [n for at, f in found if (at, f[0]) not in shared for n in f]
        holders = self.index.holds(needles) if shared else holders
        for _ in range(3):
            if not holders:
                return
            self.rebuild_clean(sorted(t for t in holders if t) or [tenant])
            holders = self.index.holds(needles)
        if holders:
            raise StoreError(
                "forgotten vectors are still present in the index files; stop "
                "the processes using this memory and run `voxmem rebuild`"
            )

    # -- claims ------------------------------------------------------------------------

    def _claim(self, job: ForgetJob) -> bool:
        with _RUNNING_LOCK:
            if job.id in _RUNNING:
                return False
            _RUNNING.add(job.id)
        try:
            with self.catalog.write() as tx:
                current = tx.forget_job(job.id)
                if current is None or not _claimable(current.owner):
                    with _RUNNING_LOCK:
                        _RUNNING.discard(job.id)
                    return False
                tx.set_forget_job(job.id, owner=_me())
            return True
        except BaseException:
            with _RUNNING_LOCK:
                _RUNNING.discard(job.id)
            raise

    def _release(self, job: ForgetJob) -> None:
        try:
            with self.catalog.write() as tx:
                if tx.forget_job(job.id) is not None:
                    tx.set_forget_job(job.id, owner=None)
        except StoreError:
            pass  # the claim of a process that is gone is taken over anyway
