"""Crash safety (real kill -9 of a child mid-ingest), concurrency, and the Chroma server."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import numpy as np

from tests.store_helpers import chroma_server, open_fake, store_child, tone, vectors  # noqa: F401 (fixture)
from voxmem.audio import write_wav
from voxmem.memory import SPACES

#: children killed at random moments (each a new process, and a repair of what it left)
KILLS = 6


def test_kill_9_during_ingest_loses_nothing_that_returned(tmp_path: Path) -> None:
    store = tmp_path / "mem"
    clip = np.concatenate(
        [tone(300, 1.2).samples, np.zeros(8000, np.float32), tone(2500, 1.2).samples]
    )
    from voxmem.audio import Audio

    audio = write_wav(Audio(clip), tmp_path / "two-turns.wav")
    rng = np.random.default_rng(0)
    returned: list[str] = []
    forgetting: set[str] = set()
    session_of: dict[str, str] = {}
    kills = 0
    for _ in range(KILLS):
        proc = store_child("ingest", str(store), str(audio), "1000")
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("READY"), first + (proc.stderr.read() if proc.stderr else "")
        time.sleep(float(rng.uniform(0.05, 1.5)))
        os.kill(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate(timeout=60)
        kills += proc.returncode == -signal.SIGKILL
        for line in out.splitlines(keepends=True):
            if not line.endswith("\n"):
                continue  # cut off by the kill
            words = line.split()
            if words[0] == "RETURNED":
                for seg in words[2:]:
                    returned.append(seg)
                    session_of[seg] = words[1]
            elif words[0] == "FORGETTING":
                forgetting.add(words[1])
        memory = open_fake(store)
        memory.verify(repair=True)
        report = memory.verify(repair=False)
        assert report.ok, report
        expected = [s for s in returned if session_of[s] not in forgetting]
        for seg_id in expected:
            seg = memory.get("crash", seg_id)
            assert set(seg.vectors) == set(SPACES)
            assert memory.audio("crash", seg_id).duration > 0.5
        for space in SPACES:
            assert set(expected) <= memory.index.ids("crash", space)
        # nothing half-present: every live segment has its audio, vectors and index entries
        for seg in memory.list("crash", limit=100_000, vectors=True):
            assert set(seg.vectors) == set(SPACES)
        memory.close()
    assert kills >= KILLS - 1 and len(returned) > 10


def test_many_writers_and_readers_at_once(tmp_path: Path) -> None:
    store = tmp_path / "mem"
    memory = open_fake(store)
    memory.add_segment(
        tone(300), tenant="t", session="seed", transcript="seed", vectors=vectors(memory, 1)
    )
    procs = [store_child("add", str(store), "t", "12", str(k + 2)) for k in range(3)]
    errors: list[BaseException] = []

    def writer(seed: int) -> None:
        try:
            for i in range(12):
                memory.add_segment(
                    tone(500 + i),
                    tenant="t",
                    session=f"thread{seed}",
                    transcript=f"t{i}",
                    vectors=vectors(memory, seed * 100 + i),
                )
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    def reader() -> None:
        try:
            for _ in range(30):
                memory.list("t", limit=1000)
                memory.search("t", "speaker", vectors(memory, 1)["speaker"], k=5)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(s,)) for s in (10, 11)] + [
        threading.Thread(target=reader) for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    outs = [p.communicate(timeout=600) for p in procs]
    assert errors == []
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0 and "DONE" in out, err
    total = 1 + 3 * 12 + 2 * 12
    assert memory.stats("t")["segments"] == total
    report = memory.verify(repair=False)
    assert report.ok, report
    # every write is findable by its own vector, whichever process made it
    for seg in memory.list("t", limit=1000, vectors=True):
        assert memory.search("t", "text", seg.vectors["text"], 1)[0].segment.id == seg.id


def test_server_mode_is_the_same_code(tmp_path: Path, chroma_server: str) -> None:  # noqa: F811
    memory = open_fake(tmp_path / "mem", url=chroma_server)
    assert memory.index.mode == "server"
    a = memory.add_segment(
        tone(300), tenant="srv-a", session="s", transcript="alpha", vectors=vectors(memory, 1)
    )
    b = memory.add_segment(
        tone(900), tenant="srv-b", session="s", transcript="beta", vectors=vectors(memory, 2)
    )
    assert memory.search("srv-a", "text", a.vectors["text"], 5)[0].segment.id == a.id
    assert {h.segment.id for h in memory.search("srv-a", "text", b.vectors["text"], 5)} == {a.id}
    assert memory.verify(repair=False).ok
    # a second process on the same catalog and server sees and adds
    proc = store_child("add", str(tmp_path / "mem"), "srv-a", "5", "7", chroma_server)
    _out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert memory.stats("srv-a")["segments"] == 6
    assert memory.forget("srv-a", everything=True) == 6
    assert memory.index.count("srv-a", "text") == 0
    assert memory.search("srv-b", "text", b.vectors["text"], 1)[0].segment.id == b.id
