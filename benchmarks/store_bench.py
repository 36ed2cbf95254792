"""``benchmarks run store``: the memory store at growing sizes.

Vectors have the real dimensions of the default encoders (text 384, speaker
256, style 88, environment 603) but are generated, as the encoders' cost is
measured by the probes. Speaker vectors come from a pool of voices with
per-turn noise, so speaker matching does real work. Every segment has a real
0.25 s FLAC clip on disk.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import Progress

from voxmem.audio import Audio
from voxmem.benchmarks.report import Report, versions
from voxmem.memory.encoders.fake import fake_perception
from voxmem.memory.records import NewSegment
from voxmem.memory.store import AudioMemory
from voxmem.settings import Settings

DIMS = {"text": 384, "speaker": 256, "style": 88, "environment": 603}
VOICES = 50
SESSION_SIZE = 100
BATCH = 1000
COLUMNS = [
    "segments",
    "insert_per_s",
    "text_p50_ms",
    "text_p95_ms",
    "filtered_p50_ms",
    "filtered_p95_ms",
    "four_space_p50_ms",
    "four_space_p95_ms",
    "forget_s",
    "rebuild_s",
    "bytes_per_segment",
]


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)


def _percentiles(samples: list[float]) -> tuple[float, float]:
    return float(np.percentile(samples, 50) * 1000), float(np.percentile(samples, 95) * 1000)


def measure(
    size: int, root: Path, rng: np.random.Generator, queries: int, progress: Progress
) -> dict[str, Any]:
    settings = Settings(data_dir=root, cache_dir=root / "cache")
    memory = AudioMemory(settings, perception=fake_perception(dims=DIMS))
    t = np.arange(4000) / 16_000
    clip = Audio((0.2 * np.sin(2 * np.pi * 220 * t)).astype(np.float32))
    voices = _unit(rng.standard_normal((VOICES, DIMS["speaker"])))
    task = progress.add_task(f"inserting {size:,}", total=size)
    start = time.perf_counter()
    for first in range(0, size, BATCH):
        n = min(BATCH, size - first)
        # per-turn noise of norm ~0.4 around the voice: cosine to it about 0.9
        noise = rng.standard_normal((n, DIMS["speaker"])) * (0.4 / np.sqrt(DIMS["speaker"]))
        spk = _unit(voices[rng.integers(VOICES, size=n)] + noise)
        vecs = {s: _unit(rng.standard_normal((n, d))) for s, d in DIMS.items() if s != "speaker"}
        vecs["speaker"] = spk
        items = [
            NewSegment(
                clip,
                f"turn {first + i}",
                {s: v[i] for s, v in vecs.items()},
                role="user" if i % 2 else "agent",
            )
            for i in range(n)
        ]
        # sessions of SESSION_SIZE turns, so filters and forgets have a realistic scope
        for k in range(0, n, SESSION_SIZE):
            memory.add_segments(
                items[k : k + SESSION_SIZE],
                tenant="bench",
                session=f"s{(first + k) // SESSION_SIZE}",
            )
        progress.advance(task, n)
    insert_s = time.perf_counter() - start
    progress.remove_task(task)

    def timed(fn: Any) -> list[float]:
        out = []
        for _ in range(queries):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
        return out

    def q(space: str) -> np.ndarray:
        return _unit(rng.standard_normal(DIMS[space]))

    sessions = size // SESSION_SIZE
    text = timed(lambda: memory.search("bench", "text", q("text"), 10))
    filtered = timed(
        lambda: memory.search(
            "bench",
            "text",
            q("text"),
            10,
            where={"$and": [{"session": f"s{int(rng.integers(sessions))}"}, {"role": "user"}]},
        )
    )
    four = timed(lambda: [memory.search("bench", s, q(s), 50) for s in DIMS])
    bytes_total = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    t0 = time.perf_counter()
    memory.forget("bench", session="s0")
    forget_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    memory.rebuild("bench")
    rebuild_s = time.perf_counter() - t0
    assert memory.verify(repair=False).ok
    memory.close()
    row = {
        "segments": size,
        "insert_per_s": size / insert_s,
        "forget_s": forget_s,
        "rebuild_s": rebuild_s,
        "bytes_per_segment": bytes_total / size,
    }
    for name, samples in (("text", text), ("filtered", filtered), ("four_space", four)):
        row[f"{name}_p50_ms"], row[f"{name}_p95_ms"] = _percentiles(samples)
    return row


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [r["segments"] for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for key, label in (
        ("text_p95_ms", "one space"),
        ("filtered_p95_ms", "one space + filter"),
        ("four_space_p95_ms", "four spaces"),
    ):
        a.plot(sizes, [r[key] for r in rows], marker="o", label=label)
    a.axhline(50, color="grey", linestyle="--", label="target 50 ms")
    a.set(xscale="log", xlabel="segments", ylabel="p95 latency (ms)", title="search")
    a.legend()
    b.plot(sizes, [r["forget_s"] for r in rows], marker="o", label="forget one session")
    b.plot(sizes, [r["rebuild_s"] for r in rows], marker="o", label="rebuild")
    b.set(xscale="log", yscale="log", xlabel="segments", ylabel="seconds", title="maintenance")
    b.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_store(*, out: Path, seed: int, quick: bool, console: Console) -> Report:
    sizes = [500, 2000] if quick else [1_000, 10_000, 100_000]
    queries = 30 if quick else 200
    rng = np.random.default_rng(seed)
    report = Report(
        "store",
        "generated vectors at the default encoders' dimensions",
        COLUMNS,
        meta={
            "versions": versions("chromadb", "numpy"),
            "dims": DIMS,
            "voices": VOICES,
            "session_size": SESSION_SIZE,
        },
    )
    out.mkdir(parents=True, exist_ok=True)
    with Progress(console=console, transient=True) as progress:
        for size in sizes:
            root = Path(tempfile.mkdtemp(prefix=f"voxmem-store-{size}-", dir=out))
            try:
                report.rows.append(measure(size, root, rng, queries, progress))
            finally:
                shutil.rmtree(root, ignore_errors=True)
    plot(report.rows, out / "store.png")
    report.notes += [
        "Latencies include hydrating hits from the catalog; four_space is four sequential "
        "single-space searches (k=50 each).",
        "forget_s is forgetting one session of 100 turns, including the index compaction that "
        "makes the bytes unrecoverable (the tenant's collections are rebuilt).",
        "bytes_per_segment counts audio (0.25 s FLAC), catalog and index.",
        "Plot: store.png.",
    ]
    return report
