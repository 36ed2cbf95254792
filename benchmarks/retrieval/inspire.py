"""INSPIRE: instruction-aware speech retrieval (dataset ``lca0503/INSPIRE``).

The real dataset is a snapshot of its Hugging Face repository: ``README.md`` (whose
YAML front matter maps each config and split to files) and
``<config>/<split>-NNNNN-of-NNNNN.parquet`` for the configs ``query`` and
``document``, audio as ``{bytes, path}`` structs. INSPIRE-mini is written in exactly
that layout by :func:`write_mini` and read back by the same :func:`load_split`.

Scoring follows INSPIRE: queries are compared with the documents of their own split,
``excluded_ids`` are removed, exact ties are broken by one ``random.Random(42)`` stream
per retriever that runs on across the queries and splits in order (``calculate_score.py``),
except bm25's, which keep document order (INSPIRE's BM25 script); Recall@k has an
uncapped denominator, NDCG@k binary gains; a query without positives scores 0 and counts.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from voxmem.audio import flac_bytes
from voxmem.benchmarks.pools import Wordings, placeholders
from voxmem.benchmarks.registry import Options
from voxmem.benchmarks.report import Report, versions
from voxmem.benchmarks.retrieval import common, harness
from voxmem.benchmarks.retrieval.facts import FACTS
from voxmem.benchmarks.synth import ClipCache, Utterance, distinct_voices, render
from voxmem.benchmarks.synth.texts import SENTENCES
from voxmem.errors import BenchmarkDataError
from voxmem.retrievers.metrics import (
    INSPIRE_KS,
    InspireTies,
    inspire_scores,
    inspire_stream,
)

CONFIGS = ("query", "document")
REAL_SPLITS = ("DailyTalk", "Expresso", "VCTK", "Synthetic")
MINI_SPLITS = ("Dialogue", "SameSpeaker", "SpeakerStyle", "Composite")
DOCUMENT_COLUMNS = (
    "audio",
    "audio_id",
    "text",
    "title",
    "speaking_style",
    "speaker",
    "environmental_sound",
    "type",
    "source",
)
QUERY_COLUMNS = (
    *DOCUMENT_COLUMNS,
    "relevance",
    "instruction",
    "positive_documents",
    "excluded_ids",
)
#: Table 4 of the paper, Recall@10 on the real splits
PUBLISHED: dict[str, dict[str, Any]] = {
    "DailyTalk": {
        "best": 62.00,
        "best method": "Whisper + caption + Qwen3-Embedding-8B",
        "random": 0.24,
    },
    "VCTK": {"best": 17.50, "best method": "WavLM-Large (no instruction)", "random": 0.35},
    "Expresso": {"best": 9.81, "best method": "HuBERT-Large", "random": 0.30},
    "Synthetic": {"best": 7.02, "best method": "Qwen3-Embedding-8B cascade", "random": 0.20},
}
#: the real split each mini split is modelled on
COUNTERPART = dict(zip(MINI_SPLITS, ("DailyTalk", "VCTK", "Expresso", "Synthetic"), strict=True))


@dataclass
class Item:
    """A document, or a query (which also has an instruction and relevance judgements)."""

    id: str
    #: the clip's encoded bytes, or a reader of them (a real split is not held in memory)
    blob: harness.Blob
    text: str
    speaker: str
    speaking_style: str
    environmental_sound: str
    relevance: str = ""
    instruction: str = ""
    positives: list[str] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)

    @property
    def audio(self) -> bytes:
        return harness.read(self.blob)


@dataclass
class Split:
    name: str
    documents: list[Item]
    queries: list[Item]


# -- the published format ----------------------------------------------------------------


def _front_matter(folder: Path) -> dict[str, Any]:
    readme = folder / "README.md"
    if not readme.exists():
        return {}
    import yaml

    text = readme.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return {}
    try:
        meta = yaml.safe_load(text.split("---", 2)[1]) or {}
    except yaml.YAMLError as exc:
        raise BenchmarkDataError(f"{readme}: its YAML front matter does not parse: {exc}") from None
    return meta if isinstance(meta, dict) else {}


def files_for(folder: Path, config: str, split: str) -> list[Path]:
    """Parquet files of one config and split: from the README's ``configs:`` mapping when
    it has one, else ``<config>/<split>-*.parquet``."""
    for entry in _front_matter(folder).get("configs") or []:
        if entry.get("config_name") != config:
            continue
        for data in entry.get("data_files") or []:
            if data.get("split") == split:
                paths = data["path"] if isinstance(data["path"], list) else [data["path"]]
                found = sorted(p for pattern in paths for p in folder.glob(pattern))
                if found:
                    return found
    return sorted((folder / config).glob(f"{split}-*.parquet"))


def splits_in(folder: Path) -> list[str]:
    """Splits that have both a query and a document file."""
    names: list[str] = []
    for entry in _front_matter(folder).get("configs") or []:
        if entry.get("config_name") == "query":
            names += [d["split"] for d in entry.get("data_files") or [] if "split" in d]
    if not names:
        names = sorted({p.name.split("-")[0] for p in (folder / "query").glob("*.parquet")})
    return [s for s in names if files_for(folder, "document", s)]


class _AudioColumn:
    """The ``audio`` column of one parquet file, read one row group at a time when a row's
    bytes are asked for: in row order, each group is read once and only one is held."""

    def __init__(self, path: Path, folder: Path) -> None:
        import pyarrow.parquet as pq

        self.path, self.folder = path, folder
        self._file = pq.ParquetFile(path)
        meta = self._file.metadata
        self.starts = [0]
        for g in range(meta.num_row_groups):
            self.starts.append(self.starts[-1] + meta.row_group(g).num_rows)
        self._group = -1
        self._values: list[Any] = []

    def value(self, row: int) -> Any:
        g = bisect.bisect_right(self.starts, row) - 1
        if g != self._group:
            self._values = self._file.read_row_group(g, columns=["audio"]).column(0).to_pylist()
            self._group = g
        return self._values[row - self.starts[g]]

    def blob(self, row: int, where: str) -> Callable[[], bytes]:
        return functools.partial(self._bytes, row, where)

    def _bytes(self, row: int, where: str) -> bytes:
        return _audio_bytes(self.value(row), where, self.folder)


def _read(
    folder: Path, config: str, split: str, columns: Sequence[str]
) -> list[tuple[dict[str, Any], _AudioColumn, int]]:
    """Every row of a config's split without its audio, with where the audio is."""
    import pyarrow.parquet as pq

    paths = files_for(folder, config, split)
    if not paths:
        raise BenchmarkDataError(
            f"{folder}: no {config} files for split {split!r} (looked for the README's "
            f"configs and {config}/{split}-*.parquet); splits found: "
            f"{', '.join(splits_in(folder)) or 'none'}"
        )
    rows: list[tuple[dict[str, Any], _AudioColumn, int]] = []
    for path in paths:
        try:
            names = pq.read_schema(path).names
            missing = [c for c in columns if c not in names]
            if missing:
                raise BenchmarkDataError(
                    f"{path}: missing column(s) {', '.join(missing)}; INSPIRE's {config} "
                    "config has " + ", ".join(columns)
                )
            table = pq.read_table(path, columns=[c for c in columns if c != "audio"])
            audio = _AudioColumn(path, folder)
        except BenchmarkDataError:
            raise
        except Exception as exc:
            raise BenchmarkDataError(f"{path}: not a readable parquet file ({exc})") from None
        rows += [(r, audio, i) for i, r in enumerate(table.to_pylist())]
    return rows


def _audio_bytes(value: Any, where: str, folder: Path) -> bytes:
    if isinstance(value, dict):
        if value.get("bytes"):
            return bytes(value["bytes"])
        if value.get("path") and (folder / value["path"]).exists():
            return (folder / value["path"]).read_bytes()
    if isinstance(value, bytes) and value:
        return value
    raise BenchmarkDataError(f"{where}: the audio has neither bytes nor a readable path")


def _audio_ok(value: Any, folder: Path) -> bool:
    if isinstance(value, dict):
        return bool(value.get("bytes")) or bool(
            value.get("path") and (folder / value["path"]).exists()
        )
    return isinstance(value, bytes) and bool(value)


def _ids(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def load_split(folder: Path, split: str, limit: int | None = None) -> Split:
    """Read and check one split; every problem is reported at once. The audio stays in
    its files until it is ingested or encoded."""
    docs_rows = _read(folder, "document", split, DOCUMENT_COLUMNS)
    query_rows = _read(folder, "query", split, QUERY_COLUMNS)
    harness.unique(
        (str(r["audio_id"]) for r, _, _ in docs_rows),
        f"{folder} split {split}: document audio_id",
        "positive_documents and excluded_ids name documents by audio_id, so each must be "
        "unique within its split",
    )
    problems: list[str] = []
    documents = []
    for r, audio, row in docs_rows:
        where = f"document {r['audio_id']}"
        if not _audio_ok(audio.value(row), folder):
            problems.append(f"{where}: the audio has neither bytes nor a readable path")
            continue
        documents.append(
            Item(
                str(r["audio_id"]),
                audio.blob(row, where),
                r["text"] or "",
                str(r["speaker"]),
                str(r["speaking_style"]),
                str(r["environmental_sound"]),
            )
        )
    known = {d.id for d in documents}
    queries = []
    for i, (r, audio, row) in enumerate(query_rows):
        qid = f"{i:05d}"
        positives = _ids(r["positive_documents"])
        excluded = _ids(r["excluded_ids"])
        unresolved = [p for p in positives + excluded if p != "N/A" and p not in known]
        if unresolved:
            problems.append(f"query {qid}: document id(s) {', '.join(unresolved[:5])} not found")
        if not positives:
            problems.append(f"query {qid}: no positive_documents")
        if not _audio_ok(audio.value(row), folder):
            problems.append(f"query {qid}: the audio has neither bytes nor a readable path")
            continue
        queries.append(
            Item(
                qid,
                audio.blob(row, f"query {qid}"),
                r["text"] or "",
                str(r["speaker"]),
                str(r["speaking_style"]),
                str(r["environmental_sound"]),
                str(r["relevance"]),
                str(r["instruction"]),
                positives,
                excluded,
            )
        )
    if problems:
        head = "\n  ".join(problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise BenchmarkDataError(
            f"{folder} split {split}: {len(problems)} problem(s):\n  {head}{more}"
        )
    return Split(split, documents, common.take(queries, limit))


def write_split(
    folder: Path, split: str, documents: Sequence[Item], queries: Sequence[Item]
) -> None:
    """Write one split in the published layout (also updates README's configs)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def row(item: Item, query: bool) -> dict[str, Any]:
        r: dict[str, Any] = {
            "audio": {"bytes": item.audio, "path": f"{item.id}.flac"},
            "audio_id": item.id,
            "text": item.text,
            "title": "",
            "speaking_style": item.speaking_style,
            "speaker": item.speaker,
            "environmental_sound": item.environmental_sound,
            "type": split,
            "source": "voxmem-mini",
        }
        if query:
            r |= {
                "relevance": item.relevance,
                "instruction": item.instruction,
                "positive_documents": item.positives,
                "excluded_ids": item.excluded or ["N/A"],
            }
        return r

    for config, items in (("document", documents), ("query", queries)):
        (folder / config).mkdir(parents=True, exist_ok=True)
        table = pa.Table.from_pylist([row(i, config == "query") for i in items])
        pq.write_table(table, folder / config / f"{split}-00000-of-00001.parquet")
    configs = [
        {
            "config_name": c,
            "data_files": [
                {"split": s, "path": f"{c}/{s}-*"}
                for s in sorted({p.name.split("-")[0] for p in (folder / c).glob("*.parquet")})
            ],
        }
        for c in CONFIGS
    ]
    import yaml

    (folder / "README.md").write_text(
        "---\n" + yaml.safe_dump({"configs": configs}, sort_keys=False) + "---\n\n"
        "# INSPIRE-mini\n\nGenerated by voxmem in INSPIRE's published layout; synthetic "
        "voices, styles and backgrounds, not the real dataset.\n"
    )


# -- INSPIRE-mini --------------------------------------------------------------------------

STYLE_WORDS = {
    "neutral": ["neutral", "calm"],
    "sad": ["sad", "unhappy", "sorrowful"],
    "excited": ["happy", "cheerful", "excited"],
    "angry": ["angry", "furious", "annoyed"],
    "whisper": ["whispering", "whispered", "hushed"],
}
#: background -> phrases that ask for it
ENV_WORDS = {
    "rain": ["rain", "rainfall", "heavy rain"],
    "wind": ["wind", "gusting wind"],
    "engine": ["an engine running", "a car engine"],
    "typing": ["keyboard typing", "someone typing"],
    "bell": ["a bell ringing", "chiming bells"],
    "phone": ["a phone ringing", "a ringing telephone"],
    "babble": ["a crowd talking", "people chattering"],
    "clock": ["a ticking clock", "a clock ticking"],
}
WORDINGS = {
    "continuation": [
        "Find the utterance that continues this conversation.",
        "What comes next in this dialogue?",
        "Retrieve the response that follows this turn.",
        "Which recording is the reply to this?",
        "Find the next turn after this one.",
        "Retrieve the most likely continuation of this dialogue.",
        "Which utterance responds to this?",
        "Get the turn that follows on from this one.",
    ],
    "speaker": [
        "Find other recordings of this speaker.",
        "Retrieve speech by the same speaker.",
        "Which clips are spoken by this person?",
        "Find utterances with the same voice.",
        "Get recordings from this talker.",
        "Retrieve audio where the same person is speaking.",
        "Which recordings feature this speaker's voice?",
        "Find more speech from the person in the clip.",
    ],
    "style": [
        "Find speech in the same speaking style.",
        "Retrieve clips with the same emotion as this one.",
        "Which recordings have a similar tone?",
        "Find utterances delivered in the same manner.",
        "Get speech with the same mood.",
    ],
    "style_target": [
        "Find speech that sounds {v}.",
        "Retrieve a {v} utterance.",
        "Which clips are {v}?",
        "Get recordings where the speaker sounds {v}.",
        "Find someone speaking in a {v} voice.",
    ],
    "speaker+style": [
        "Find recordings of this speaker in the same style.",
        "Retrieve clips where the same person speaks with the same emotion.",
        "Which recordings have this voice and a similar tone?",
        "Find this speaker talking in the same manner.",
    ],
    "speaker+style_target": [
        "Find recordings of this speaker sounding {v}.",
        "Retrieve {v} speech by the same speaker.",
        "Which clips have this voice sounding {v}?",
        "Find this person speaking in a {v} voice.",
    ],
}
COMPOSITE_PARTS = {
    "semantic": [
        "the answer to this question",
        "the reply that answers this spoken question",
        "a response to this question",
    ],
    "speaker": ["spoken by the same speaker", "in the same voice", "by this speaker"],
    "style": ["with the same emotion", "in the same speaking style", "with a similar tone"],
    "style_target": ["that sounds {v}", "spoken in a {v} tone", "where the speaker sounds {v}"],
    "environment": [
        "recorded in the same environment",
        "with the same background noise",
        "in the same acoustic surroundings",
    ],
    "environment_target": [
        "with {e} in the background",
        "recorded with the sound of {e}",
        "where you can hear {e} behind the voice",
    ],
}
COMPOSITE_FRAMES_SEMANTIC = ["Find {p}.", "Retrieve {p}.", "I need {p}.", "Get me {p}."]
COMPOSITE_FRAMES_OTHER = ["Find speech {p}.", "Retrieve recordings {p}.", "Get clips {p}."]
COMPOSITE_TYPES = (
    ("semantic",),
    ("semantic", "speaker"),
    ("semantic", "style_target"),
    ("semantic", "environment"),
    ("semantic", "environment_target"),
    ("speaker", "style"),
    ("speaker", "environment_target"),
    ("semantic", "speaker", "style_target"),
    ("style_target", "environment_target"),
    ("semantic", "speaker", "environment"),
)
MINI_STYLES = ("neutral", "sad", "excited", "angry")
EXPRESSO_STYLES = ("neutral", "whisper", "sad", "excited")
MINI_BACKGROUNDS = tuple(ENV_WORDS)
SNR_DB = 10.0
#: bump when the generator changes, so stale editions are not reused (3: a smaller quick
#: slice, 72 documents rather than 104; the full edition is what 2 generated)
MINI_VERSION = 3


Built = tuple[list[Item], list[Item]]


@dataclass
class _Doc:
    id: str
    utterance: Utterance
    fact: int = -1  # index into FACTS when the document answers one


def _clip(u: Utterance, cache: ClipCache) -> bytes:
    return flac_bytes(render(u, cache))


def _item(d: _Doc, cache: ClipCache) -> Item:
    u = d.utterance
    return Item(d.id, _clip(u, cache), u.text, u.voice, u.style, u.background or "none")


def an(text: str) -> str:
    """Each "a" before a vowel made "an" ("a upbeat voice", "A angry reply")."""
    return re.sub(r"\b([Aa]) ([aeiouAEIOU])", r"\1n \2", text)


@dataclass
class Phrasing:
    """Instruction texts drawn from one wording role's tables (``pools.wordings``), on a
    stream of their own: ``{v}`` is filled from ``values:style[style]``, ``{e}`` from
    ``values:environment[background]`` of the same role."""

    wordings: Wordings
    rng: np.random.Generator

    def __call__(self, kind: str, style: str | None = None, background: str | None = None) -> str:
        template = str(self.rng.choice(self.wordings[kind]))
        slots = placeholders(template)
        v = self._value("values:style", style) if "v" in slots else ""
        e = self._value("values:environment", background) if "e" in slots else ""
        return an(template.format(v=v, e=e))

    def _value(self, table: str, label: str | None) -> str:
        values = self.wordings[table]
        assert isinstance(values, dict) and label is not None, (table, label)
        return str(self.rng.choice(values[label]))


def _dialogue(rng: np.random.Generator, quick: bool, cache: ClipCache, phrase: Phrasing) -> Built:
    voices = [v.id for v in distinct_voices()]
    n = 6 if quick else len(FACTS)
    docs: list[Item] = []
    queries: list[Item] = []
    for i, f in enumerate(FACTS[:n]):
        a, b = rng.choice(voices, 2, replace=False)
        q = _Doc(f"{2 * i:05d}", Utterance(f.question, str(a), seed=i))
        r = _Doc(f"{2 * i + 1:05d}", Utterance(f.answer, str(b), seed=i))
        docs += [_item(q, cache), _item(r, cache)]
        query = replace(docs[-2])
        query.relevance = "continuation"
        query.instruction = phrase("continuation")
        query.positives = [r.id]
        query.excluded = [q.id]
        queries.append(query)
    return docs, queries


def _same_speaker(
    rng: np.random.Generator, quick: bool, cache: ClipCache, phrase: Phrasing
) -> Built:
    voices = [v.id for v in distinct_voices()][: 6 if quick else 10]
    sentences = SENTENCES[: 2 if quick else 6]
    docs = [
        _Doc(f"{i:05d}", Utterance(s, v))
        for i, (v, s) in enumerate((v, s) for v in voices for s in sentences)
    ]
    items = [_item(d, cache) for d in docs]
    queries = []
    per_voice = 1 if quick else 2
    for v in voices:
        own = [d for d in docs if d.utterance.voice == v]
        for d in rng.choice(np.array(own, dtype=object), per_voice, replace=False):
            q = replace(items[docs.index(d)])
            q.relevance = "speaker"
            q.instruction = phrase("speaker")
            q.positives = [o.id for o in own if o.id != d.id]
            q.excluded = [d.id]
            queries.append(q)
    return items, queries


def _speaker_style(
    rng: np.random.Generator, quick: bool, cache: ClipCache, phrase: Phrasing
) -> Built:
    voices = [v.id for v in distinct_voices()][: 3 if quick else 8]
    sentences = SENTENCES[6:8]
    docs = [
        _Doc(f"{i:05d}", Utterance(s, v, style=st))
        for i, (v, st, s) in enumerate(
            (v, st, s) for v in voices for st in EXPRESSO_STYLES for s in sentences
        )
    ]
    items = [_item(d, cache) for d in docs]
    kinds = ["speaker", "style", "style_target", "speaker+style", "speaker+style_target"]
    queries = []
    for n in range(10 if quick else 40):
        kind = kinds[n % len(kinds)]
        k = int(rng.integers(len(docs)))
        anchor = docs[k]
        a = anchor.utterance
        target = str(rng.choice([s for s in EXPRESSO_STYLES if s != a.style]))
        want_style = a.style if kind in ("style", "speaker+style") else None
        if kind.endswith("style_target"):
            want_style = target
        positives = [
            d.id
            for d in docs
            if d.id != anchor.id
            and ("speaker" not in kind or d.utterance.voice == a.voice)
            and (want_style is None or d.utterance.style == want_style)
        ]
        if not positives:
            continue
        q = replace(items[k])
        q.relevance = kind
        q.instruction = phrase(kind, style=target)
        q.positives, q.excluded = positives, [anchor.id]
        queries.append(q)
    return items, queries


def _composite(rng: np.random.Generator, quick: bool, cache: ClipCache, phrase: Phrasing) -> Built:
    voices = [v.id for v in distinct_voices()]
    facts = list(range(8 if quick else 24))
    docs: list[_Doc] = []
    for f in facts:
        for k in range(3 if quick else 4):
            docs.append(
                _Doc(
                    f"{len(docs):05d}",
                    Utterance(
                        FACTS[f].answer,
                        str(rng.choice(voices)),
                        style=str(rng.choice(MINI_STYLES)),
                        background=str(rng.choice(MINI_BACKGROUNDS)),
                        snr_db=SNR_DB,
                        seed=k,
                    ),
                    f,
                )
            )
    items = [_item(d, cache) for d in docs]
    queries: list[Item] = []
    for n in range(12 if quick else 50):
        kind = COMPOSITE_TYPES[n % len(COMPOSITE_TYPES)]
        anchor = docs[int(rng.integers(len(docs)))]
        a = anchor.utterance
        same = set(kind)
        style_t = str(rng.choice([s for s in MINI_STYLES if s != "neutral"]))
        env_t = str(rng.choice(MINI_BACKGROUNDS))
        # the query clip: the anchor's attributes where the instruction says "same",
        # others drawn to differ from the anchor
        voice = (
            a.voice if "speaker" in same else str(rng.choice([v for v in voices if v != a.voice]))
        )
        style = (
            a.style
            if "style" in same
            else str(rng.choice([s for s in MINI_STYLES if s != a.style]))
        )
        bg = (
            a.background
            if "environment" in same
            else str(rng.choice([b for b in MINI_BACKGROUNDS if b != a.background]))
        )
        text = FACTS[anchor.fact].question if "semantic" in same else str(rng.choice(SENTENCES[8:]))
        clip = Utterance(text, voice, style=style, background=bg, snr_db=SNR_DB, seed=100 + n)

        want = {
            "semantic": anchor.fact,
            "speaker": voice,
            "style": style,
            "style_target": style_t,
            "environment": bg,
            "environment_target": env_t,
        }
        positives = [d.id for d in docs if all(_has(d, k, want[k]) for k in kind)]
        if not positives:
            continue
        q = Item(
            f"{len(queries):05d}",
            _clip(clip, cache),
            text,
            voice,
            style,
            bg or "none",
            "+".join(kind),
            phrase("composite:" + "+".join(kind), style=style_t, background=env_t),
            positives,
            [],
        )
        queries.append(q)
    return items, queries


def _other(rng: np.random.Generator, values: Sequence[str], not_this: str | None) -> str:
    return str(rng.choice([v for v in values if v != not_this]))


def _has(d: _Doc, kind: str, value: object) -> bool:
    """Whether document ``d`` meets one constraint of a composite query."""
    u = d.utterance
    attr = kind.removesuffix("_target")
    current = {
        "semantic": d.fact,
        "speaker": u.voice,
        "style": u.style,
        "environment": u.background,
    }
    return bool(current[attr] == value)


BUILDERS = {
    "Dialogue": _dialogue,
    "SameSpeaker": _same_speaker,
    "SpeakerStyle": _speaker_style,
    "Composite": _composite,
}


def write_mini(
    folder: Path, seed: int, quick: bool, cache: ClipCache, console: Console, wordings: Wordings
) -> Path:
    """Generate INSPIRE-mini (deterministic for a seed) in the published layout, its
    instructions phrased from ``wordings`` (``pools.wordings("inspire-mini", role)``) on
    a stream of their own: the queries are the same for every role."""
    done = folder / ".complete"
    if done.exists():
        return folder
    with common.progress(console) as bar:
        task = bar.add_task("generating INSPIRE-mini", total=len(BUILDERS))
        for i, (split, build) in enumerate(BUILDERS.items()):
            phrase = Phrasing(wordings, common.wording_rng(seed, i))
            docs, queries = build(np.random.default_rng([seed, i]), quick, cache, phrase)
            write_split(folder, split, docs, queries)
            bar.advance(task)
    done.write_text(json.dumps({"seed": seed, "quick": quick}))
    return folder


def _published_line(split: str) -> str:
    real = COUNTERPART[split]
    p = PUBLISHED[real]
    return (
        f"{real} (modelled by {split}): best {p['best']} by {p['best method']}, "
        f"random {p['random']}"
    )


# -- the run -------------------------------------------------------------------------------


def run_inspire(
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
    settings, folder, edition = common.data_folder(
        "inspire",
        "INSPIRE",
        write_mini,
        MINI_VERSION,
        data_dir=data_dir,
        seed=seed,
        quick=quick,
        console=console,
        wordings=options.wordings,
    )
    used = common.wordings_used(options.wordings, data_dir)
    available = splits_in(folder)
    splits = options.splits or available
    unknown = [s for s in splits if s not in available]
    if unknown:
        raise BenchmarkDataError(
            f"no split {', '.join(unknown)} in {folder}; splits: {', '.join(available)}"
        )
    retrievers = common.check_retrievers(options.retrievers, common.DEFAULT_RETRIEVERS)
    perception = Perception.from_settings(settings)
    timer = common.Timer()
    tally = harness.Tally()
    # INSPIRE's tie rules: one stream per retriever for the whole run; bm25 in document order
    ties: dict[str, InspireTies] = {
        r: "document" if r == "bm25" else inspire_stream() for r in retrievers
    }

    def score(
        retriever: str, ask: harness.Ask, scores: dict[str, float]
    ) -> list[tuple[str, str, harness.Row]]:
        q: Item = ask.judgement
        row = inspire_scores(scores, q.positives, q.excluded, ties=ties[retriever])
        split = ask.key.split("/", 1)[0]
        return [
            ("per_split", split, row),
            ("per_split", "Total", row),
            ("per_relevance", q.relevance, row),
        ]

    without_positives: dict[str, int] = {}
    stores: list[harness.Ingested] = []
    report = Report(
        "inspire",
        edition,
        ["split", "retriever", "queries", "R@1", "R@5", "R@10", "N@10", "R@50"],
        meta={"versions": versions("chromadb", "faster-whisper"), "seed": seed, "wordings": used},
    )
    report.notes.append(common.wordings_note("inspire-mini", used))
    for split_name in splits:
        split = load_split(folder, split_name, options.limit)
        store = harness.ingest(
            f"inspire-{split_name}",
            [harness.Document(d.id, d.blob) for d in split.documents],
            settings,
            perception,
            console,
        )
        stores.append(store)
        timer.seconds[f"ingest {split_name}"] = store.seconds
        without_positives[split_name] = sum(1 for q in split.queries if not q.positives)
        asks = [
            harness.Ask(f"{split_name}/{q.id}", q.blob, q.instruction, judgement=q)
            for q in split.queries
        ]
        task = harness.Task(asks, retrievers, score, seed=seed, label=f"scoring {split_name}")
        try:
            harness.run(task, store, tally, timer, console)
        finally:
            store.memory.close()
    # the per-split order of the run, the pooled figure last
    means = tally.means("per_split")
    results = {r: {s: v for s, v in means.get(r, {}).items() if s != "Total"} for r in retrievers}
    for r in retrievers:
        if "Total" in means.get(r, {}):
            results[r]["Total"] = means[r]["Total"]
    for split_name in splits:
        for r in (r for r in retrievers if split_name in results[r]):
            report.rows.append(
                {
                    "split": split_name,
                    "retriever": r,
                    "queries": tally.queries("per_split", r, split_name),
                    **{
                        k: 100 * results[r][split_name][k]
                        for k in ("R@1", "R@5", "R@10", "N@10", "R@50")
                    },
                }
            )
    report.results = {
        "metrics": f"INSPIRE Recall@k / NDCG@k, k in {list(INSPIRE_KS)}, in [0, 1]",
        "per_split": results,
        "per_relevance": tally.means("per_relevance"),
        "per_query": tally.per_query("per_split"),
        "ties": "one random.Random(42) stream per retriever across the run; bm25: document order",
        "queries without positives": without_positives,
    }
    if any(without_positives.values()):
        report.notes.append(
            "Queries without positives (scored 0, counted in the means, as INSPIRE does): "
            + ", ".join(f"{s} {n}" for s, n in without_positives.items() if n)
        )
    report.published = {
        "source": "INSPIRE paper, Table 4, Recall@10 (percent) on the real dataset",
        "splits": PUBLISHED,
    }
    if data_dir is None:
        report.notes.append(
            "Published figures are on the real INSPIRE splits, a different dataset: "
            + "; ".join(_published_line(s) for s in splits if s in COUNTERPART)
        )
    out.mkdir(parents=True, exist_ok=True)
    published_r10 = {
        s: float(PUBLISHED[COUNTERPART.get(s, s)]["best"]) / 100
        for s in splits
        if COUNTERPART.get(s, s) in PUBLISHED
    }
    report.plots = [
        common.bar_plot(
            {r: {s: v for s, v in common.pivot(results, "R@10")[r].items()} for r in retrievers},
            out / "recall_at_10.png",
            f"{edition}: Recall@10 per split",
            "Recall@10",
            published_r10,
        ).name,
        common.bar_plot(
            common.pivot(report.results["per_relevance"], "R@10"),
            out / "recall_at_10_by_relevance.png",
            f"{edition}: Recall@10 per relevance type",
            "Recall@10",
        ).name,
    ]
    harness.report_ingests(report, stores)
    report.timings = common.timings(timer, start)
    return report
