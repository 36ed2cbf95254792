"""A child process for the durability tests: ingests (and forgets) in a loop, saying
what returned, until it is killed or done."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.store_helpers import open_fake, tone, vectors


def ingest_loop(path: Path, audio: str, rounds: int) -> None:
    # the engines of a shared memory, when the test names them (else SQLite and embedded)
    memory = open_fake(
        path,
        url=os.environ.get("TEST_CHROMA_URL"),
        text="crash test words",
        catalog=os.environ.get("TEST_CATALOG_URL"),
    )
    print("READY", flush=True)
    run = os.getpid()
    for i in range(rounds):
        segs = memory.ingest(audio, tenant="crash", session=f"{run}-{i}")
        print(f"RETURNED {run}-{i} " + " ".join(s.id for s in segs), flush=True)
        if i % 3 == 2:
            print(f"FORGETTING {run}-{i - 2}", flush=True)
            memory.forget("crash", session=f"{run}-{i - 2}")
            print(f"FORGOT {run}-{i - 2}", flush=True)


def add_loop(path: Path, tenant: str, n: int, seed: int, url: str | None) -> None:
    memory = open_fake(path, url=url)
    for i in range(n):
        memory.add_segment(
            tone(200 + 10 * i),
            tenant=tenant,
            session=f"p{seed}",
            transcript=f"{tenant} {i}",
            vectors=vectors(memory, seed * 1000 + i),
        )
        memory.search(tenant, "text", vectors(memory, seed)["text"], k=3)
    print("DONE", flush=True)


def add_log(path: Path, tenant: str, stop: Path, seed: int) -> None:
    """Add turns until ``stop`` exists, then two more, saying when each returned (for
    the concurrent-forget tests)."""
    import itertools
    import time

    memory = open_fake(path)
    print("READY", flush=True)
    after = 0
    for i in itertools.count():
        if stop.exists():
            after += 1
            if after > 2:
                break
        seg = memory.add_segment(
            tone(200 + 10 * i),
            tenant=tenant,
            session=f"p{seed}",
            transcript=f"{tenant} {i}",
            vectors=vectors(memory, seed * 1000 + i),
        )
        print(f"RETURNED {time.time():.6f} {seg.id}", flush=True)
    memory.close()
    print("DONE", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "ingest":
        ingest_loop(Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1] == "addlog":
        add_log(Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4]), int(sys.argv[5]))
    else:
        add_loop(
            Path(sys.argv[2]),
            sys.argv[3],
            int(sys.argv[4]),
            int(sys.argv[5]),
            sys.argv[6] if len(sys.argv) > 6 else None,
        )
