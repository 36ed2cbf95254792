"""Faults of the memory's back end: forgets racing writes, the Chroma server going away,
kill -9 in the middle of a forget, and errors that must never be silent."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import ROOT
from tests.store_helpers import ChromaServer, open_fake, store_child, tone, vectors
from voxmem.memory import SPACES, AudioMemory, StoreError, TenantRequired
from voxmem.memory.catalog import CatalogBusy
from voxmem.memory.index import IndexUnavailable
from voxmem.memory.records import ForgetPending, IndexPending, NewSegment


def _add(memory: AudioMemory, tenant: str, session: str, seed: int) -> str:
    return memory.add_segment(
        tone(200 + seed % 50 * 20),
        tenant=tenant,
        session=session,
        transcript=f"turn {seed}",
        vectors=vectors(memory, seed),
    ).id


def _intact(memory: AudioMemory, tenant: str, ids: set[str]) -> None:
    """Each of ``ids`` has its catalog row, speaker, FLAC and a vector in every space."""
    speakers = {s.id for s in memory.speakers(tenant)}
    for space in SPACES:
        missing = ids - memory.index.ids(tenant, space)
        assert not missing, f"{len(missing)} acknowledged turns lost their {space} vector"
    for seg_id in ids:
        seg = memory.get(tenant, seg_id)
        assert set(seg.vectors) == set(SPACES)
        assert seg.speaker_id in speakers, "an acknowledged turn lost its speaker"
        assert memory.audio(tenant, seg_id).duration > 1.0, "an acknowledged turn lost its audio"


def test_forget_everything_while_threads_and_a_process_ingest_loses_no_acknowledged_write(
    tmp_path: Path,
) -> None:
    store, stop_file = tmp_path / "mem", tmp_path / "stop"
    memory = open_fake(store)
    for i in range(4):
        _add(memory, "t", "old", i)
    proc = store_child("addlog", str(store), "t", str(stop_file), "7")
    assert proc.stdout is not None and proc.stdout.readline().startswith("READY")
    returned: list[tuple[float, str]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()
    stop = threading.Event()

    def writer(seed: int) -> None:
        try:
            after = 0
            for i in range(10_000):
                after += stop.is_set()
                if after > 2:  # two more once the forgets are over
                    return
                seg_id = _add(memory, "t", f"thread{seed}", seed * 10_000 + i)
                with lock:
                    returned.append((time.time(), seg_id))
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    memory.forget("t", everything=True)
    last_forget = time.time()
    stop.set()
    stop_file.touch()
    for t in threads:
        t.join()
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert errors == []
    for line in out.splitlines():
        if line.startswith("RETURNED"):
            _, when, seg_id = line.split()
            returned.append((float(when), seg_id))
    live = {s.id for s in memory.list("t", limit=10_000)}
    after = {seg_id for when, seg_id in returned if when > last_forget}
    assert len(after) >= 6
    assert after <= live, "turns acknowledged after the last forget are gone"
    _intact(memory, "t", live)
    assert memory.verify(repair=False).ok
    memory.close()


def test_the_server_going_away_is_never_silent_and_nothing_is_lost(tmp_path: Path) -> None:
    server = ChromaServer(tmp_path / "chroma")
    server.start()
    try:
        memory = open_fake(tmp_path / "mem", url=server.url)
        keep = {_add(memory, "t", "keep", i) for i in range(3)}
        gone = {_add(memory, "t", "gone", 10 + i) for i in range(3)}
        query = vectors(memory, 10)["text"]
        server.stop()

        with pytest.raises(IndexUnavailable):
            memory.search("t", "text", query, k=5)  # never an empty list
        with pytest.raises(IndexUnavailable):
            memory.index.count("t", "text")
        with pytest.raises(IndexUnavailable):
            memory.index.drop("t", "text")
        with pytest.raises(ForgetPending, match="verify"):
            memory.forget("t", session="gone")
        assert {s.id for s in memory.list("t")} == keep  # forgotten turns are not read back
        with pytest.raises(IndexPending, match="stored") as pending:
            _add(memory, "t", "late", 99)
        (late,) = pending.value.segments
        assert memory.get("t", late.id).transcript == "turn 99"  # stored, not lost

        server.start()
        # the retry finishes the recorded forget and says how many it erased
        assert memory.forget("t", session="gone") == 3
        for space in SPACES:
            assert not gone & memory.index.ids("t", space)
        memory.close()
        again = open_fake(tmp_path / "mem", url=server.url)  # opening indexes the pending turn
        assert again.search("t", "text", vectors(again, 99)["text"], 1)[0].segment.id == late.id
        for space in SPACES:
            assert again.index.ids("t", space) == keep | {late.id}
        assert again.verify(repair=False).ok
        assert len(again.list("t")) == 4  # no duplicate of the pending turn
        again.close()
    finally:
        server.stop()


def test_a_forget_left_by_a_server_outage_is_finished_by_opening(tmp_path: Path) -> None:
    server = ChromaServer(tmp_path / "chroma")
    server.start()
    try:
        memory = open_fake(tmp_path / "mem", url=server.url)
        gone = {_add(memory, "t", "gone", i) for i in range(3)}
        keep = _add(memory, "t", "keep", 9)
        server.stop()
        with pytest.raises(ForgetPending):
            memory.forget("t", session="gone")
        memory.close()
        server.start()
        again = open_fake(tmp_path / "mem", url=server.url)
        assert again.index.ids("t", "text") == {keep}
        assert not gone & again.index.ids("t", "speaker")
        assert again.verify(repair=False).ok
        again.close()
    finally:
        server.stop()


def test_kill_9_during_a_forget_is_noticed_and_finished_on_open(tmp_path: Path) -> None:
    store = tmp_path / "mem"
    memory = open_fake(store)
    keep = {_add(memory, "t", "keep", i) for i in range(6)}
    memory.close()
    rng = np.random.default_rng(3)
    for attempt in range(3):
        memory = open_fake(store)
        gone = {_add(memory, "t", f"gone{attempt}", 100 * attempt + i) for i in range(4)}
        memory.close()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from tests.store_helpers import open_fake; "
                "m = open_fake(__import__('pathlib').Path(sys.argv[1])); "
                "print('FORGETTING', flush=True); m.forget('t', session=sys.argv[2])",
                str(store),
                f"gone{attempt}",
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("FORGETTING"), line + (proc.stderr.read() if proc.stderr else "")
        time.sleep(float(rng.uniform(0.1, 2.0)))
        os.killpg(proc.pid, signal.SIGKILL)  # the process and any helper it started
        proc.communicate(timeout=60)
        memory = open_fake(store)
        live = {s.id for s in memory.list("t", limit=1000)}
        assert keep <= live
        for space in SPACES:
            assert memory.index.ids("t", space) == live, f"try {attempt}: {space} index differs"
        assert not gone & live or gone <= live  # the forget either happened or did not start
        memory.close()


def test_errors_are_reported_not_swallowed(tmp_path: Path) -> None:
    memory = open_fake(tmp_path / "mem")
    _add(memory, "t", "s", 1)
    # a reader in the middle of a read keeps the catalog's WAL from being folded back
    reader = sqlite3.connect(tmp_path / "mem" / "catalog.sqlite3")
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM segments").fetchone()
    _add(memory, "t", "s", 2)
    with pytest.raises(CatalogBusy, match="busy"):
        memory.catalog.scrub(timeout=0.3)
    reader.execute("ROLLBACK")
    reader.close()
    memory.catalog.scrub()

    # close() closes every thread's connection (the WAL file goes with the last one)
    worker = threading.Thread(target=lambda: memory.list("t"))
    worker.start()
    worker.join()
    memory.close()
    assert not (tmp_path / "mem" / "catalog.sqlite3-wal").exists()
    with pytest.raises(StoreError, match="closed"):
        memory.list("t")


@pytest.mark.parametrize("bad", ["acme\n", "acme\r", "\nacme", "ac me", "acme/.."])
def test_tenant_ids_with_line_breaks_are_refused(tmp_path: Path, bad: str) -> None:
    memory = open_fake(tmp_path / "mem")
    with pytest.raises(TenantRequired):
        memory.add_segment(
            tone(300), tenant=bad, session="s", transcript="x", vectors=vectors(memory, 1)
        )
    memory.close()


def test_a_search_waiting_behind_a_release_reconnects(tmp_path: Path) -> None:
    """A forget lets go of the embedded index's client (before its rebuild child runs); a
    search that was waiting for the lock then finds it let go, and connects again."""
    memory = open_fake(tmp_path / "mem")
    seg = _add(memory, "t", "s", 1)
    query = vectors(memory, 1)["text"]
    got: list[object] = []
    with memory.index._lock.exclusive():
        reader = threading.Thread(
            target=lambda: got.append(memory.search("t", "text", query, k=1)[0].segment.id)
        )
        reader.start()
        time.sleep(0.3)  # the reader is past its first check, waiting for the lock
        memory.index.release()
    reader.join(timeout=30)
    assert got == [seg]
    memory.close()


def test_searches_in_other_threads_during_a_forget_neither_fail_nor_defeat_the_erase(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedded erase lets go of its graphs and loads each again under the setting
    that writes it out: a search in another thread meanwhile waits rather than loading a
    graph without that setting (which would leave the forgotten vectors in the files
    and make the forget rebuild the tenant)."""
    memory = open_fake(tmp_path / "mem")
    for first in range(0, 300, 50):
        memory.add_segments(
            [
                NewSegment(tone(300), f"turn {first + i}", vectors(memory, first + i))
                for i in range(50)
            ],
            tenant="t",
            session=f"s{first // 50}",
        )
    keep = vectors(memory, 200)
    rebuilt: list[object] = []
    monkeypatch.setattr(memory.forgetting, "rebuild_clean", rebuilt.append)
    stop, seen, errors = threading.Event(), [], []

    def search() -> None:
        while not stop.is_set():
            try:
                for space in SPACES:
                    seen.append(memory.search("t", space, keep[space], k=1)[0].segment.transcript)
            except Exception as exc:  # reported below
                errors.append(exc)
                return

    readers = [threading.Thread(target=search) for _ in range(2)]
    for r in readers:
        r.start()
    try:
        time.sleep(0.2)
        assert memory.forget("t", session="s1") == 50
    finally:
        stop.set()
        for r in readers:
            r.join(timeout=60)
    assert errors == [] and len(seen) > 8 and set(seen) == {"turn 200"}
    assert rebuilt == []  # erased in place: no forgotten vector was left in the files
    assert memory.index.count("t", "text") == 250
    memory.close()


def test_another_machines_claim_on_a_forget_expires(tmp_path: Path) -> None:
    """Replicas on other hosts share the catalog: a forget claimed by one that died is
    taken over once its claim was not renewed for the lease."""
    from voxmem.memory import forget as forgetting

    now = time.time()
    assert not forgetting._claimable(f"elsewhere:7@{now:.0f}")
    assert forgetting._claimable(f"elsewhere:7@{now - forgetting.CLAIM_LEASE_S - 5:.0f}")
    assert forgetting._claimable("elsewhere:7")  # an older voxmem's claim, without a time
    assert forgetting._claimable(f"{forgetting._HOST}:{2**22 + 12345}@{now:.0f}")  # pid gone
    # a job left claimed by a dead replica is finished by asking again
    memory = open_fake(tmp_path / "mem")
    gone = _add(memory, "t", "gone", 1)
    keep = _add(memory, "t", "keep", 2)
    from voxmem.memory.protocols import ForgetJob

    stale = f"elsewhere:7@{now - forgetting.CLAIM_LEASE_S - 5:.0f}"
    job = ForgetJob(
        "fgt_dead", "t", '{"session": "gone"}', "erase", (gone,), None, False, stale, now
    )
    with memory.catalog.write() as tx:
        tx.add_forget_job(job)
    assert memory.forget("t", session="gone") == 1
    assert [s.id for s in memory.list("t")] == [keep] and memory.catalog.forget_jobs() == []
    memory.close()
