"""Several voxmem processes, one memory: voice servers (the real server and agent over
the fake encoders) and writers on one PostgreSQL catalog and one Chroma server, all
real, on loopback. Sessions on different processes write and recall the same tenant's
turns, a forget asked on one is honoured by the others, a voice named on one is known
on another, and a writer killed with SIGKILL loses nothing it acknowledged."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import ROOT
from tests.pg_server import PgServer, fresh_database
from tests.server_helpers import client, spoken
from tests.store_helpers import ChromaServer, open_fake
from voxmem.audio import Audio, write_wav
from voxmem.memory import SPACES
from voxmem.memory.catalog_pg import PostgresCatalog

# what every server process hears in each tone: one voice per band of the spectrum
# (the fake speaker encoder tells voices apart by where their energy lies)
DANA = {
    "150": "Hi, I'm Dana.",
    "200": "The budget for the offsite is four thousand euros.",
    "250": "What did I say about the budget?",
    "290": "Forget what I said about the budget.",
    "110": "yes",
}
MARCO = {
    "2150": "Hello, my name is Marco.",
    "2200": "I think the budget should be two thousand at most.",
    "2250": "What did Dana say about the budget?",
}
SPEECH = {**DANA, **MARCO}


def _tone(text: str) -> float:
    return float(next(f for f, t in SPEECH.items() if t == text))


@pytest.fixture
def engines(tmp_path: Path, pg: PgServer) -> Iterator[tuple[str, str]]:
    """A fresh database on the test cluster and a Chroma server of its own."""
    chroma = ChromaServer(tmp_path / "chroma")
    chroma.start()
    try:
        yield fresh_database(pg), chroma.url
    finally:
        chroma.stop()


@contextlib.contextmanager
def _servers(roots: list[Path], catalog: str, chroma: str) -> Iterator[list[str]]:
    """A voice server process per folder of ``roots``, started side by side (each loads
    its models alone); their URLs once all of them listen."""
    procs, logs = [], []
    try:
        for root in roots:
            root.mkdir(parents=True, exist_ok=True)
            logs.append(open(root / "stderr.log", "w"))  # noqa: SIM115 (closed below; a pipe nobody reads fills)
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "tests.serve_child", str(root), catalog, chroma,
                     json.dumps(SPEECH)],
                    cwd=ROOT,
                    stdout=subprocess.PIPE,
                    stderr=logs[-1],
                    text=True,
                )
            )  # fmt: skip
        urls = []
        for proc, root in zip(procs, roots, strict=True):
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.startswith("PORT"), line + (root / "stderr.log").read_text()
            urls.append(f"ws://127.0.0.1:{line.split()[1]}/v1/realtime")
        yield urls
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for log in logs:
            log.close()


async def _say(url: str, text: str) -> dict[str, Any]:
    """One spoken user turn on a new connection; the events of its response."""
    async with client(url) as c:
        await c.append(spoken(_tone(text), seconds=1.2))
        done = await c.until("response.done", timeout=30)
        recalled = [e for e in c.seen if e["type"] == "memory.retrieval.completed"]
        heard = [
            e["transcript"]
            for e in c.seen
            if e["type"] == "conversation.item.input_audio_transcription.completed"
        ]
        reply = " ".join(
            e["transcript"] for e in c.seen if e["type"] == "response.output_audio_transcript.done"
        )
        return {
            "done": done,
            "recalled": recalled[-1] if recalled else None,
            "heard": heard,
            "reply": reply,
        }


def _wait_for_turn(catalog: PostgresCatalog, words: str, present: bool = True) -> None:
    """Until a stored turn of acme says ``words`` (the agent stores off the reply path)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = any(words in s.transcript for s in catalog.segments("acme", vectors=False))
        if found == present:
            return
        time.sleep(0.2)
    raise AssertionError(
        f"no stored turn says {words!r}" if present else f"{words!r} is still stored"
    )


async def test_two_server_processes_share_one_memory(
    tmp_path: Path, engines: tuple[str, str]
) -> None:
    catalog_url, chroma_url = engines
    catalog = PostgresCatalog(catalog_url)
    with _servers([tmp_path / "one", tmp_path / "two"], catalog_url, chroma_url) as (one, two):
        # Dana introduces herself and states a fact on process one; Marco on process two
        r = await _say(one, DANA["150"])
        assert "Dana" in r["reply"], r
        await _say(one, DANA["200"])
        await _say(two, MARCO["2150"])
        await _say(two, MARCO["2200"])
        _wait_for_turn(catalog, "four thousand")
        _wait_for_turn(catalog, "two thousand")
        fact = next(
            s.id for s in catalog.segments("acme", vectors=False) if "four thousand" in s.transcript
        )

        # process two knows Dana's voice (named on one) and finds what she said there
        r = await _say(two, DANA["250"])
        assert r["heard"] == [DANA["250"]], r
        assert r["reply"].startswith("Welcome back, Dana."), r["reply"]
        hits = r["recalled"]["hits"]
        assert hits and "four thousand" in hits[0]["transcript"], hits
        assert all(h["speaker_name"] == "Dana" for h in hits), hits
        # and by her name, asked by Marco on process one
        r = await _say(one, MARCO["2250"])
        assert any("four thousand" in h["transcript"] for h in r["recalled"]["hits"]), r
        assert all(h["speaker_name"] == "Dana" for h in r["recalled"]["hits"]), r

        # a forget asked and confirmed on process two ...
        async with client(two) as c:
            await c.append(spoken(_tone(DANA["290"]), seconds=1.2))
            await c.until("response.done", timeout=30)
            await c.append(spoken(_tone(DANA["110"]), seconds=0.6))
            await c.until(lambda e: e["type"] == "response.done" and e is not c.seen[0], timeout=30)
        _wait_for_turn(catalog, "four thousand", present=False)
        from voxmem.memory.index import ChromaIndex
        from voxmem.settings import ChromaSettings

        vectors = ChromaIndex(ChromaSettings(url=chroma_url), tmp_path / "unused")
        for space in SPACES:  # nor is anything of it left on the Chroma server
            assert fact not in vectors.ids("acme", space), space
        vectors.close()
        # ... is honoured on process one: her fact is gone, Marco's is kept
        r = await _say(one, MARCO["2250"])
        assert r["recalled"] is not None, r
        assert not any("four thousand" in h["transcript"] for h in r["recalled"]["hits"]), r
        assert any("two thousand" in s.transcript for s in catalog.segments("acme", vectors=False))
    catalog.close()


def test_a_writer_killed_mid_ingest_loses_nothing_it_acknowledged(
    tmp_path: Path, engines: tuple[str, str]
) -> None:
    catalog_url, chroma_url = engines
    audio = tmp_path / "turn.wav"
    t = np.arange(32_000) / 16_000
    write_wav(Audio((0.3 * np.sin(2 * np.pi * 300 * t)).astype(np.float32)), audio)
    env = {**os.environ, "TEST_CATALOG_URL": catalog_url, "TEST_CHROMA_URL": chroma_url}
    returned: list[tuple[str, str]] = []
    forgetting: set[str] = set()
    rng = np.random.default_rng(7)
    for round_ in range(3):
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.store_child",
                "ingest",
                str(tmp_path / f"w{round_}"),
                str(audio),
                "1000",
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("READY"), first + (proc.stderr.read() if proc.stderr else "")
        time.sleep(float(rng.uniform(1.0, 2.5)))
        os.kill(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        for line in out.splitlines(keepends=True):
            words = line.split()
            if not line.endswith("\n"):
                continue  # cut off by the kill
            if words[0] == "RETURNED":
                returned += [(seg, words[1]) for seg in words[2:]]
            elif words[0] == "FORGETTING":  # the child forgets every third session it stored
                forgetting.add(words[1])
    kept = [seg for seg, session in returned if session not in forgetting]
    assert kept, "no ingest returned before the kills"
    # another process of the same memory finds every acknowledged turn whole
    memory = open_fake(tmp_path / "reader", url=chroma_url, catalog=catalog_url)
    for seg_id in kept:
        seg = memory.get("crash", seg_id)
        assert set(seg.vectors) == set(SPACES)
        assert memory.audio("crash", seg_id).duration > 1.0
    for space in SPACES:
        assert set(kept) <= memory.index.ids("crash", space)
    assert memory.verify(repair=True) is not None and memory.verify(repair=False).ok
    memory.close()
