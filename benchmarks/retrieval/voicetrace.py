"""VoiceTrace: who-said-what retrieval (dataset ``cara-ai/VoiceTrace-Bench``).

The real data: ``single/`` and ``multi/``, each a ``data.parquet`` plus audio files.
A query is a question about what "this speaker" said plus a reference clip of that
speaker's voice; row i's only positive is row i's document. Audio columns are read
under either naming (``query_audio_path`` / ``document_audio_path`` as the evaluation
script has them, ``query_audio`` / ``document_audio`` as the dataset card does), as a
path or as a ``{bytes, path}`` struct. Speaker ids are numpy-style strings
(``"['a' 'b']"``). VoiceTrace-mini is written in that layout by :func:`write_mini`.

Pools: ``single`` (single-speaker documents), ``multi`` (multi-speaker documents) and
``mixed`` (every document, every query); no exclusions. Metrics: hit-rate R@k and
single-positive NDCG@k for k in 1, 3, 5, 10.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from voxmem.audio import write_flac
from voxmem.benchmarks.pools import Wordings
from voxmem.benchmarks.registry import Options
from voxmem.benchmarks.report import Report, versions
from voxmem.benchmarks.retrieval import common, harness
from voxmem.benchmarks.retrieval.facts import FACTS
from voxmem.benchmarks.synth import ClipCache, Utterance, distinct_voices, render
from voxmem.benchmarks.synth.conversation import conversation
from voxmem.benchmarks.synth.texts import SENTENCES
from voxmem.errors import BenchmarkDataError
from voxmem.retrievers.metrics import voicetrace_ranking, voicetrace_scores

SUBSETS = ("single", "multi")
POOLS = ("single", "multi", "mixed")
REQUIRED = ("query_text", "document_audio_text", "id")
AUDIO_COLUMNS = {
    "query": ("query_audio_path", "query_audio"),
    "document": ("document_audio_path", "document_audio"),
}
#: the paper's two-stage baseline (ECAPA voiceprints, top 25 reranked by BGE-base), R@1
PUBLISHED_NOTE = (
    "Published figures: not reproduced here. VoiceTrace-Bench evaluates its two-stage "
    "baseline (WhisperX segments, ECAPA voiceprints, top 25 reranked with BGE-base) on "
    "1,580 single- and 500 multi-speaker queries of real speech; compare with its paper "
    "when running the real data."
)
QUESTIONS = [
    "What did this speaker say about {t}?",
    "What does this person mention regarding {t}?",
    "Find what this speaker said on {t}.",
    "What did this voice tell us about {t}?",
    "Which recording has this speaker talking about {t}?",
    "What did she or he say concerning {t}?",
]
MINI_VERSION = 2


@dataclass
class Row:
    """One row of a subset: a query and its only positive, the row's document."""

    #: the ``id`` column, as the file has it (it may restart in each subset)
    id: str
    subset: str
    #: the row's position in its subset's file
    row: int
    question: str
    query_blob: harness.Blob
    document_blob: harness.Blob
    document_text: str
    query_speakers: list[str]
    document_speakers: list[str]

    @property
    def key(self) -> str:
        """The row's key, as VoiceTrace's evaluation has it (``single:0``): the ``id``
        column is not relied on."""
        return f"{self.subset}:{self.row}"

    @property
    def query_audio(self) -> bytes:
        return harness.read(self.query_blob)

    @property
    def document_audio(self) -> bytes:
        return harness.read(self.document_blob)


def speaker_ids(value: Any) -> list[str]:
    """``"['a' 'b']"`` (numpy's print form), ``"['a', 'b']"``, a list, or one id."""
    if value is None:
        return []
    if isinstance(value, list | tuple | np.ndarray):
        return [str(v) for v in value]
    text = str(value).strip()
    if text.startswith("["):
        return [a or b for a, b in re.findall(r"'([^']*)'|\"([^\"]*)\"", text)]
    return [text] if text else []


def _audio(value: Any, folders: list[Path]) -> harness.Blob | None:
    """The bytes of a struct, or a reader of the file a path names (read when needed)."""
    if isinstance(value, dict):
        if value.get("bytes"):
            return bytes(value["bytes"])
        value = value.get("path")
    if isinstance(value, str) and value:
        for folder in folders:
            path = Path(value) if Path(value).is_absolute() else folder / value
            if path.is_file():
                return path.read_bytes
    return None


def load_subset(folder: Path, subset: str) -> list[Row]:
    """Read and check ``folder/subset/data.parquet``; every problem is reported at once."""
    import pyarrow.parquet as pq

    path = folder / subset / "data.parquet"
    if not path.exists():
        raise BenchmarkDataError(
            f"{path} not found: VoiceTrace keeps each subset as <subset>/data.parquet "
            f"plus its audio (subsets: {', '.join(SUBSETS)})"
        )
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises many types
        raise BenchmarkDataError(f"{path}: not a readable parquet file ({exc})") from None
    cols = set(table.column_names)
    problems = [f"missing column {c}" for c in REQUIRED if c not in cols]
    audio_col = {}
    for kind, names in AUDIO_COLUMNS.items():
        found = next((n for n in names if n in cols), None)
        if found is None:
            problems.append(f"missing column {' or '.join(names)}")
        audio_col[kind] = found
    if problems:
        raise BenchmarkDataError(f"{path}: " + "; ".join(problems))
    rows = []
    folders = [folder / subset, folder]
    for n, r in enumerate(table.to_pylist()):
        q = _audio(r[audio_col["query"]], folders)
        d = _audio(r[audio_col["document"]], folders)
        if q is None or d is None:
            which = "query" if q is None else "document"
            problems.append(f"row {r['id']}: {which} audio {r[audio_col[which]]!r} not found")
            continue
        rows.append(
            Row(
                str(r["id"]),
                subset,
                n,
                str(r["query_text"]),
                q,
                d,
                str(r["document_audio_text"] or ""),
                speaker_ids(r.get("query_audio_speaker_ids")),
                speaker_ids(r.get("document_audio_speaker_ids")),
            )
        )
    if problems:
        head = "\n  ".join(problems[:20])
        raise BenchmarkDataError(f"{path}: {len(problems)} problem(s):\n  {head}")
    return rows


def write_subset(folder: Path, subset: str, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    (folder / subset).mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), folder / subset / "data.parquet")


def _ids(voices: list[str]) -> str:
    return "[" + " ".join(f"'{v}'" for v in voices) + "]"


def write_mini(
    folder: Path, seed: int, quick: bool, cache: ClipCache, console: Console, wordings: Wordings
) -> Path:
    """VoiceTrace-mini: single-speaker documents where another voice says the same thing,
    and two- or three-voice conversations where the asked-for voice is present in a
    distractor that carries the same words from someone else. Questions are phrased from
    ``wordings["question"]`` (``pools.wordings("voicetrace-mini", role)``) on a stream of
    their own: the rows are the same for every role."""
    done = folder / ".complete"
    if done.exists():
        return folder
    rng = np.random.default_rng(seed)
    phrasing = common.wording_rng(seed)
    questions = wordings["question"]

    def question(topic: str) -> str:
        return str(phrasing.choice(questions)).format(t=topic)

    voices = [v.id for v in distinct_voices()]
    others = list(SENTENCES)

    def save(name: str, clip: Any) -> str:
        subset = name.split("-")[0]
        write_flac(clip, folder / subset / "audio" / name)
        return f"audio/{name}"

    def reference(voice: str, name: str) -> str:
        u = Utterance(others[int(rng.integers(len(others)))], voice, seed=len(name))
        return save(name, render(u, cache))

    single: list[dict[str, Any]] = []
    n_single = 6 if quick else 20
    with common.progress(console) as bar:
        task = bar.add_task("generating VoiceTrace-mini", total=n_single + (4 if quick else 12))
        for f in FACTS[:n_single]:
            for v in rng.choice(voices, 2, replace=False):
                n = len(single)
                doc = save(f"single-{n:04d}.flac", render(Utterance(f.answer, str(v)), cache))
                single.append(
                    {
                        "id": f"single-{n:04d}",
                        "query_text": question(f.topic),
                        "query_audio_path": reference(str(v), f"single-ref-{n:04d}.flac"),
                        "document_audio_path": doc,
                        "document_audio_text": f.answer,
                        "query_audio_speaker_ids": _ids([str(v)]),
                        "document_audio_speaker_ids": _ids([str(v)]),
                        "source": "voxmem-mini",
                    }
                )
            bar.advance(task)
        multi: list[dict[str, Any]] = []
        offset = 1000
        for f in FACTS[n_single : n_single + (4 if quick else 12)]:
            trio = [str(v) for v in rng.choice(voices, 3, replace=False)]
            a, b = trio[0], trio[1]
            third = [trio[2]] if rng.random() < 0.5 else []
            for speaker, other in ((a, b), (b, a)):
                # the asked-for voice says the fact; in the twin document the other voice
                # says it and the asked-for voice says something else
                said = [(speaker, f.answer), (other, others[int(rng.integers(len(others)))])]
                said += [(t, others[int(rng.integers(len(others)))]) for t in third]
                order = rng.permutation(len(said))
                turns = [Utterance(said[k][1], said[k][0], seed=offset) for k in order]
                clip, ref = conversation(turns, cache, seed=offset)
                labels = {
                    v: f"S{i + 1}" for i, v in enumerate(dict.fromkeys(t.speaker for t in ref))
                }
                n = len(multi)
                multi.append(
                    {
                        "id": f"multi-{n:04d}",
                        "query_text": question(f.topic),
                        "query_audio_path": reference(speaker, f"multi-ref-{n:04d}.flac"),
                        "document_audio_path": save(f"multi-{n:04d}.flac", clip),
                        "document_audio_text": " ".join(
                            f"[{labels[t.speaker]}]: {t.text}" for t in ref
                        ),
                        "query_audio_speaker_ids": _ids([speaker]),
                        "document_audio_speaker_ids": _ids(list(labels)),
                        "source": "voxmem-mini",
                    }
                )
                offset += 1
            bar.advance(task)
    write_subset(folder, "single", single)
    write_subset(folder, "multi", multi)
    (folder / "README.md").write_text(
        "# VoiceTrace-mini\n\nGenerated by voxmem in VoiceTrace-Bench's layout "
        "(single/ and multi/, data.parquet plus audio); synthetic voices, not the real data.\n"
    )
    done.write_text(json.dumps({"seed": seed, "quick": quick}))
    return folder


def run_voicetrace(
    *,
    out: Path,
    seed: int,
    quick: bool,
    console: Console,
    data_dir: Path | None,
    options: Options,
) -> Report:
    from voxmem.memory.perception import Perception

    start = time.perf_counter()
    pools = options.splits or list(POOLS)
    unknown = [p for p in pools if p not in POOLS]
    if unknown:
        raise BenchmarkDataError(f"unknown pool {', '.join(unknown)}; pools: {', '.join(POOLS)}")
    retrievers = common.check_retrievers(options.retrievers, common.DEFAULT_RETRIEVERS)
    settings, folder, edition = common.data_folder(
        "voicetrace",
        "VoiceTrace",
        write_mini,
        MINI_VERSION,
        data_dir=data_dir,
        seed=seed,
        quick=quick,
        console=console,
        wordings=options.wordings,
    )
    used = common.wordings_used(options.wordings, data_dir)
    subsets = [s for s in SUBSETS if s in pools or "mixed" in pools]
    rows = {s: load_subset(folder, s) for s in subsets}
    perception = Perception.from_settings(settings)
    # keyed by subset and row, as VoiceTrace's evaluation does: a row's document is its
    # query's only positive
    store = harness.ingest(
        "voicetrace",
        [harness.Document(r.key, r.document_blob) for s in subsets for r in rows[s]],
        settings,
        perception,
        console,
    )
    timer = common.Timer()
    timer.seconds["ingest"] = store.seconds
    tally = harness.Tally()

    def score(
        retriever: str, ask: harness.Ask, scores: dict[str, float]
    ) -> list[tuple[str, str, harness.Row]]:
        subset = ask.judgement
        out = []
        for pool in pools:
            if pool == "mixed":
                candidates = scores
            elif pool == subset:
                candidates = {d: v for d, v in scores.items() if d.startswith(f"{pool}:")}
            else:
                continue
            out.append(
                ("per_pool", pool, voicetrace_scores(voicetrace_ranking(candidates), ask.key))
            )
        return out

    asks = [
        harness.Ask(r.key, r.query_blob, r.question, text=r.question, judgement=s)
        for s in subsets
        for r in common.take(rows[s], options.limit)
    ]
    try:
        harness.run(
            harness.Task(asks, retrievers, score, seed=seed, label="scoring VoiceTrace"),
            store,
            tally,
            timer,
            console,
        )
    finally:
        store.memory.close()
    means = tally.means("per_pool")
    results = {r: {p: means[r][p] for p in pools if p in means.get(r, {})} for r in retrievers}
    report = Report(
        "voicetrace",
        edition,
        ["pool", "retriever", "queries", "R@1", "R@3", "R@5", "R@10", "NDCG@10"],
        meta={"versions": versions("chromadb", "faster-whisper"), "seed": seed, "wordings": used},
    )
    report.notes.append(common.wordings_note("voicetrace-mini", used))
    for pool in pools:
        for r in (r for r in retrievers if pool in results[r]):
            report.rows.append(
                {
                    "pool": pool,
                    "retriever": r,
                    "queries": tally.queries("per_pool", r, pool),
                    **{k: 100 * results[r][pool][k] for k in report.columns[3:]},
                }
            )
    # a query whose document has no turns still has its positive, ranked last
    unheard = {
        p: sum(1 for a in asks if a.key in store.no_turns and p in ("mixed", a.judgement))
        for p in pools
    }
    report.results = {
        "metrics": "VoiceTrace hit-rate R@k and single-positive NDCG@k, k in 1, 3, 5, 10; "
        "documents and queries keyed by subset and row",
        "per_pool": results,
        "per_query": tally.per_query("per_pool"),
        "queries without positives": dict.fromkeys(pools, 0),
        "queries whose document has no turns": unheard,
    }
    if any(unheard.values()):
        report.notes.append(
            "Queries whose document has no turns (its positive ranks last): "
            + ", ".join(f"{p} {n}" for p, n in unheard.items() if n)
        )
    report.published = {"note": PUBLISHED_NOTE}
    report.notes.append(PUBLISHED_NOTE)
    if data_dir is None:
        report.notes.append(
            "VoiceTrace-mini: synthetic voices; single-speaker documents each have a twin in "
            "which another voice says the same words; multi-speaker documents each have a twin "
            "in which the asked-for voice is present but another voice says the asked-about words."
        )
    harness.report_ingests(report, [store])
    out.mkdir(parents=True, exist_ok=True)
    report.plots = [
        common.bar_plot(
            common.pivot(results, "R@1"), out / "recall_at_1.png", f"{edition}: R@1", "R@1"
        ).name,
        common.bar_plot(
            common.pivot(results, "R@5"), out / "recall_at_5.png", f"{edition}: R@5", "R@5"
        ).name,
    ]
    report.timings = common.timings(timer, start)
    return report
