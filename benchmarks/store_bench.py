"""``benchmarks run store [--backend embedded|server]``: the memory store at growing
sizes, beside the bare engines on the same data.

Vectors have the real dimensions of the default encoders (text 384, speaker
256, style 88, environment 603) but are generated, as the encoders' cost is
measured by the probes. Speaker vectors come from a pool of voices with
per-turn noise, so speaker matching does real work. Every segment has a real
0.25 s FLAC clip.

``embedded``: the SQLite catalog, FLAC files and embedded Chroma in one folder.
``server``: a PostgreSQL cluster (Debian's binaries; audio in the database) and a
``chroma run`` server, both started on loopback for the run. Each latency is put
beside the bare engine's own for the same work in the same run (a plain Chroma
query of the same collection without our layers, a plain catalog lookup of the
same rows): the ratio is the memory's overhead. The filtered search is the
exception: a filter naming a session is answered from the catalog (see
``AudioMemory.search``), so beside Chroma's own filtered query its ratio is a
speed-up, not an overhead.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import Progress

from voxmem.audio import Audio
from voxmem.benchmarks import engines
from voxmem.benchmarks.registry import BACKENDS
from voxmem.benchmarks.report import Report, versions
from voxmem.memory.encoders.fake import fake_perception
from voxmem.memory.records import NewSegment
from voxmem.memory.store import EXACT_MAX, AudioMemory
from voxmem.settings import CatalogSettings, ChromaSettings, Settings

DIMS = {"text": 384, "speaker": 256, "style": 88, "environment": 603}
VOICES = 50
SESSION_SIZE = 100
BATCH = 1000
#: above this many segments a run does not time the rebuild nor verify the store (each
#: reads every turn: about an hour and a half at a million on 2 cores); it says so
REBUILD_MAX = 100_000
COLUMNS = [
    "backend",
    "segments",
    "insert_per_s",
    "text_p50_ms",
    "text_p95_ms",
    "bare_text_p95_ms",
    "filtered_p50_ms",
    "filtered_p95_ms",
    "bare_filtered_p95_ms",
    "four_space_p50_ms",
    "four_space_p95_ms",
    "four_at_once_p50_ms",
    "four_at_once_p95_ms",
    "bare_four_p95_ms",
    "four_overhead_x",
    "lookup_p95_ms",
    "bare_lookup_p95_ms",
    "forget_s",
    "forget_catalog_s",
    "forget_index_s",
    "forget_check_s",
    "rebuild_s",
    "bytes_per_segment",
]


def voice_pool(rng: np.random.Generator, n: int = VOICES) -> np.ndarray:
    """``n`` random unit voices of the speaker space."""
    return _unit(rng.standard_normal((n, DIMS["speaker"])))


def generated_vectors(
    rng: np.random.Generator, voices: np.ndarray, n: int
) -> dict[str, np.ndarray]:
    """``n`` turns' unit vectors per space: random, but each speaker vector one of
    ``voices`` with per-turn noise of norm ~0.4 (cosine to its voice about 0.9), so
    speaker matching does the work it does on a real memory."""
    noise = rng.standard_normal((n, DIMS["speaker"])) * (0.4 / np.sqrt(DIMS["speaker"]))
    spk = _unit(voices[rng.integers(len(voices), size=n)] + noise)
    vecs = {s: _unit(rng.standard_normal((n, d))) for s, d in DIMS.items() if s != "speaker"}
    vecs["speaker"] = spk
    return vecs


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)


def _percentiles(samples: list[float]) -> tuple[float, float]:
    return float(np.percentile(samples, 50) * 1000), float(np.percentile(samples, 95) * 1000)


def measure(
    size: int,
    root: Path,
    rng: np.random.Generator,
    queries: int,
    progress: Progress,
    engines: dict[str, str] | None = None,
) -> dict[str, Any]:
    """One size on one backend: ``engines`` holds the server mode's ``catalog`` (a fresh
    PostgreSQL database) and ``chroma`` URLs; None is the embedded mode."""
    settings = Settings(
        data_dir=root,
        cache_dir=root / "cache",
        chroma=ChromaSettings(url=engines["chroma"] if engines else None, path=root / "chroma"),
        catalog=CatalogSettings.model_validate(
            {"url": engines["catalog"], "audio": "database"} if engines else {}
        ),
    )
    memory = AudioMemory(settings, perception=fake_perception(dims=DIMS))
    t = np.arange(4000) / 16_000
    clip = Audio((0.2 * np.sin(2 * np.pi * 220 * t)).astype(np.float32))
    voices = voice_pool(rng)
    task = progress.add_task(f"inserting {size:,}", total=size)
    start = time.perf_counter()
    for first in range(0, size, BATCH):
        n = min(BATCH, size - first)
        vecs = generated_vectors(rng, voices, n)
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

    def session_and_role() -> dict[str, Any]:
        return {"$and": [{"session": f"s{int(rng.integers(sessions))}"}, {"role": "user"}]}

    filtered = timed(lambda: memory.search("bench", "text", q("text"), 10, session_and_role()))
    four = timed(lambda: [memory.search("bench", s, q(s), 50) for s in DIMS])
    at_once = timed(lambda: memory.search_spaces("bench", {s: q(s) for s in DIMS}, 50))
    # the bare engines, on the same data: Chroma's own query of the same collections,
    # and a plain lookup of 50 rows in the catalog's table
    from voxmem.memory.index import collection_name

    cols = {s: memory.index.client.get_collection(collection_name("bench", s)) for s in DIMS}

    def bare(space: str, k: int) -> None:
        cols[space].query(query_embeddings=[q(space)], n_results=k, include=["distances"])

    def bare_all() -> None:
        for space in DIMS:
            bare(space, 50)

    bare_text = timed(lambda: bare("text", 10))
    bare_filtered = timed(
        lambda: cols["text"].query(
            query_embeddings=[q("text")],
            n_results=10,
            where=session_and_role(),
            include=["distances"],
        )
    )
    bare_four = timed(bare_all)
    some = [s.id for s in memory.list("bench", limit=5000, vectors=False)]
    conn = memory.catalog.read()

    def pick() -> list[str]:
        return [some[int(i)] for i in rng.integers(len(some), size=50)]

    lookup = timed(lambda: memory.get_many("bench", pick(), vectors=False))
    marks = ",".join("?" * 50)
    bare_lookup = timed(
        lambda: conn.execute(f"SELECT * FROM segments WHERE id IN ({marks})", pick()).fetchall()
    )
    bytes_total = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    if engines:
        bytes_total += memory.catalog.size()
    t0 = time.perf_counter()
    memory.forget("bench", session="s0")
    forget_s = time.perf_counter() - t0
    stages = dict(memory.forgetting.timings)
    rebuild_s = None
    if size <= REBUILD_MAX:
        t0 = time.perf_counter()
        memory.rebuild("bench")
        rebuild_s = time.perf_counter() - t0
        assert memory.verify(repair=False).ok
    memory.close()
    row: dict[str, Any] = {
        "backend": "server" if engines else "embedded",
        "segments": size,
        "insert_per_s": size / insert_s,
        "forget_s": forget_s,
        **{f"forget_{k}_s": stages.get(k, float("nan")) for k in ("catalog", "index", "check")},
        "rebuild_s": rebuild_s,
        "bytes_per_segment": bytes_total / size,
    }
    for name, samples in (
        ("text", text),
        ("bare_text", bare_text),
        ("filtered", filtered),
        ("bare_filtered", bare_filtered),
        ("four_space", four),
        ("four_at_once", at_once),
        ("bare_four", bare_four),
        ("lookup", lookup),
        ("bare_lookup", bare_lookup),
    ):
        row[f"{name}_p50_ms"], row[f"{name}_p95_ms"] = _percentiles(samples)
    row["four_overhead_x"] = row["four_at_once_p95_ms"] / row["bare_four_p95_ms"]
    return row


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [r["segments"] for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for key, label, style in (
        ("text_p95_ms", "one space", "-"),
        ("filtered_p95_ms", "one space + session and role filter", "-"),
        ("bare_filtered_p95_ms", "bare Chroma, same filter", ":"),
        ("four_space_p95_ms", "four spaces, one after another", "-"),
        ("four_at_once_p95_ms", "four spaces at once", "-"),
        ("bare_four_p95_ms", "bare Chroma, four queries", ":"),
    ):
        a.plot(sizes, [r[key] for r in rows], marker="o", linestyle=style, label=label)
    a.axhline(50, color="grey", linestyle="--", label="target 50 ms")
    a.set(xscale="log", xlabel="segments", ylabel="p95 latency (ms)", title="search")
    a.legend()
    b.plot(sizes, [r["forget_s"] for r in rows], marker="o", label="forget one session")
    rebuilt = [(n, r["rebuild_s"]) for n, r in zip(sizes, rows, strict=True) if r["rebuild_s"]]
    if rebuilt:
        b.plot(*zip(*rebuilt, strict=True), marker="o", label="rebuild")
    b.set(xscale="log", yscale="log", xlabel="segments", ylabel="seconds", title="maintenance")
    b.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_store(
    *,
    out: Path,
    seed: int,
    quick: bool,
    console: Console,
    backend: str = "embedded",
    sizes: list[int] | None = None,
) -> Report:
    if backend not in BACKENDS:
        raise ValueError(f"--backend {backend!r}: choose {' or '.join(BACKENDS)}")
    sizes = sizes or ([500, 2000] if quick else [1_000, 10_000, 100_000])
    queries = 30 if quick else 200
    rng = np.random.default_rng(seed)
    report = Report(
        "store",
        f"generated vectors at the default encoders' dimensions, {backend} engines",
        COLUMNS,
        meta={
            "versions": versions("chromadb", "numpy", "psycopg"),
            "backend": backend,
            "dims": DIMS,
            "voices": VOICES,
            "session_size": SESSION_SIZE,
        },
    )
    out.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        pg = stack.enter_context(engines.postgres()) if backend == "server" else None
        with Progress(console=console, transient=True) as progress:
            for size in sizes:
                root = Path(tempfile.mkdtemp(prefix=f"voxmem-store-{size}-", dir=out))
                try:
                    with contextlib.ExitStack() as run:
                        servers = None
                        if pg is not None:
                            chroma = run.enter_context(engines.chroma_server(root / "chroma"))
                            servers = {"catalog": engines.fresh_database(pg), "chroma": chroma}
                        report.rows.append(measure(size, root, rng, queries, progress, servers))
                finally:
                    shutil.rmtree(root, ignore_errors=True)
    plot(report.rows, out / "store.png")
    report.notes += [
        "Latencies include hydrating hits from the catalog. four_space: four single-space "
        "searches one after the other (k=50 each); four_at_once: the same four in one "
        "search_spaces call (the spaces searched side by side, hits read from the catalog "
        "once), which is what recall uses.",
        "bare_*: the engines alone on the same data in the same run: Chroma's own query of "
        "the same collections (distances only), and a plain SQL lookup of 50 rows by id; "
        "four_overhead_x = four_at_once p95 / bare_four p95 (the four bare queries run one "
        "after the other).",
        "filtered: one space, filtered by a session and a role (50 of the session's 100 "
        "turns pass); a filter naming a session or a speaker that at most EXACT_MAX turns "
        f"({EXACT_MAX}) pass is scored exactly on the catalog's vectors, not asked of the "
        "index; bare_filtered is Chroma's own filtered query of the same collection.",
        "forget_s is forgetting one session of 100 turns, including what makes the bytes "
        "unrecoverable, in three steps: forget_catalog_s (rows deleted, audio overwritten "
        "and deleted, speakers' centroids recomputed), forget_index_s (the turns' index "
        "entries overwritten with random vectors and deleted, the graphs written out; "
        "embedded, the index's database vacuumed; the catalog's WAL folded back) and "
        "forget_check_s (embedded, the index's files searched for the forgotten vectors; a "
        "server's files are out of reach).",
        f"rebuild_s is rebuilding the tenant's collections from the catalog, timed (and the "
        f"store verified after it) up to {REBUILD_MAX:,} segments; above that it is not run "
        "(empty), as it takes longer than the rest of the run.",
        "bytes_per_segment counts audio (0.25 s FLAC), catalog and index (with a server, the "
        "PostgreSQL tables; the Chroma server's folder is inside the run's folder).",
        "Plot: store.png.",
    ]
    return report
