"""SQuTR: spoken query to text retrieval under noise (dataset ``SLLMCommunity/SQuTR``).

A subset folder (``en/fiqa``, ...) holds ``corpus.jsonl`` (``_id``, ``title``,
``text``), ``qrels/test.jsonl`` (``query-id``/``query_id``, ``corpus-id``/``corpus_id``,
``score``), ``queries.jsonl`` and ``queries_with_audio_<condition>.jsonl`` for the
conditions ``clean``, ``noise_snr_20``, ``noise_snr_10``, ``noise_snr_0`` (``_id``,
``text``, ``audio``: a file under ``audio_<condition>/``). ``--data-dir`` may point at
one subset or at a folder of them. SQuTR-mini is written in that layout.

The corpus is text, so it is ranked as a pool of passages handed to every retriever
(``recall`` included); the spoken query goes through the memory's own encoders.
Metrics follow trec_eval: graded nDCG@10, MRR@10 and Recall@10 (relevance > 0).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np
from rich.console import Console

from voxmem.audio import write_flac
from voxmem.benchmarks import pools
from voxmem.benchmarks.pools import Wordings
from voxmem.benchmarks.registry import Options
from voxmem.benchmarks.report import Report, versions
from voxmem.benchmarks.retrieval import common, harness
from voxmem.benchmarks.retrieval.facts import FACTS
from voxmem.benchmarks.synth import ClipCache, Utterance, distinct_voices, render
from voxmem.benchmarks.synth.texts import SENTENCES
from voxmem.errors import BenchmarkDataError
from voxmem.memory.records import Segment
from voxmem.retrievers.metrics import trec_scores

CONDITIONS = ("clean", "noise_snr_20", "noise_snr_10", "noise_snr_0")
SNR = {"clean": None, "noise_snr_20": 20.0, "noise_snr_10": 10.0, "noise_snr_0": 0.0}
#: text-only corpus: the voice-based retrievers do not apply
RETRIEVERS = ("random", "bm25", "dense", "instruct")
INSTRUCTION = "Find the passage that answers this spoken question."
#: English subsets, nDCG@10 clean -> 0 dB, from the SQuTR paper
PUBLISHED = {
    "BM25 over Whisper-large-v3 ASR": {"clean": 0.3586, "noise_snr_0": 0.3374},
    "Qwen3-Embedding-8B over ASR": {"clean": 0.6450, "noise_snr_0": 0.6120},
    "BM25 on the text queries (upper bound)": {"text": 0.3912},
    "Qwen3-Embedding-8B on the text queries (upper bound)": {"text": 0.6686},
}
MINI_VERSION = 2
#: real (freedesktop) and generated backgrounds for SQuTR-mini's noisy conditions
MINI_NOISES = ("babble", "phone", "engine", "bell", "rain", "alarm", "pink-noise", "typing")


@dataclass
class Subset:
    name: str
    corpus: dict[str, tuple[str, str]]  # id -> (title, text)
    qrels: dict[str, dict[str, int]]  # query id -> doc id -> grade
    #: condition -> query id -> (text, audio); the audio is read when the query is asked
    queries: dict[str, dict[str, tuple[str, harness.Blob]]]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        raise BenchmarkDataError(
            f"{path} not found (SQuTR subsets hold corpus.jsonl, "
            "qrels/test.jsonl and queries_with_audio_<condition>.jsonl)"
        )
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise BenchmarkDataError(f"{path}:{n}: not JSON ({exc.msg})") from None
    return rows


def _field(row: dict[str, Any], *names: str, where: str) -> Any:
    for n in names:
        if n in row:
            return row[n]
    raise BenchmarkDataError(f"{where}: missing field {' / '.join(names)}")


def subsets_in(folder: Path) -> list[Path]:
    """``folder`` itself when it holds a corpus, else every subset below it."""
    if (folder / "corpus.jsonl").exists():
        return [folder]
    return sorted(p.parent for p in folder.glob("*/corpus.jsonl")) + sorted(
        p.parent for p in folder.glob("*/*/corpus.jsonl")
    )


def load_subset(
    folder: Path, conditions: tuple[str, ...] = CONDITIONS, limit: int | None = None
) -> Subset:
    """Read and check one subset; every problem is reported at once."""
    corpus = {}
    corpus_rows = _jsonl(folder / "corpus.jsonl")
    ids = [
        str(_field(r, "_id", where=f"{folder / 'corpus.jsonl'} line {i + 1}"))
        for i, r in enumerate(corpus_rows)
    ]
    harness.unique(ids, f"{folder / 'corpus.jsonl'}: _id", "qrels name passages by _id")
    for i, (doc_id, r) in enumerate(zip(ids, corpus_rows, strict=True)):
        where = f"{folder / 'corpus.jsonl'} line {i + 1}"
        corpus[doc_id] = (str(r.get("title") or ""), str(_field(r, "text", where=where)))
    qrels: dict[str, dict[str, int]] = {}
    problems: list[str] = []
    for i, r in enumerate(_jsonl(folder / "qrels" / "test.jsonl")):
        where = f"{folder / 'qrels/test.jsonl'} line {i + 1}"
        q = str(_field(r, "query-id", "query_id", where=where))
        d = str(_field(r, "corpus-id", "corpus_id", where=where))
        if d not in corpus:
            problems.append(f"qrels: corpus id {d} (query {q}) is not in corpus.jsonl")
        qrels.setdefault(q, {})[d] = int(_field(r, "score", where=where))
    queries: dict[str, dict[str, tuple[str, harness.Blob]]] = {}
    for cond in conditions:
        path = folder / f"queries_with_audio_{cond}.jsonl"
        rows = common.take(_jsonl(path), limit)
        harness.unique(
            (str(_field(r, "_id", where=f"{path} line {i + 1}")) for i, r in enumerate(rows)),
            f"{path}: _id",
            "qrels name queries by _id",
        )
        got: dict[str, tuple[str, harness.Blob]] = {}
        for i, r in enumerate(rows):
            where = f"{path} line {i + 1}"
            qid = str(_field(r, "_id", where=where))
            name = str(_field(r, "audio", where=where))
            audio = next(
                (p for p in (folder / f"audio_{cond}" / name, folder / name) if p.is_file()), None
            )
            if audio is None:
                problems.append(
                    f"{cond}: audio {name} of query {qid} not found "
                    f"under {folder / f'audio_{cond}'}"
                )
                continue
            if qid not in qrels:
                problems.append(f"{cond}: query {qid} has no qrels")
                continue
            got[qid] = (str(r.get("text") or ""), audio.read_bytes)
        queries[cond] = got
    if problems:
        head = "\n  ".join(problems[:20])
        raise BenchmarkDataError(f"{folder}: {len(problems)} problem(s):\n  {head}")
    return Subset(folder.name, corpus, qrels, queries)


def instruction_for(query_id: str, wordings: Wordings) -> str:
    """The one instruction given to spoken query ``query_id``: SQuTR's data has none, so
    it is drawn from ``wordings["instruction"]`` (``pools.wordings("squtr-mini", role)``)
    by a hash of the query id, the same in every condition and every run."""
    choices = wordings["instruction"]
    assert isinstance(choices, list)
    digest = hashlib.sha256(query_id.encode("utf-8")).digest()
    return str(choices[int.from_bytes(digest[:8], "big") % len(choices)])


def write_mini(
    folder: Path, seed: int, quick: bool, cache: ClipCache, console: Console, wordings: Wordings
) -> Path:
    """SQuTR-mini: answers (relevance 2), related passages (1) and unrelated sentences in
    the corpus; every question spoken by one of several voices, clean and mixed with real
    and generated backgrounds at 20, 10 and 0 dB (with a room impulse response).
    ``wordings`` is not written: SQuTR's format has no instruction, the run gives each
    query one (:func:`instruction_for`), so the rows are the same for every role."""
    sub = folder / "en" / "mini"
    done = folder / ".complete"
    if done.exists():
        return folder
    rng = np.random.default_rng(seed)
    voices = [v.id for v in distinct_voices()]
    facts = list(enumerate(FACTS))[: 8 if quick else len(FACTS)]
    sub.mkdir(parents=True, exist_ok=True)
    corpus = (
        [{"_id": f"d{i:03d}a", "title": f.topic, "text": f.answer} for i, f in enumerate(FACTS)]
        + [{"_id": f"d{i:03d}r", "title": f.topic, "text": f.related} for i, f in enumerate(FACTS)]
        + [{"_id": f"s{i:03d}", "title": "", "text": s} for i, s in enumerate(SENTENCES)]
    )
    _write_jsonl(sub / "corpus.jsonl", corpus)
    (sub / "qrels").mkdir(exist_ok=True)
    _write_jsonl(
        sub / "qrels" / "test.jsonl",
        [
            {"query-id": f"q{i:03d}", "corpus-id": f"d{i:03d}{kind}", "score": grade}
            for i, _ in facts
            for kind, grade in (("a", 2), ("r", 1))
        ],
    )
    _write_jsonl(
        sub / "queries.jsonl", [{"_id": f"q{i:03d}", "text": f.question} for i, f in facts]
    )
    with common.progress(console) as bar:
        task = bar.add_task("generating SQuTR-mini", total=len(facts) * len(CONDITIONS))
        for cond in CONDITIONS:
            rows = []
            for i, f in facts:
                voice = voices[i % len(voices)]
                noise = MINI_NOISES[int(rng.integers(len(MINI_NOISES)))]
                snr = SNR[cond]
                u = Utterance(
                    f.question,
                    voice,
                    background=noise if snr is not None else None,
                    snr_db=snr,
                    rt60=0.3 if snr is not None else None,
                    seed=i,
                )
                name = f"q{i:03d}.flac"
                write_flac(render(u, cache), sub / f"audio_{cond}" / name)
                row: dict[str, Any] = {"_id": f"q{i:03d}", "text": f.question, "audio": name}
                if snr is not None:
                    row |= {"snr_db": snr, "noise_id": noise}
                rows.append(row)
                bar.advance(task)
            _write_jsonl(sub / f"queries_with_audio_{cond}.jsonl", rows)
    (folder / "README.md").write_text(
        "# SQuTR-mini\n\nGenerated by voxmem in SQuTR's layout (en/mini); synthetic voices "
        "and backgrounds, not the real data.\n"
    )
    done.write_text(json.dumps({"seed": seed, "quick": quick}))
    return folder


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def passages(subset: Subset, settings: Any, perception: Any) -> list[Segment]:
    """The corpus as text-only items, embedded once and cached by content."""
    ids = list(subset.corpus)
    texts = [" ".join(p for p in subset.corpus[i] if p) for i in ids]
    key = hashlib.sha256(
        json.dumps([harness.fingerprint(settings, perception), texts]).encode()
    ).hexdigest()[:20]
    path = settings.cache_dir / "bench-memories" / f"squtr-{key}.npy"
    if path.exists():
        vectors = np.load(path)
    else:
        vectors = (
            np.concatenate(
                [perception.text.passages(texts[i : i + 256]) for i in range(0, len(texts), 256)]
            )
            if texts
            else np.zeros((0, 1), np.float32)
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, vectors)
    return [
        Segment(
            doc_id,
            "corpus",
            "corpus",
            doc_id,
            0.0,
            0.0,
            transcript=text,
            vectors={"text": vectors[n]},
        )
        for n, (doc_id, text) in enumerate(zip(ids, texts, strict=True))
    ]


def run_squtr(
    *,
    out: Path,
    seed: int,
    quick: bool,
    console: Console,
    data_dir: Path | None,
    options: Options,
) -> Report:
    from voxmem.memory.perception import Perception
    from voxmem.memory.store import AudioMemory

    start = time.perf_counter()
    conditions = tuple(options.splits or CONDITIONS)
    unknown = [c for c in conditions if c not in CONDITIONS]
    if unknown:
        raise BenchmarkDataError(
            f"unknown condition {', '.join(unknown)}; conditions: {', '.join(CONDITIONS)}"
        )
    retrievers = common.check_retrievers(options.retrievers, RETRIEVERS)
    settings, root, edition = common.data_folder(
        "squtr",
        "SQuTR",
        write_mini,
        MINI_VERSION,
        data_dir=data_dir,
        seed=seed,
        quick=quick,
        console=console,
        wordings=options.wordings,
        data_has_instructions=False,
    )
    # real or mini, the data has no instruction: every run phrases it from the wordings
    used = common.wordings_used(options.wordings, data_dir, data_has_instructions=False)
    instructions = pools.wordings("squtr-mini", cast(pools.Role, used))
    folders = subsets_in(root)
    if not folders:
        raise BenchmarkDataError(f"no SQuTR subset (a folder with corpus.jsonl) in {root}")
    perception = Perception.from_settings(settings)
    timer = common.Timer()
    tally = harness.Tally()
    without_relevant: dict[str, int] = {}
    report = Report(
        "squtr",
        edition,
        ["subset", "condition", "retriever", "queries", "nDCG@10", "MRR@10", "Recall@10", "MAP"],
        meta={"versions": versions("faster-whisper", "bm25s"), "seed": seed, "wordings": used},
    )
    report.notes.append(common.wordings_note("squtr-mini", used))

    def score(
        retriever: str, ask: harness.Ask, scores: dict[str, float]
    ) -> list[tuple[str, str, harness.Row]]:
        group, qrels = ask.judgement
        return [("per_condition", group, trec_scores(scores, qrels))]

    # the corpus is text: the memory only lends its encoders to the spoken queries
    scratch = Path(tempfile.mkdtemp(prefix="voxmem-squtr-"))
    memory = AudioMemory.open(scratch, settings=settings, perception=perception)
    groups: list[tuple[str, str, str]] = []  # (group, subset label, condition)
    try:
        for folder in folders:
            subset = load_subset(folder, conditions, options.limit)
            t0 = time.perf_counter()
            pool = passages(subset, settings, perception)
            timer.add("corpus encoding", t0)
            store = harness.text_pool("squtr", list(subset.corpus), memory)
            label = str(folder.relative_to(root)) if folder != root else folder.name
            asks = []
            for cond in conditions:
                key = cond if len(folders) == 1 else f"{label}:{cond}"
                groups.append((key, label, cond))
                asks += [
                    harness.Ask(
                        qid,
                        audio,
                        instruction_for(qid, instructions),
                        judgement=(key, subset.qrels[qid]),
                    )
                    for qid, (_text, audio) in subset.queries[cond].items()
                ]
                # scored 0 and counted, as trec_eval does for a query in the qrels
                without_relevant[key] = sum(
                    1
                    for qid in subset.queries[cond]
                    if not any(g >= 1 for g in subset.qrels[qid].values())
                )
            task = harness.Task(
                asks,
                retrievers,
                score,
                seed=seed,
                instruction_in_text=False,
                label=f"scoring {label}",
            )
            harness.run(task, store, tally, timer, console, pool=pool)
    finally:
        memory.close()
        shutil.rmtree(scratch, ignore_errors=True)
    means = tally.means("per_condition")
    results = {
        r: {g: means[r][g] for g, _, _ in groups if g in means.get(r, {})} for r in retrievers
    }
    for key, label, cond in groups:
        for r in (r for r in retrievers if key in results[r]):
            report.rows.append(
                {
                    "subset": label,
                    "condition": cond,
                    "retriever": r,
                    "queries": tally.queries("per_condition", r, key),
                    **results[r][key],
                }
            )
    drops = {
        r: results[r]["clean"]["nDCG@10"] - results[r]["noise_snr_0"]["nDCG@10"]
        for r in retrievers
        if "clean" in results[r] and "noise_snr_0" in results[r]
    }
    report.results = {
        "metrics": "trec_eval nDCG@10 (graded), MRR@10, Recall@10, MAP; scores compared as "
        "float32, ties by document id descending",
        "per_condition": results,
        "per_query": tally.per_query("per_condition"),
        "queries without relevant documents": without_relevant,
        "nDCG@10 drop clean to 0 dB": drops,
    }
    if any(without_relevant.values()):
        report.notes.append(
            "Queries without relevant documents (scored 0, counted in the means, as trec_eval "
            "does): " + ", ".join(f"{k} {n}" for k, n in without_relevant.items() if n)
        )
    report.published = {
        "source": "SQuTR paper, English subsets, nDCG@10 (real data)",
        "figures": PUBLISHED,
    }
    if drops:
        report.notes.append(
            "nDCG@10 drop from clean to 0 dB: "
            + ", ".join(f"{r} {d:+.3f}" for r, d in drops.items())
        )
    report.notes.append(
        "Published (real English subsets, a different dataset"
        + (" from this mini edition" if data_dir is None else "")
        + "): "
        + "; ".join(
            f"{m}: " + ", ".join(f"{k} {v}" for k, v in f.items()) for m, f in PUBLISHED.items()
        )
    )
    out.mkdir(parents=True, exist_ok=True)
    order = [c for c in CONDITIONS if c in conditions]
    xs = {"clean": "clean", "noise_snr_20": "20 dB", "noise_snr_10": "10 dB", "noise_snr_0": "0 dB"}
    if len(folders) == 1:
        report.plots = [
            common.line_plot(
                {r: {xs[c]: results[r][c]["nDCG@10"] for c in order} for r in retrievers},
                out / "ndcg_vs_snr.png",
                f"{edition}: nDCG@10 against SNR",
                "condition",
                "nDCG@10",
                {
                    f"published: {m} (real data)": {xs[c]: v for c, v in f.items() if c in xs}
                    for m, f in PUBLISHED.items()
                    if "clean" in f
                },
            ).name
        ]
    report.timings = common.timings(timer, start)
    return report
