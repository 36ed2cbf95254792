"""One retrieval harness for the benchmarks.

A :class:`Task` says what a benchmark run is: its documents and its spoken queries, each
under an explicit key, the retrievers, and how one ranking is scored (the benchmark's own
rules, from :mod:`voxmem.retrievers.metrics`) into figures grouped by family and name
(``per_split`` / ``VCTK``). The harness does the rest, the same way for every benchmark:

- :func:`ingest` stores the documents in a memory, one document after the other, and
  journals each as it is done, so an interrupted run resumes where it stopped. The
  memory is cached under a hash of the documents' bytes and of everything that produces
  the stored vectors (:func:`fingerprint`: the source of the perception, encoder and
  store modules, the encoder settings and the model libraries' versions), so a change
  to any of them ingests again and nothing else does. A document in which nothing is
  found (no turns, or audio that cannot be used) is a document with no turns: it ranks
  last for every query and is counted and listed in the report.
- :func:`run` encodes each spoken query once, ranks every candidate document with each
  retriever, scores each ranking as it comes (no query keeps every document's score
  once it is scored) and collects the rows in a :class:`Tally`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from rich.console import Console

from voxmem.audio import Audio
from voxmem.benchmarks.report import Report
from voxmem.benchmarks.retrieval.common import Timer, progress
from voxmem.errors import BenchmarkDataError, InvalidAudio
from voxmem.memory.perception import Perception
from voxmem.memory.records import Segment
from voxmem.memory.store import AudioMemory
from voxmem.retrievers.baselines import ALL, Query, retrieve
from voxmem.retrievers.metrics import mean_scores
from voxmem.retrievers.recall import Reference, RetrievedDocument
from voxmem.settings import Settings

#: audio given as bytes, or read when needed (large splits are not held in memory)
Blob = bytes | Callable[[], bytes]
TENANT = "bench"
SESSION = "documents"
#: settings that choose the models which produce the stored vectors
MODEL_SETTINGS = ("asr", "vad", "speaker", "style", "environment", "text", "diarization")
#: libraries whose code computes the stored vectors
MODEL_LIBRARIES = (
    "numpy",
    "faster-whisper",
    "ctranslate2",
    "torch",
    "torchaudio",
    "speechbrain",
    "transformers",
    "sentence-transformers",
    "onnxruntime",
    "opensmile",
    "librosa",
    "silero-vad",
    "pyannote.audio",
)
#: documents done before the throughput and the estimate are printed
ESTIMATE_AFTER = 3
#: segments listed at a time when a stored memory is read back
PAGE = 5000
LISTED = 20


class AmbiguousIds(BenchmarkDataError):
    """Ids that a loader relies on to tell rows apart are used more than once."""

    def __init__(self, where: str, duplicates: Mapping[str, int], fix: str = "") -> None:
        self.where = where
        self.duplicates = dict(duplicates)
        shown = ", ".join(f"{d!r} ({n} times)" for d, n in list(self.duplicates.items())[:LISTED])
        more = f" and {len(self.duplicates) - LISTED} more" if len(self.duplicates) > LISTED else ""
        super().__init__(
            f"{where}: {len(self.duplicates)} id(s) used more than once: {shown}{more}; "
            + (fix or "every row needs its own id, or its judgements cannot be resolved")
        )


def unique(ids: Iterable[str], where: str, fix: str = "") -> None:
    """Raise :class:`AmbiguousIds` naming every id that occurs more than once."""
    counts = Counter(ids)
    duplicates = {i: n for i, n in counts.items() if n > 1}
    if duplicates:
        raise AmbiguousIds(where, duplicates, fix)


def read(blob: Blob) -> bytes:
    return blob if isinstance(blob, bytes) else blob()


@dataclass(frozen=True)
class Document:
    key: str
    audio: Blob


@dataclass
class Ask:
    """One query: its key, its spoken clip, its instruction, and what its benchmark's
    scorer needs to judge a ranking (positives, qrels, pools)."""

    key: str
    audio: Blob
    instruction: str
    #: the spoken question's words when the benchmark gives them as text
    text: str | None = None
    judgement: Any = None


#: one query's figures (``R@10`` -> value)
Row = Mapping[str, float]
#: one scored ranking -> (family, group, metric row) for every group it counts in
Scorer = Callable[[str, Ask, dict[str, float]], Iterable[tuple[str, str, Row]]]


@dataclass
class Task:
    """What one run of a benchmark (or one split of it) asks of the harness."""

    asks: Sequence[Ask]
    retrievers: Sequence[str]
    #: ``score(retriever, ask, scores)``: ``scores`` maps every candidate document's key
    #: to its score, in document order; documents with no turns score ``-inf``
    score: Scorer
    seed: int = 0
    #: text baselines read the instruction as well as the spoken words
    instruction_in_text: bool = True
    label: str = "scoring"


# -- the ingest ----------------------------------------------------------------------------


def _package_files() -> list[Path]:
    import voxmem.audio
    import voxmem.memory

    memory = Path(voxmem.memory.__file__).parent
    files = [
        p
        for p in memory.rglob("*")
        if p.is_file() and p.suffix in {".py", ".json"} and "__pycache__" not in p.parts
    ]
    return [Path(voxmem.audio.__file__), Path(__file__), *sorted(files)]


@functools.cache
def code_digest() -> str:
    """A hash of the source that turns audio into stored turns: the audio loader, the
    memory package (perception, encoders and their data files, the store) and this
    harness's ingest. Read once per process, as its code is imported once."""
    import voxmem.memory

    memory = Path(voxmem.memory.__file__).parent
    digest = hashlib.sha256()
    for path in _package_files():
        # named within the package (encoders/speaker.py), never by where it is installed
        name = str(path.relative_to(memory)) if path.is_relative_to(memory) else path.name
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def fingerprint(settings: Settings, perception: Perception) -> dict[str, Any]:
    """Everything that decides what an ingest stores, except the documents."""
    return {
        "code": code_digest(),
        # what decodes reference clips (queries) stores nothing
        "settings": settings.model_dump(
            mode="json", include=set(MODEL_SETTINGS), exclude={"asr": {"reference_variant"}}
        ),
        "encoders": perception.encoder_names,
        "dims": perception.dims,
        "libraries": {n: _version(n) for n in MODEL_LIBRARIES},
    }


@dataclass
class Ingested:
    """Documents stored in a memory (one tenant), and how the ingest went."""

    memory: AudioMemory
    name: str
    #: every candidate document's key, in document order
    keys: list[str]
    #: recording id -> document key
    doc_of: dict[str, str]
    #: documents that stored nothing: key -> why ("no turns found", or the audio's error)
    no_turns: dict[str, str] = field(default_factory=dict)
    tenant: str = TENANT
    #: this run's seconds (reopening a cached ingest, or ingesting)
    seconds: float = 0.0
    #: seconds spent ingesting, over every run that built this cache
    build_seconds: float = 0.0
    cached: bool = False
    #: documents already ingested by an interrupted run and not ingested again
    resumed: int = 0
    #: documents ingested by this run, and their encoded bytes
    ingested: int = 0
    ingested_bytes: int = 0
    #: turns stored for all documents (the retrievers rank at most ``ALL``)
    turns: int = 0

    def summary(self) -> dict[str, Any]:
        """What results.json says about this ingest."""
        rate = self.ingested / self.seconds if self.ingested and self.seconds > 0 else None
        return {
            "documents": len(self.keys),
            "cached": self.cached,
            "seconds": round(self.seconds, 3),
            "build_seconds": round(self.build_seconds, 3),
            "resumed_after": self.resumed,
            "ingested": self.ingested,
            "documents_per_s": None if rate is None else round(rate, 4),
            "turns": self.turns,
            "no_turns": len(self.no_turns),
            "documents_with_no_turns": dict(self.no_turns),
        }

    def note(self) -> str:
        """One line for summary.md."""
        if self.cached:
            head = (
                f"{self.name}: ingest cached ({len(self.keys)} documents, built in "
                f"{self.build_seconds:.1f} s; reopened in {self.seconds:.1f} s)"
            )
        else:
            rate = self.ingested / self.seconds if self.seconds > 0 else 0.0
            head = (
                f"{self.name}: ingested {self.ingested} of {len(self.keys)} documents in "
                f"{self.seconds:.1f} s ({rate:.2f} documents/s)"
                + (f", resumed after {self.resumed} done earlier" if self.resumed else "")
            )
        if self.turns > ALL:
            head += (
                f"; WARNING: {self.turns} turns stored but the retrievers rank at most {ALL}: "
                "the figures leave documents out"
            )
        if not self.no_turns:
            return head
        listed = "; ".join(f"{k} ({v})" for k, v in list(self.no_turns.items())[:LISTED])
        more = f"; and {len(self.no_turns) - LISTED} more" if len(self.no_turns) > LISTED else ""
        return (
            f"{head}; {len(self.no_turns)} document(s) with no turns, ranked last: {listed}{more}"
        )


class _Journal:
    """``journal.jsonl``: a line before each document is ingested and one when it is done,
    flushed to disk, so that a rerun knows what is stored."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.done: dict[str, dict[str, Any]] = {}
        self.in_flight: str | None = None
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:  # the line a kill cut short
                    continue
                if "start" in entry:
                    self.in_flight = entry["start"]
                else:
                    self.done[entry["key"]] = entry
                    self.in_flight = None
        self._file = path.open("a", encoding="utf-8")

    def write(self, entry: dict[str, Any]) -> None:
        import os

        self._file.write(json.dumps(entry) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def _clock(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def ingest(
    name: str,
    documents: Sequence[Document],
    settings: Settings,
    perception: Perception,
    console: Console,
    *,
    after_store: Callable[[str], None] | None = None,
) -> Ingested:
    """Store ``documents`` in a memory of their own, or reopen the one a previous run
    built from the same bytes with the same code and settings, or finish the one an
    interrupted run left. ``after_store(key)`` runs once a document is stored and before
    it is journaled (tests interrupt the ingest there)."""
    keys = [d.key for d in documents]
    unique(keys, f"{name}: document keys")
    digest = hashlib.sha256(json.dumps([name, fingerprint(settings, perception)]).encode())
    sizes: dict[str, int] = {}
    for d in documents:
        blob = read(d.audio)
        sizes[d.key] = len(blob)
        digest.update(d.key.encode() + b"\0" + hashlib.sha256(blob).digest())
    root = settings.cache_dir / "bench-memories" / f"{name}-{digest.hexdigest()[:20]}"
    complete = root / "documents.json"
    t0 = time.perf_counter()
    if complete.exists():
        info = json.loads(complete.read_text())
        memory = AudioMemory.open(root, settings=settings, perception=perception)
        cached = Ingested(
            memory,
            name,
            keys,
            info["doc_of"],
            info["no_turns"],
            seconds=time.perf_counter() - t0,
            build_seconds=info["build_seconds"],
            cached=True,
            turns=info.get("turns", 0),
        )
        return _checked_size(cached, console)
    root.mkdir(parents=True, exist_ok=True)
    memory = AudioMemory.open(root, settings=settings, perception=perception)
    journal = _Journal(root / "journal.jsonl")
    try:
        store = _resume(memory, name, keys, journal)
        store.resumed = len(journal.done)
        todo = [d for d in documents if d.key not in journal.done]
        remaining = sum(sizes[d.key] for d in todo)
        console.print(
            f"ingesting {name}: {len(todo)} document(s), {remaining / 1e6:.1f} MB of audio"
            + (f" (resuming: {store.resumed} already stored)" if store.resumed else "")
        )
        # the ASR's sampled decodes from the start of their seeded stream: what this
        # ingest hears does not depend on what the process transcribed before (another
        # seed's edition, or a split before this one that was ingested rather than
        # cached). A resumed ingest restarts it at the document it resumes from.
        if todo:
            store.memory.perception.restart_sampling()
        _ingest_all(store, todo, sizes, journal, console, after_store)
    finally:
        journal.close()
    store.seconds = time.perf_counter() - t0
    store.build_seconds = sum(e.get("seconds", 0.0) for e in journal.done.values())
    store.turns = sum(len(s) for s in _stored_recordings(memory).values())
    complete.write_text(
        json.dumps(
            {
                "doc_of": store.doc_of,
                "no_turns": store.no_turns,
                "build_seconds": store.build_seconds,
                "turns": store.turns,
            }
        )
    )
    return _checked_size(store, console)


def _checked_size(store: Ingested, console: Console) -> Ingested:
    if store.turns > ALL:
        console.print(
            f"[yellow]{store.name}: {store.turns} turns stored, but the retrievers rank at "
            f"most {ALL}: the figures will leave documents out[/]"
        )
    return store


def _stored_recordings(memory: AudioMemory) -> dict[str, list[str]]:
    """recording id -> its segment ids, for everything the memory holds."""
    out: dict[str, list[str]] = {}
    if TENANT not in memory.tenants():
        return out
    offset = 0
    while page := memory.list(TENANT, limit=PAGE, offset=offset):
        for s in page:
            out.setdefault(s.recording_id, []).append(s.id)
        offset += len(page)
    return out


def _resume(memory: AudioMemory, name: str, keys: list[str], journal: _Journal) -> Ingested:
    """The state an earlier, interrupted run left: journaled documents, and the document
    that was being ingested when it stopped (adopted if the memory holds it)."""
    store = Ingested(memory, name, keys, {})
    for key, entry in journal.done.items():
        for rid in entry.get("recordings", []):
            store.doc_of[rid] = key
        if entry.get("no_turns"):
            store.no_turns[key] = entry["no_turns"]
    if not journal.done and journal.in_flight is None:
        return store
    orphans = {r: s for r, s in _stored_recordings(memory).items() if r not in store.doc_of}
    if orphans and journal.in_flight is not None:
        # stored, but stopped before the journal said so: keep it, do not ingest it again
        key = journal.in_flight
        entry = {"key": key, "recordings": sorted(orphans), "seconds": 0.0, "adopted": True}
        journal.write(entry)
        journal.done[key] = entry
        store.doc_of.update(dict.fromkeys(orphans, key))
    elif orphans:
        memory.forget(TENANT, segments=[s for segs in orphans.values() for s in segs])
    return store


def _ingest_all(
    store: Ingested,
    todo: Sequence[Document],
    sizes: Mapping[str, int],
    journal: _Journal,
    console: Console,
    after_store: Callable[[str], None] | None,
) -> None:
    total_bytes = sum(sizes[d.key] for d in todo)
    start = time.perf_counter()
    with progress(console) as bar:
        task = bar.add_task(f"ingesting {store.name}", total=len(todo))
        for n, doc in enumerate(todo, 1):
            journal.write({"start": doc.key})
            t0 = time.perf_counter()
            entry: dict[str, Any] = {"key": doc.key, "recordings": []}
            try:
                segs = store.memory.ingest(
                    read(doc.audio), tenant=store.tenant, session=SESSION, source=doc.key
                )
            except InvalidAudio as exc:
                segs = []
                entry["no_turns"] = f"{type(exc).__name__}: {exc}"
            else:
                if not segs:
                    entry["no_turns"] = "no turns found"
            if after_store is not None:
                after_store(doc.key)
            entry["recordings"] = sorted({s.recording_id for s in segs})
            entry["seconds"] = time.perf_counter() - t0
            journal.write(entry)
            journal.done[doc.key] = entry
            store.doc_of.update(dict.fromkeys(entry["recordings"], doc.key))
            if "no_turns" in entry:
                store.no_turns[doc.key] = entry["no_turns"]
            store.ingested += 1
            store.ingested_bytes += sizes[doc.key]
            if n == ESTIMATE_AFTER and n < len(todo):
                elapsed = time.perf_counter() - start
                rate = store.ingested_bytes / elapsed if elapsed > 0 else 0.0
                left = (total_bytes - store.ingested_bytes) / rate if rate > 0 else 0.0
                console.print(
                    f"ingesting {store.name}: {n / elapsed:.2f} documents/s "
                    f"({rate / 1e3:.1f} kB/s of audio); about {_clock(left)} left, "
                    f"{_clock(elapsed + left)} in all"
                )
            bar.advance(task)


# -- queries ---------------------------------------------------------------------------------


def text_pool(name: str, keys: Sequence[str], memory: AudioMemory) -> Ingested:
    """A text corpus ranked as a pool of passages (nothing ingested): each passage's
    recording id is its key."""
    return Ingested(memory, name, list(keys), {k: k for k in keys})


def encode_reference(memory: AudioMemory, clip: Audio | bytes, timer: Timer) -> Reference | None:
    """One encoding of a spoken query (voice, style, environment, words), shared by every
    retriever; None when the clip has no speech."""
    t0 = time.perf_counter()
    try:
        return Reference.encode(memory, clip, transcribe=True)
    except InvalidAudio:
        return None
    finally:
        timer.add("query encoding", t0)


def document_scores(
    retriever: str, store: Ingested, query: Query, timer: Timer
) -> dict[str, float]:
    """Document key -> score for every candidate, in document order (a document nothing
    ranked, or with no turns, gets -inf)."""
    t0 = time.perf_counter()
    docs = retrieve(retriever, store.memory, store.tenant, query, k=ALL, documents=True)
    timer.add(retriever, t0)
    scores = dict.fromkeys(store.keys, float("-inf"))
    for d in docs:
        assert isinstance(d, RetrievedDocument)
        key = store.doc_of.get(d.recording_id)
        if key is not None:
            scores[key] = max(scores[key], d.score)
    return scores


def ranked_keys(
    retriever: str,
    memory: AudioMemory,
    tenant: str,
    query: Query,
    key_of: Mapping[str, str],
) -> list[str]:
    """The keys of the turns ``retriever`` ranks, best first (see :func:`keys_in_order`)."""
    turns = retrieve(retriever, memory, tenant, query, k=ALL)
    return keys_in_order((t.segment.id for t in turns), key_of)


def keys_in_order(segment_ids: Iterable[str], key_of: Mapping[str, str]) -> list[str]:
    """Segment ids best first -> the keys they belong to (an utterance of a dialogue),
    best first, each once; segments without a key are skipped."""
    out: dict[str, None] = {}
    for sid in segment_ids:
        key = key_of.get(sid)
        if key is not None:
            out.setdefault(key)
    return list(out)


@dataclass
class Tally:
    """Metric rows per family (``per_split``), retriever and group, in the order met,
    and the key of the query each row scores."""

    rows: dict[str, dict[str, dict[str, list[Row]]]] = field(default_factory=dict)
    keys: dict[str, dict[str, dict[str, list[str]]]] = field(default_factory=dict)

    def add(self, family: str, retriever: str, group: str, row: Row, key: str = "") -> None:
        self.rows.setdefault(family, {}).setdefault(retriever, {}).setdefault(group, []).append(row)
        self.keys.setdefault(family, {}).setdefault(retriever, {}).setdefault(group, []).append(key)

    def means(self, family: str) -> dict[str, dict[str, dict[str, float]]]:
        """``{retriever: {group: {metric: mean}}}`` (queries without positives count)."""
        return {
            r: {g: mean_scores(rows) for g, rows in groups.items()}
            for r, groups in self.rows.get(family, {}).items()
        }

    def queries(self, family: str, retriever: str, group: str) -> int:
        return len(self.rows.get(family, {}).get(retriever, {}).get(group, []))

    def per_query(self, family: str) -> dict[str, Any]:
        """Every query's row of ``family`` for results.json (``rows[retriever][group]``,
        and ``keys[group]``, the queries' keys in the same order for every retriever):
        what figures pooled over several runs and paired comparisons are computed from."""
        keys: dict[str, list[str]] = {}
        for r, groups in self.keys.get(family, {}).items():
            for g, ks in groups.items():
                if keys.setdefault(g, ks) != ks:
                    raise RuntimeError(
                        f"{family}/{g}: {r} scored other queries, or in another order"
                    )
        return {
            "family": family,
            "keys": keys,
            "rows": {
                r: {g: [dict(row) for row in rows] for g, rows in groups.items()}
                for r, groups in self.rows.get(family, {}).items()
            },
        }


def run(
    task: Task,
    store: Ingested,
    tally: Tally,
    timer: Timer,
    console: Console,
    pool: list[Segment] | None = None,
) -> None:
    """Every query of ``task`` against ``store``: encoded once, ranked by each retriever,
    scored at once into ``tally``."""
    # a reference whose quick decode runs away is transcribed in full, which may sample:
    # from the stream's start, whether this store's ingest ran or was cached
    store.memory.perception.restart_sampling()
    with progress(console) as bar:
        job = bar.add_task(task.label, total=len(task.asks))
        for ask in task.asks:
            ref = encode_reference(store.memory, read(ask.audio), timer)
            query = Query(
                ask.instruction,
                ref,
                text=ask.text,
                seed=task.seed,
                id=ask.key,
                instruction_in_text=task.instruction_in_text,
                pool=pool,
            )
            for r in task.retrievers:
                scores = document_scores(r, store, query, timer)
                for family, group, row in task.score(r, ask, scores):
                    tally.add(family, r, group, row, ask.key)
            bar.advance(job)


def report_ingests(report: Report, stores: Sequence[Ingested]) -> None:
    """Each ingest's figures in results.json (``ingest``: cached or not, this run's
    seconds, throughput, documents with no turns) and a line each in the notes."""
    report.results["ingest"] = {s.name: s.summary() for s in stores}
    report.notes += [s.note() for s in stores]
