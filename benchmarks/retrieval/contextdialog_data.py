"""ContextDialog's data, in voxmem's ContextDialog format (version 1).

The published dataset's schema could not be read when this was written, so the format
is ours, modelled on MultiDialog (which ContextDialog is built from) and versioned.
Two layouts carry the same fields:

- a folder of JSON lines plus audio::

      DIR/contextdialog.json               {"format": "voxmem-contextdialog", "version": 1}
      DIR/<split>/dialogues.jsonl          one utterance per line, in dialogue order
      DIR/<split>/questions.jsonl          one question per line
      DIR/<split>/audio/...                audio paths are relative to DIR/<split>/ (or DIR/)

- a Hugging Face snapshot (``push_to_hub`` with configs ``dialogues`` and
  ``questions``): ``DIR/README.md`` whose front matter maps config and split to files,
  else ``DIR/<config>/<split>-*.parquet``; audio as ``{bytes, path}`` structs.

Utterance fields: ``conv_id``, ``utterance_id`` (unique within its dialogue),
``from`` (``human`` or ``gpt``), ``value`` (what was said), ``emotion`` (optional),
``audpath`` (the turn's audio: a path or a ``{bytes, path}`` struct; required for
``human`` turns, ignored for ``gpt`` turns, which the agent speaks in its own voice),
``speaker`` (optional: which person said a ``human`` turn, for dialogues with several
users; default ``user``).

Question fields: ``qa_id``, ``conv_id``, ``question`` (its text), ``question_audio``
(the spoken question: a path or a struct), ``answer`` (the reference answer),
``supporting_utterance_id`` (the one utterance of ``conv_id`` that holds the answer)
and ``supporting_from`` (``human`` or ``gpt``: which side said it). Splits:
``test_freq`` and ``test_rare``. A question is asked after its whole dialogue.

:func:`load_split` checks everything first and raises one ``BenchmarkDataError`` that
lists every problem found.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voxmem.benchmarks.retrieval.inspire import files_for
from voxmem.errors import BenchmarkDataError

FORMAT = "voxmem-contextdialog"
FORMAT_VERSION = 1
SPLITS = ("test_freq", "test_rare")
SIDES = {"human": "user", "gpt": "assistant"}
UTTERANCE_FIELDS = ("conv_id", "utterance_id", "from", "value", "audpath")
UTTERANCE_OPTIONAL = ("emotion", "speaker")
QUESTION_FIELDS = (
    "qa_id",
    "conv_id",
    "question",
    "question_audio",
    "answer",
    "supporting_utterance_id",
    "supporting_from",
)
CONFIGS = {"dialogues": UTTERANCE_FIELDS, "questions": QUESTION_FIELDS}
MAX_LISTED = 20


@dataclass
class Utterance:
    conv_id: str
    utterance_id: str
    sender: str  # "human" | "gpt" (the format's ``from``)
    value: str
    emotion: str | None = None
    speaker: str = "user"
    audio: bytes | None = None

    @property
    def side(self) -> str:
        return SIDES[self.sender]


@dataclass
class Dialogue:
    conv_id: str
    utterances: list[Utterance] = field(default_factory=list)


@dataclass
class Question:
    qa_id: str
    conv_id: str
    question: str
    audio: bytes
    answer: str
    supporting_utterance_id: str
    supporting_from: str

    @property
    def side(self) -> str:
        return SIDES[self.supporting_from]


@dataclass
class Split:
    name: str
    dialogues: dict[str, Dialogue]
    questions: list[Question]
    layout: str  # "jsonl" | "parquet"


# -- reading -------------------------------------------------------------------------------


def _jsonl(path: Path, problems: list[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{path.name} line {n}: not JSON ({exc.msg})")
            continue
        if not isinstance(row, dict):
            problems.append(f"{path.name} line {n}: not a JSON object")
            continue
        row["_where"] = f"{path.name} line {n}"
        rows.append(row)
    return rows


def _parquet(paths: Sequence[Path], config: str, problems: list[str]) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = []
    for path in paths:
        try:
            table = pq.read_table(path)
        except Exception as exc:  # pyarrow raises many types
            problems.append(f"{path}: not a readable parquet file ({exc})")
            continue
        expected = CONFIGS[config]
        missing = [c for c in expected if c not in table.column_names]
        if missing:
            problems.append(
                f"{path}: found columns {', '.join(table.column_names)}; expected "
                f"{', '.join(expected)} (voxmem ContextDialog format v{FORMAT_VERSION}, "
                f"config {config}); missing {', '.join(missing)}"
            )
            continue
        for i, r in enumerate(table.to_pylist()):
            r["_where"] = f"{path.name} row {i}"
            rows.append(r)
    return rows


def _check_version(folder: Path, problems: list[str]) -> None:
    marker = folder / "contextdialog.json"
    if not marker.exists():
        return
    try:
        meta = json.loads(marker.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        problems.append(f"{marker}: not JSON ({exc.msg})")
        return
    if meta.get("format") != FORMAT or meta.get("version") != FORMAT_VERSION:
        problems.append(
            f"{marker}: format {meta.get('format')!r} version {meta.get('version')!r}; this "
            f"voxmem reads {FORMAT!r} version {FORMAT_VERSION}"
        )


def _audio(value: Any, folders: Sequence[Path]) -> bytes | None:
    """A path (relative to one of ``folders``) or a ``{bytes, path}`` struct."""
    if isinstance(value, dict):
        if value.get("bytes"):
            return bytes(value["bytes"])
        value = value.get("path")
    if isinstance(value, bytes | bytearray) and value:
        return bytes(value)
    if isinstance(value, str) and value:
        for folder in folders:
            path = Path(value) if Path(value).is_absolute() else folder / value
            if path.is_file():
                return path.read_bytes()
    return None


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return repr(value.get("path")) if value.get("path") else "an empty audio struct"
    return repr(value)


def layout_of(folder: Path, split: str) -> str | None:
    """``jsonl``, ``parquet`` or None (neither found)."""
    if (folder / split / "dialogues.jsonl").exists() or (
        folder / split / "questions.jsonl"
    ).exists():
        return "jsonl"
    if files_for(folder, "dialogues", split) or files_for(folder, "questions", split):
        return "parquet"
    return None


def splits_in(folder: Path) -> list[str]:
    """The known splits that ``folder`` has in either layout."""
    return [s for s in SPLITS if layout_of(folder, s)]


def load_split(folder: Path, split: str, limit: int | None = None) -> Split:
    """Read and check one split; every problem is reported at once. ``limit`` keeps the
    first questions (and the dialogues they ask about)."""
    problems: list[str] = []
    _check_version(folder, problems)
    layout = layout_of(folder, split)
    raw: dict[str, list[dict[str, Any]]] = {}
    if layout == "jsonl":
        for config in CONFIGS:
            path = folder / split / f"{config}.jsonl"
            if not path.exists():
                problems.append(f"{path} not found")
                raw[config] = []
            else:
                raw[config] = _jsonl(path, problems)
    elif layout == "parquet":
        for config in CONFIGS:
            paths = files_for(folder, config, split)
            if not paths:
                problems.append(
                    f"no {config} files for split {split} (looked for the README's configs "
                    f"and {config}/{split}-*.parquet)"
                )
            raw[config] = _parquet(paths, config, problems)
    else:
        raise BenchmarkDataError(
            f"{folder}: no split {split!r}: looked for {split}/dialogues.jsonl and "
            f"{split}/questions.jsonl, and for dialogues/{split}-*.parquet and "
            f"questions/{split}-*.parquet (or the README's configs); splits found: "
            f"{', '.join(splits_in(folder)) or 'none'}"
        )
    folders = [folder / split, folder]
    dialogues = _dialogues(raw["dialogues"], folders, problems)
    questions = _questions(raw["questions"], dialogues, folders, problems)
    if problems:
        head = "\n  ".join(problems[:MAX_LISTED])
        more = (
            f"\n  ... and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
        )
        raise BenchmarkDataError(
            f"{folder} split {split}: {len(problems)} problem(s):\n  {head}{more}"
        )
    if limit is not None:
        questions = questions[:limit]
        asked = {q.conv_id for q in questions}
        dialogues = {c: d for c, d in dialogues.items() if c in asked}
    return Split(split, dialogues, questions, layout or "")


def _missing(row: dict[str, Any], names: Sequence[str]) -> list[str]:
    return [n for n in names if n not in row]


def _dialogues(
    rows: list[dict[str, Any]], folders: Sequence[Path], problems: list[str]
) -> dict[str, Dialogue]:
    dialogues: dict[str, Dialogue] = {}
    for r in rows:
        missing = _missing(r, UTTERANCE_FIELDS)
        if missing:
            problems.append(
                f"{r['_where']}: missing field(s) {', '.join(missing)} (an utterance has "
                f"{', '.join(UTTERANCE_FIELDS)}; {', '.join(UTTERANCE_OPTIONAL)} optional)"
            )
            continue
        conv, utt = str(r["conv_id"]), str(r["utterance_id"])
        where = f"dialogue {conv} utterance {utt}"
        d = dialogues.setdefault(conv, Dialogue(conv))
        if any(u.utterance_id == utt for u in d.utterances):
            problems.append(f"{where}: utterance_id used twice in this dialogue")
            continue
        sender = str(r["from"])
        if sender not in SIDES:
            problems.append(f"{where}: from {sender!r} is not human or gpt")
            continue
        if not str(r["value"] or "").strip():
            problems.append(f"{where}: value (what was said) is empty")
        audio = None
        if sender == "human":
            audio = _audio(r["audpath"], folders)
            if audio is None:
                problems.append(f"{where}: audio {_describe(r['audpath'])} not found")
        emotion = r.get("emotion")
        d.utterances.append(
            Utterance(
                conv,
                utt,
                sender,
                str(r["value"] or ""),
                None if emotion is None else str(emotion),
                str(r.get("speaker") or "user"),
                audio,
            )
        )
    return dialogues


def _questions(
    rows: list[dict[str, Any]],
    dialogues: dict[str, Dialogue],
    folders: Sequence[Path],
    problems: list[str],
) -> list[Question]:
    questions: list[Question] = []
    seen: set[str] = set()
    for r in rows:
        missing = _missing(r, QUESTION_FIELDS)
        if missing:
            problems.append(
                f"{r['_where']}: missing field(s) {', '.join(missing)} (a question has "
                f"{', '.join(QUESTION_FIELDS)})"
            )
            continue
        qa = str(r["qa_id"])
        where = f"question {qa}"
        if qa in seen:
            problems.append(f"{where}: qa_id used twice")
            continue
        seen.add(qa)
        conv, support = str(r["conv_id"]), str(r["supporting_utterance_id"])
        dialogue = dialogues.get(conv)
        sender = str(r["supporting_from"])
        if dialogue is None:
            problems.append(f"{where}: conv_id {conv} is not a dialogue of this split")
        else:
            said = next((u for u in dialogue.utterances if u.utterance_id == support), None)
            if said is None:
                problems.append(
                    f"{where}: supporting_utterance_id {support} is not an utterance of "
                    f"dialogue {conv}"
                )
            elif said.sender != sender:
                problems.append(
                    f"{where}: supporting_from {sender!r} but utterance {support} is from "
                    f"{said.sender!r}"
                )
        if sender not in SIDES:
            problems.append(f"{where}: supporting_from {sender!r} is not human or gpt")
        if not str(r["answer"] or "").strip():
            problems.append(f"{where}: answer is empty")
        audio = _audio(r["question_audio"], folders)
        if audio is None:
            problems.append(f"{where}: question audio {_describe(r['question_audio'])} not found")
            continue
        questions.append(
            Question(qa, conv, str(r["question"] or ""), audio, str(r["answer"]), support, sender)
        )
    return questions


# -- writing (the mini edition) ----------------------------------------------------------------


def write_split_jsonl(
    folder: Path,
    split: str,
    utterances: Sequence[dict[str, Any]],
    questions: Sequence[dict[str, Any]],
) -> None:
    """Write one split as JSON lines; audio fields are already paths under ``folder/split``."""
    (folder / split).mkdir(parents=True, exist_ok=True)
    for name, rows in (("dialogues", utterances), ("questions", questions)):
        (folder / split / f"{name}.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
        )
    (folder / "contextdialog.json").write_text(
        json.dumps({"format": FORMAT, "version": FORMAT_VERSION}) + "\n"
    )
