"""Pools of labelled wordings, each with a declared role, and the one loader for them.

Roles: ``train`` (a model may be fitted on it), ``dev`` (built or tuned looking at it,
or looked at after it was measured: its figure is a tuning figure) and ``test``
(written before the code it scores changed, never used to change it, frozen). A
``test`` pool is a file whose sha256 is declared here and checked on every load:
a changed file is refused, so a figure labelled "test" is always on the bytes that
were frozen. Template pools (wordings generated from lists inside a module) are
listed with their role so reports can label them, but are not loaded from here.

The retrieval mini editions phrase their query instructions from wording tables:
``wordings(edition, "dev")`` reads the edition's own tables (the parser was tuned on
them), ``wordings(edition, "test")`` the frozen held-out file written for it
(``data/instructions/*_test.json``), both as one shape: kind -> templates, or
kind -> label -> templates.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import string
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from voxmem.errors import VoxmemError
from voxmem.retrievers.plan import ATTRIBUTES
from voxmem.retrievers.vocabulary import ENVIRONMENT_WORDS, STYLE_WORDS

Role = Literal["train", "dev", "test"]
DATA = Path(__file__).parent / "data"
TIME_LABELS = (
    "today",
    "yesterday",
    "this_session",
    "last_session",
    "first",
    "latest",
    "before_break",
    "after_break",
)
#: languages whose content keys are substrings of the text: written without spaces
#: (ja, zh), or with particles joined to the words (ko)
UNSPACED = ("ja", "zh", "ko")


class PoolError(VoxmemError, ValueError):
    """A pool that cannot be used. Subclasses say why."""


class UnknownPool(PoolError):
    """A pool name that is not in the registry."""


class FrozenPoolChanged(PoolError):
    """A test pool whose bytes differ from its frozen sha256."""


class PoolSchemaError(PoolError):
    """A pool row that does not follow its pool's schema; the message lists every problem."""


@dataclass(frozen=True)
class Pool:
    name: str
    role: Role
    #: ``plan`` rows (``PlanRow``), ``routing`` rows, ``wordings`` (a mini edition's
    #: instruction templates in a file), or ``templates`` (generated in code)
    schema: Literal["plan", "routing", "personal", "wordings", "templates"]
    #: the file (relative to ``benchmarks/data``), or ``module:NAME, NAME`` for templates
    source: str
    sha256: str | None = None
    #: known speakers the pool was written for (``target:<name>`` values)
    speaker_names: tuple[str, ...] = ()
    note: str = ""

    @property
    def path(self) -> Path:
        return DATA / self.source  # an absolute source stays as it is


_MINI = "not held out: written alongside the parser and measured with it"
#: the retrieval mini editions whose instruction wordings have a dev and a test pool
EDITIONS = ("inspire-mini", "voicetrace-mini", "squtr-mini", "contextdialog-mini")
_HELD_OUT = "held-out instruction wordings, written before a trained planner was plugged in"
POOLS: dict[str, Pool] = {
    p.name: p
    for p in [
        Pool(
            "plans/test_v13",
            "test",
            "plan",
            "plans/test_v13.jsonl",
            sha256="5458f351b204b263e7938c297c8dc2da53ec66c8e47ec1bd588502e7ea6ec1d5",
            speaker_names=("Ingrid", "Babajide", "Kenji", "Paloma", "Zainab"),
            note="420 instructions (70 not in English, 46 with a clip attached and unused), "
            "written blind on 2026-12-07 by a fourth writer after the planner weights "
            "a0ef283d and ce87459a, frozen before the planner change it scores (learning "
            "from plans/test_v10, v11 and v12)",
        ),
        Pool(
            "plans/test_v12",
            "train",
            "plan",
            "plans/test_v12.jsonl",
            sha256="adc2cc483f9db0ab21a95f417e0b82e8a31946a0dfac79b61758d86cad6482a7",
            speaker_names=("Margit", "Chinedu", "Akira", "Ximena", "Yasmin"),
            note="420 instructions (70 not in English, 50 with a clip attached and unused), "
            "written blind on 2026-12-06 by a third writer after the planner weights it "
            "first scored (a0ef283d, ce87459a), frozen before any later planner change; a "
            "test pool until its figure was reported (637a9b8); the planners learn from it "
            "since 2026-12-07 (a train pool: any figure on it is a training figure), "
            "superseded as a test by plans/test_v13",
        ),
        Pool(
            "plans/test_v11",
            "train",
            "plan",
            "plans/test_v11.jsonl",
            sha256="e2b903eabb72d4f668e29cc7e596b4720a16591d88bcb7a2789067dfc606122c",
            speaker_names=("Sigrid", "Obinna", "Haruto", "Valentina", "Nadia"),
            note="420 instructions (70 not in English, 50 with a clip attached and unused), "
            "written blind on 2026-12-06 by a second writer, apart from plans/test_v10, "
            "before the planner change they scored; a test pool until its figure was "
            "reported (a9e01d0); the planners learn from it since 2026-12-07 (a train pool), "
            "superseded as a test by plans/test_v13",
        ),
        Pool(
            "plans/test_v10",
            "train",
            "plan",
            "plans/test_v10.jsonl",
            sha256="d194b1fc6f7dba94859c712ff0872d329f9d2eeac26474389454ab1ca0031c69",
            speaker_names=("Sigrid", "Obinna", "Haruto", "Valentina", "Nadia"),
            note="420 instructions (70 not in English, 53 with a clip attached and unused), "
            "written blind on 2026-12-06 before the planner change they scored; a test pool "
            "until its figure was reported (a9e01d0); the planners learn from it since "
            "2026-12-07 (a train pool), superseded as a test by plans/test_v13",
        ),
        Pool(
            "plans/test_v9",
            "dev",
            "plan",
            "plans/test_v9.jsonl",
            sha256="b6ca8b0be2c8a444e7a5c636aa6cd897c3ce7dd13d2f247535238b3fc67cf791",
            speaker_names=("Henrik", "Amara", "Tomasz", "Leilani", "Ravi"),
            note="420 instructions (70 not in English, 50 with a clip attached and unused), "
            "written blind on 2026-12-06; a test pool until its figure was reported "
            "(99407b9), then read to change the planner: a tuning figure since 2026-12-06, "
            "superseded as a test by plans/test_v10",
        ),
        Pool(
            "plans/test_v8",
            "train",
            "plan",
            "plans/test_v8.jsonl",
            sha256="15373f2b346e1b50cdc775830e132cfec82f62c93aa8a959e93748b7187a0e08",
            speaker_names=("Anika", "Bongani", "Luca", "Mariam", "Joon"),
            note="420 instructions (70 not in English, 64 with a clip attached and unused), "
            "written blind on 2026-12-05; a test pool until its figures were reported "
            "(ccedc5f, fb4d4ba), then read to change the planner: a tuning figure since "
            "2026-12-06, superseded as a test by plans/test_v9; the planner learns from it "
            "since 2026-12-06 (a train pool: any figure on it is a training figure)",
        ),
        Pool(
            "plans/test_v7",
            "train",
            "plan",
            "plans/test_v7.jsonl",
            sha256="4f6f90b05c6cc9c653c8403f11bf89b125e79f8d2547d42d3d5f4b8b999c6f9e",
            speaker_names=("Olga", "Kwame", "Yuki", "Diego", "Fatima"),
            note="420 instructions (70 not in English, 51 with a clip attached and unused); "
            "a test pool until its figure was reported (9042f15), then read to change the "
            "planner: a tuning figure since 2026-12-05, superseded as a test by plans/test_v8; "
            "the planner learns from it since 2026-12-06 (a train pool: any figure on it is a "
            "training figure)",
        ),
        Pool(
            "plans/test_v6",
            "train",
            "plan",
            "plans/test_v6.jsonl",
            sha256="88e93814c777b670c935ec4550871accde10d9a0c245498239904f29700aa3db",
            speaker_names=("Ingrid", "Tunde", "Mei", "Rafael", "Carmen"),
            note="420 instructions (70 not in English, 52 with a clip attached and unused); "
            "a test pool until its figure was reported (be415cf, dc7eca0, 1a2ffe1), then "
            "read to change the planner: a tuning figure since 2026-12-05, superseded as a "
            "test by plans/test_v7; the planner learns from it since 2026-12-05 (a train "
            "pool: any figure on it is a training figure)",
        ),
        Pool(
            "plans/test_v5",
            "train",
            "plan",
            "plans/test_v5.jsonl",
            sha256="b07bc303880eff4916d2010fe9dd0ac8f6627d9e02716cec303339a62dd09be5",
            speaker_names=("Noor", "Sven", "Adaeze", "Kenji", "Rosa"),
            note="420 instructions (70 not in English); a test pool until its figure was "
            "reported (three runs of successive planners, the last on 0918e65), then read to "
            "change the planner: a tuning figure "
            "since 2026-12-04, superseded as a test by plans/test_v6; the planner learns from it "
            "since 2026-12-05 (a train pool: any figure on it is a training figure)",
        ),
        Pool(
            "plans/test_v4",
            "train",
            "plan",
            "plans/test_v4.jsonl",
            sha256="1e120afe7d2e4213d48f7185905428414e7d3b9f118721bbc3326d5f7796648a",
            speaker_names=("Priya", "Tomasz", "Aiko", "Mateo", "Grace"),
            note="420 instructions (70 not in English); a test pool until its figure was "
            "reported once (3c5b6ba), then read to change the planner: a tuning figure "
            "since 2026-12-03, superseded as a test by plans/test_v5; the planner learns from it "
            "since 2026-12-05 (a train pool: any figure on it is a training figure)",
        ),
        Pool(
            "plans/test_v3",
            "train",
            "plan",
            "plans/test_v3.jsonl",
            sha256="eee307b019129eeed8b9d1b374381590fe93ede9d67d2800a8e04c54ea52f918",
            speaker_names=("Lena", "Omar", "Beatriz", "Hiro", "Callum"),
            note="380 instructions (63 not in English); a test pool until its figure was "
            "reported once (5d0addd), then read to change the planner: a tuning figure "
            "since 2026-12-03, superseded as a test by plans/test_v4; the planner learns from it "
            "since 2026-12-05 (a train pool: any figure on it is a training figure)",
        ),
        Pool(
            "routing/test",
            "test",
            "routing",
            "routing/test.jsonl",
            sha256="a607342814096ce79d32718e120edd863514a9f0ad681cce23ad79189870750a",
            speaker_names=("Dana", "Marco", "Priya", "Sam"),
            note="368 conversational requests, written before the router was run",
        ),
        Pool(
            "routing/personal_test",
            "test",
            "personal",
            "routing/personal_test.jsonl",
            sha256="11fe4340661b48770fe9a49b2be82855014dc3dab1f50b245da4895538ce71fe",
            note="252 later questions after a short history (139 asking for something said in "
            "it), written blind on 2026-12-06 by a writer who had not seen the router, "
            "frozen before the rule for questions about the asker's own life was scored",
        ),
        Pool(
            "routing/personal_dev",
            "dev",
            "personal",
            "routing/personal_dev.jsonl",
            note="later questions after a short history, written on 2026-12-06 by a writer "
            "who had not seen the router; read to build the rule for questions about the "
            "asker's own life (a tuning figure)",
        ),
        Pool(
            "plans/tune",
            "train",
            "templates",
            "voxmem.benchmarks.instructions:WORDINGS['tune']",
            note="what the lexicon parser was built on",
        ),
        Pool(
            "plans/heldout",
            "dev",
            "templates",
            "voxmem.benchmarks.instructions:WORDINGS['heldout']",
            note="measured untouched once; later parser fixes looked at its errors",
        ),
        Pool(
            "plans/fresh",
            "dev",
            "templates",
            "voxmem.benchmarks.instructions:WORDINGS['fresh']",
            note="its wordings entered the parser in the next parser change",
        ),
        Pool(
            "plans/unseen",
            "dev",
            "templates",
            "voxmem.benchmarks.instructions:WORDINGS['unseen']",
            note="never used to change the parser, but measured on every run and not "
            "frozen; superseded as a test by plans/test_v3",
        ),
        Pool(
            "inspire-mini",
            "dev",
            "templates",
            "voxmem.benchmarks.retrieval.inspire:WORDINGS, COMPOSITE_PARTS, "
            "COMPOSITE_FRAMES_SEMANTIC, COMPOSITE_FRAMES_OTHER, STYLE_WORDS, ENV_WORDS",
            note=_MINI + " (its templates entered the parser in the commit that made them)",
        ),
        Pool(
            "voicetrace-mini",
            "dev",
            "templates",
            "voxmem.benchmarks.retrieval.voicetrace:QUESTIONS",
            note=_MINI,
        ),
        Pool(
            "squtr-mini",
            "dev",
            "templates",
            "voxmem.benchmarks.retrieval.squtr:INSTRUCTION",
            note=_MINI,
        ),
        Pool(
            "contextdialog-mini",
            "dev",
            "templates",
            "voxmem.benchmarks.retrieval.contextdialog_mini:TOPICS",
            note=_MINI,
        ),
        Pool(
            "inspire-mini/test",
            "test",
            "wordings",
            "instructions/inspire_mini_test.json",
            sha256="294b40c1296f17e8a275f9c0a44674e1d1eeba2a766a78a12a0d2e81856a7443",
            note=_HELD_OUT + ", with their own style and background words",
        ),
        Pool(
            "voicetrace-mini/test",
            "test",
            "wordings",
            "instructions/voicetrace_mini_test.json",
            sha256="c1bfd282aa87cfd89c7b65de4ad5dd83964e39a1440d8b43d04d5de6d7b33582",
            note=_HELD_OUT,
        ),
        Pool(
            "squtr-mini/test",
            "test",
            "wordings",
            "instructions/squtr_mini_test.json",
            sha256="73e3027b51a08a14f0cdbeee0adb817b9f0dfe3ae249caa04e08ccd4ae3e10c3",
            note=_HELD_OUT,
        ),
        Pool(
            "contextdialog-mini/test",
            "test",
            "wordings",
            "instructions/contextdialog_mini_test.json",
            sha256="c64a2ffa61d7920e655b4a8694cba3d2976cba2ebdf878948c56236956c11327",
            note=_HELD_OUT + " (each topic's questions, keyed by the answer)",
        ),
    ]
}


@dataclass(frozen=True)
class PlanRow:
    """One instruction and the plan it asks for (see ``data/plans/README.md``)."""

    id: str
    lang: str
    family: str
    text: str
    has_reference: bool
    #: key content words, space-separated (substrings of the text where unspaced)
    content: str | None
    content_from_reference: bool
    speaker: str  # any | same | target:<name>
    style: str  # any | same | target:<label>
    environment: str
    role: str | None  # None | user | agent
    time: str | None  # None | one of TIME_LABELS


def get_pool(name: str | Pool) -> Pool:
    if isinstance(name, Pool):
        return name
    try:
        return POOLS[name]
    except KeyError:
        raise UnknownPool(
            f"no pool named {name!r}; known pools: {', '.join(sorted(POOLS))}"
        ) from None


def read_verified(pool: Pool) -> bytes:
    """The pool file's bytes, refused if a declared sha256 does not match (every test
    pool declares one)."""
    if pool.schema == "templates":
        raise PoolError(f"{pool.name} is generated in code ({pool.source}); it has no file")
    if pool.role == "test" and pool.sha256 is None:
        raise FrozenPoolChanged(f"test pool {pool.name} declares no sha256; freeze it first")
    data = pool.path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if pool.sha256 is not None and digest != pool.sha256:
        raise FrozenPoolChanged(
            f"{pool.path} changed (sha256 {digest[:12]}..., frozen {pool.sha256[:12]}...): "
            "a test pool is frozen once written; restore it (git checkout) or write a new "
            "pool file with its own role and hash"
        )
    return data


def _json_lines(data: bytes) -> tuple[list[tuple[int, Any]], list[str]]:
    """Each non-blank line parsed, with its number; and the lines that are not JSON."""
    out, problems = [], []
    for n, line in enumerate(data.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append((n, json.loads(line)))
        except json.JSONDecodeError as exc:
            problems.append(f"line {n}: not JSON ({exc.msg})")
    return out, problems


def _line_no(problem: str) -> int:
    return int(problem.split(":")[0].removeprefix("line "))


def tokens(text: str) -> list[str]:
    """Casefolded word tokens ("brother's" gives "brother", "s")."""
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold())


def _constraint_ok(value: Any, labels: Sequence[str]) -> bool:
    if value in ("any", "same"):
        return True
    return isinstance(value, str) and value.startswith("target:") and value[7:] in labels


def check_plan_row(raw: Any, speaker_names: Sequence[str]) -> list[str]:
    """Every way ``raw`` breaks the plan-row schema (empty when it is a valid row)."""
    if not isinstance(raw, dict):
        return ["not a JSON object"]
    want = set(PlanRow.__dataclass_fields__)
    problems = [f"missing {k!r}" for k in sorted(want - raw.keys())]
    problems += [f"unknown key {k!r}" for k in sorted(raw.keys() - want)]
    if problems:
        return problems
    for key in ("id", "lang", "family", "text"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            problems.append(f"{key} must be a non-empty string")
    for key in ("has_reference", "content_from_reference"):
        if not isinstance(raw[key], bool):
            problems.append(f"{key} must be true or false")
    labels = {
        "speaker": speaker_names,
        "style": list(STYLE_WORDS),
        "environment": list(ENVIRONMENT_WORDS),
    }
    for attr in ATTRIBUTES:
        if not _constraint_ok(raw[attr], labels[attr]):
            problems.append(
                f"{attr} {raw[attr]!r} is not any, same or target:<one of {labels[attr]}>"
            )
    if raw["role"] not in (None, "user", "agent"):
        problems.append(f"role {raw['role']!r} is not null, user or agent")
    if raw["time"] is not None and raw["time"] not in TIME_LABELS:
        problems.append(f"time {raw['time']!r} is not null or one of {TIME_LABELS}")
    content = raw["content"]
    if content is not None and (not isinstance(content, str) or not content.strip()):
        problems.append("content must be null or a non-empty string")
    if problems:
        return problems
    if content is not None and raw["content_from_reference"]:
        problems.append("content is null when it is taken from the reference")
    uses_ref = raw["content_from_reference"] or "same" in (raw[a] for a in ATTRIBUTES)
    if uses_ref and not raw["has_reference"]:
        problems.append("'same' and content_from_reference need has_reference true")
    if content is not None:
        if raw["lang"] in UNSPACED:
            text = unicodedata.normalize("NFKC", raw["text"]).casefold()
            missing = [k for k in content.split() if k.casefold() not in text]
        else:
            have = set(tokens(raw["text"]))
            missing = [w for w in tokens(content) if w not in have]
        if missing:
            problems.append(f"content words {missing} are not in the text")
    return problems


def load_plan_pool(name: str | Pool) -> list[PlanRow]:
    """The rows of a plan pool, hash-checked and validated; every problem is listed."""
    pool = get_pool(name)
    if pool.schema != "plan":
        raise PoolError(f"{pool.name} holds {pool.schema} rows, not plan rows")
    lines, problems = _json_lines(read_verified(pool))
    rows, ids = [], set()
    for n, raw in lines:
        bad = check_plan_row(raw, pool.speaker_names)
        if not bad and raw["id"] in ids:
            bad = [f"id {raw['id']!r} repeats an earlier row"]
        if bad:
            problems.append(f"line {n}: " + ", ".join(bad))
            continue
        ids.add(raw["id"])
        rows.append(PlanRow(**raw))
    if problems:
        raise PoolSchemaError(f"{pool.path}: " + "; ".join(sorted(problems, key=_line_no)))
    if not rows:
        raise PoolSchemaError(f"{pool.path}: no rows")
    return rows


ROUTING_KEYS = (
    "text",
    "intent",
    "memory",
    "speaker",
    "role",
    "style",
    "environment",
    "time",
    "topic",
)


def load_routing_pool(name: str | Pool = "routing/test") -> list[dict[str, Any]]:
    """The routing pool's rows, hash-checked; rows missing a key are refused."""
    pool = get_pool(name)
    if pool.schema != "routing":
        raise PoolError(f"{pool.name} holds {pool.schema} rows, not routing rows")
    lines, problems = _json_lines(read_verified(pool))
    problems += [
        f"line {n}: missing {sorted(set(ROUTING_KEYS) - raw.keys())}"
        if isinstance(raw, dict)
        else f"line {n}: not a JSON object"
        for n, raw in lines
        if not isinstance(raw, dict) or set(ROUTING_KEYS) - raw.keys()
    ]
    if problems:
        raise PoolSchemaError(f"{pool.path}: " + "; ".join(problems))
    return [raw for _, raw in lines]


PERSONAL_KEYS = ("id", "history", "question", "kind", "memory", "support", "answer")
PERSONAL_KINDS = (
    "user_fact",
    "agent_fact",
    "advice",
    "knowledge",
    "command",
    "smalltalk",
    "new_fact",
    "absent",
)


def load_personal_pool(name: str | Pool) -> list[dict[str, Any]]:
    """A pool of later questions after a short history (``personal`` rows), hash-checked;
    rows that break the schema are refused with every problem listed."""
    pool = get_pool(name)
    if pool.schema != "personal":
        raise PoolError(f"{pool.name} holds {pool.schema} rows, not personal rows")
    lines, problems = _json_lines(read_verified(pool))
    for n, raw in lines:
        if not isinstance(raw, dict) or set(PERSONAL_KEYS) - raw.keys():
            problems.append(f"line {n}: not an object with keys {list(PERSONAL_KEYS)}")
            continue
        history = raw["history"]
        if not isinstance(history, list) or not all(
            isinstance(h, dict) and h.get("role") in ("user", "agent") and h.get("text")
            for h in history
        ):
            problems.append(f"line {n}: history must be a list of {{role, text}} turns")
            continue
        if raw["kind"] not in PERSONAL_KINDS:
            problems.append(f"line {n}: kind {raw['kind']!r} is not one of {PERSONAL_KINDS}")
        if raw["memory"] != (raw["kind"] in ("user_fact", "agent_fact")):
            problems.append(f"line {n}: memory must be true exactly for user_fact/agent_fact")
        support = raw["support"]
        if raw["memory"] and not (isinstance(support, int) and 0 <= support < len(history)):
            problems.append(f"line {n}: support must index a turn of the history")
    if problems:
        raise PoolSchemaError(f"{pool.path}: " + "; ".join(problems))
    return [raw for _, raw in lines]


#: kind -> templates, or kind -> label -> templates (``values:style`` -> ``sad`` -> ...)
Wordings = dict[str, list[str] | dict[str, list[str]]]


def placeholders(template: str) -> frozenset[str]:
    """The ``{name}`` fields of a template."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)


def _check_templates(where: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not value:
        return [f"{where} must be a non-empty list of strings"]
    problems = []
    for i, t in enumerate(value):
        if not isinstance(t, str) or not t.strip():
            problems.append(f"{where}[{i}] must be a non-empty string")
            continue
        try:
            placeholders(t)
        except ValueError as exc:
            problems.append(f"{where}[{i}] is not a template ({exc})")
    if len({t for t in value if isinstance(t, str)}) < len(value):
        problems.append(f"{where} repeats a wording")
    return problems


def check_wordings(raw: Any, edition: str, role: Role) -> list[str]:
    """Every way ``raw`` breaks the wording-file schema (empty when it is valid)."""
    if not isinstance(raw, dict):
        return ["not a JSON object"]
    problems = [
        f"{key} is {raw.get(key)!r}, not {want!r}"
        for key, want in (("edition", edition), ("role", role))
        if raw.get(key) != want
    ]
    kinds = raw.get("wordings")
    if not isinstance(kinds, dict) or not kinds:
        return [*problems, "wordings must be a non-empty object of kind -> templates"]
    for kind, value in kinds.items():
        if isinstance(value, dict) and value:
            problems += [p for k, v in value.items() for p in _check_templates(f"{kind}.{k}", v)]
        else:
            problems += _check_templates(kind, value)
    return problems


def _dev_wordings(edition: str) -> Wordings:
    """The edition's own wording tables, in the shape of a wording file."""
    if edition == "inspire-mini":
        from voxmem.benchmarks.retrieval import inspire as m

        out: Wordings = {k: list(v) for k, v in m.WORDINGS.items()}
        for kind in m.COMPOSITE_TYPES:
            frames = m.COMPOSITE_FRAMES_SEMANTIC if "semantic" in kind else m.COMPOSITE_FRAMES_OTHER
            out["composite:" + "+".join(kind)] = [
                frame.format(p=ps[0] if len(ps) == 1 else ", ".join(ps[:-1]) + " and " + ps[-1])
                for frame in frames
                for ps in itertools.product(*(m.COMPOSITE_PARTS[k] for k in kind))
            ]
        out["values:style"] = {k: list(v) for k, v in m.STYLE_WORDS.items()}
        out["values:environment"] = {k: list(v) for k, v in m.ENV_WORDS.items()}
        return out
    if edition == "voicetrace-mini":
        from voxmem.benchmarks.retrieval.voicetrace import QUESTIONS

        return {"question": list(QUESTIONS)}
    if edition == "squtr-mini":
        from voxmem.benchmarks.retrieval.squtr import INSTRUCTION

        return {"instruction": [INSTRUCTION]}
    from voxmem.benchmarks.retrieval.contextdialog_mini import TOPICS

    return {
        "user_question": {t.user_answer: [t.user_question] for t in TOPICS},
        "agent_question": {t.agent_answer: [t.agent_question] for t in TOPICS},
    }


def wordings(edition: str, role: Role = "test") -> Wordings:
    """A mini edition's instruction wordings: ``dev``, the tables in the edition's module
    (the parser was tuned on them), or ``test``, the frozen held-out file (refused with
    ``FrozenPoolChanged`` if its bytes changed, ``PoolSchemaError`` if malformed)."""
    if edition not in EDITIONS:
        raise UnknownPool(f"no mini edition {edition!r}; known: {', '.join(EDITIONS)}")
    if role == "dev":
        return _dev_wordings(edition)
    if role != "test":
        raise PoolError(f"the mini editions have dev and test wordings, not {role!r}")
    pool = get_pool(f"{edition}/test")
    try:
        raw = json.loads(read_verified(pool))
    except json.JSONDecodeError as exc:
        raise PoolSchemaError(f"{pool.path}: not JSON ({exc.msg})") from None
    problems = check_wordings(raw, edition, pool.role)
    if problems:
        raise PoolSchemaError(f"{pool.path}: " + "; ".join(problems))
    kinds: Wordings = raw["wordings"]
    return kinds


__all__ = [
    "EDITIONS",
    "POOLS",
    "FrozenPoolChanged",
    "PlanRow",
    "Pool",
    "PoolError",
    "PoolSchemaError",
    "UnknownPool",
    "Wordings",
    "check_plan_row",
    "check_wordings",
    "get_pool",
    "load_personal_pool",
    "load_plan_pool",
    "load_routing_pool",
    "placeholders",
    "read_verified",
    "tokens",
    "wordings",
]
