"""Instruction-aware recall: one function the agent and every benchmark call.

    hits = recall(memory, "acme", "what did this speaker say about the budget?",
                  reference=clip, k=5)

The instruction becomes a ``RetrievalPlan``; the reference clip (if any) is
encoded with the memory's own encoders; every space the plan uses is searched
(with the hard filters), candidates are scored in every used space from their
stored vectors, each attribute's scores are z-normalised over the candidates,
and they are fused so that required constraints dominate: the fused score is
the mean of the attribute scores plus their minimum, so a turn that fails any
one constraint cannot outrank one that meets them all on the same footing
(``FusionParams.asr_doubt_power``, off by default, weakens the evidence against a
spoken turn's content when the ASR was less sure of its words than of the other
candidates'). When the plan asks for the reference clip's speaker, the voice is also
a gate: the turns whose voiceprint is close enough to the clip's
(``FusionParams.speaker_gate``) rank above all others, so a turn of the asked-for
voice whose words the ASR lost is not outranked by other voices on the topic.
Content is judged on two kinds of evidence, fused into its one score: the text
vectors' cosine and BM25 over the transcripts (an exact rare word survives noise
that moves a vector). Target values (``sad``, ``rain``) are scored from the stored
labels; style is also judged against each speaker's own habits (their baseline)
once the memory knows them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from voxmem.audio import Audio, AudioSource
from voxmem.memory.encoders.base import RelativeStyleEncoder
from voxmem.memory.records import Segment, UnknownSpeaker
from voxmem.memory.store import AudioMemory
from voxmem.retrievers import lexical
from voxmem.retrievers.instruction import InstructionParser
from voxmem.retrievers.plan import ATTRIBUTES, Constraint, PlanNotice, RetrievalPlan
from voxmem.retrievers.reference import Reference
from voxmem.retrievers.vocabulary import ENVIRONMENT_WORDS
from voxmem.settings import PlannerSettings

#: how much wider the unfiltered search is when a role filter is applied afterwards
OVERFETCH = 4
#: turns read from the catalog when a plan has filters but nothing to rank by
LISTED_TURNS = 5000


@dataclass(frozen=True)
class FusionParams:
    """Tunable settings of the fusion, in one place."""

    #: candidates taken from each searched space
    candidates: int = 100
    #: weight of the minimum over attributes (0: plain mean)
    min_weight: float = 1.0
    #: z-score above which an attribute counts as matched in the evidence
    matched_z: float = 0.5
    #: style (target or same) is also judged against the speaker's own habits once the
    #: memory holds this many of their turns (0 turns it off)
    baseline_turns: int = 3
    #: weight of lexical evidence (BM25 over transcripts) in the content score, against
    #: the text vectors' cosine, each z-normalised over the candidates (0: vectors only),
    #: when the candidates are text (passages handed in as a pool, with no span of
    #: audio). Tuned on a dev set of its own (``python -m voxmem.benchmarks.fusion_dev``:
    #: 0.2 over 0.5 once it held 60 facts, 2026-12-06; z over minmax and rrf)
    lexical_weight: float = 0.2
    #: the same weight when the candidates are spoken turns, whose words are the ASR's
    #: (``python -m voxmem.benchmarks.fusion_dev --turns``: 0.4 over 0.2 once the content
    #: score dropped question words (``lexical.CONTENT_STOPWORDS``), mean nDCG@10 over
    #: four SNRs 0.465 against 0.443 (0.5: 0.463; dense 0.408), 2026-12-06)
    lexical_weight_turns: float = 0.4
    #: how the two content scores are put on one scale before they are mixed:
    #: ``z``, ``minmax`` or ``rrf`` (see ``_blend``)
    lexical_fusion: str = "z"
    #: how little a spoken turn's missing content counts when the ASR was unsure of its
    #: words (0, the default: as much as any other turn's). Above 0, a turn whose mean
    #: word probability is below the median of the candidates that have at least
    #: ``asr_doubt_min_words`` timed words has its negative content z multiplied by (its
    #: mean / that median, at least ``asr_doubt_floor``) to this power; shorter turns,
    #: turns without words (an agent's own, stored from its text) and text passages keep
    #: their evidence whole, and with fewer than three such candidates nothing changes.
    #: A transcript the ASR got wrong does not say what was not said, but neither does
    #: unsure chatter: on the dev set of its own (``python -m
    #: voxmem.benchmarks.fusion_dev --speakers``, who said what over partly misheard
    #: turns; 0, 1, 2 and 4 swept) 4 gained 2 of 60 queries on one seed and none on the
    #: other, and it lifts a noisy place's off-topic turns over a clear answer when the
    #: plan asks for that place, and the asked-for voice's unsure small talk over a
    #: clear answer in other words. Off until a dev set shows it does more good than
    #: that (benchmarks/RESULTS.md, 2026-12-07).
    asr_doubt_power: float = 0.0
    asr_doubt_floor: float = 0.5
    asr_doubt_min_words: int = 4
    #: when the plan asks for the reference clip's speaker: a turn whose voiceprint is at
    #: least this close to the clip's (cosine) ranks above every turn that is not, the
    #: other evidence ordering each of the two groups (None: off). The voice is then a
    #: condition, as a named speaker is, rather than one score the words can outweigh:
    #: a turn of the asked-for voice whose words the ASR lost stays above another
    #: voice's turn on the asked-for topic. Chosen on a dev set of its own (``python -m
    #: voxmem.benchmarks.fusion_dev --speakers``: its words and backgrounds are no mini
    #: edition's, its synthetic voices are theirs), off, 0.5 and 0.65 (the memory's rule
    #: for a voice being a known speaker) swept on seeds 0 and 1: Recall@10 0.883 and
    #: 0.883, 0.883 and 0.900, 0.850 and 0.933; nDCG@10 0.748 and 0.760, 0.761 and
    #: 0.822, 0.735 and 0.846 (0.5 never below off). The same voice's turns there are at
    #: 0.52 or more in 95 % of cases (noisy turns the lowest), other voices' at 0.59 or
    #: less (2026-12-08, benchmarks/RESULTS.md).
    speaker_gate: float | None = 0.5

    def __post_init__(self) -> None:
        if self.lexical_fusion not in ("z", "minmax", "rrf"):
            raise ValueError(f"lexical_fusion {self.lexical_fusion!r}: choose z, minmax or rrf")
        if not (math.isfinite(self.asr_doubt_power) and self.asr_doubt_power >= 0):
            raise ValueError(
                f"asr_doubt_power {self.asr_doubt_power!r}: a finite number, 0 or more (0: off)"
            )
        if not 0 < self.asr_doubt_floor <= 1:
            raise ValueError(f"asr_doubt_floor {self.asr_doubt_floor!r}: above 0, at most 1")
        if not isinstance(self.asr_doubt_min_words, int) or self.asr_doubt_min_words < 1:
            raise ValueError(f"asr_doubt_min_words {self.asr_doubt_min_words!r}: 1 or more")
        if self.speaker_gate is not None and not -1 <= self.speaker_gate <= 1:
            raise ValueError(
                f"speaker_gate {self.speaker_gate!r}: a cosine from -1 to 1, or None (off)"
            )


@dataclass(frozen=True)
class Evidence:
    """How one attribute of the plan was judged for one turn."""

    attribute: str
    #: "vector" (cosine to the query), "label" (stored label score) or "vector+lexical"
    #: (content: text cosine and BM25 over the transcript, fused)
    how: str
    raw: float
    #: z-normalised over the candidates (with ``FusionParams.asr_doubt_power`` set,
    #: content's below 0 scaled down by how sure the ASR was of the turn's words)
    z: float
    #: z at least ``FusionParams.matched_z``; for the speaker under the speaker gate,
    #: inside the gate
    matched: bool
    #: the fused evidence's parts, raw: {"vector": cosine, "lexical": BM25 score}
    parts: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class RetrievedTurn:
    segment: Segment
    score: float
    evidence: dict[str, Evidence] = field(default_factory=dict)


@dataclass(frozen=True)
class RetrievedDocument:
    """A recording, ranked by its best turn."""

    recording_id: str
    score: float
    best: RetrievedTurn
    turns: list[RetrievedTurn]


@dataclass
class RecallResult:
    plan: RetrievalPlan
    turns: list[RetrievedTurn]
    documents: list[RetrievedDocument] = field(default_factory=list)


_PARSERS: dict[tuple[str, str | None], InstructionParser] = {}


def default_parser(memory: AudioMemory) -> InstructionParser:
    """The parser the memory's settings name (``planner``: the trained planner unless
    set otherwise), one per distinct planner setting in a process."""
    settings = getattr(getattr(memory, "settings", None), "planner", None) or PlannerSettings()
    secret = settings.openai_api_key  # written masked by model_dump_json
    key = (settings.model_dump_json(), secret.get_secret_value() if secret else None)
    if key not in _PARSERS:
        _PARSERS[key] = InstructionParser(planner=settings)
    return _PARSERS[key]


def recall(
    memory: AudioMemory,
    tenant: str,
    instruction: str,
    *,
    reference: AudioSource | Audio | Reference | None = None,
    k: int = 10,
    where: Mapping[str, Any] | None = None,
    documents: bool = False,
    plan: RetrievalPlan | None = None,
    parser: InstructionParser | None = None,
    params: FusionParams | None = None,
    sample_rate: int | None = None,
    pool: Sequence[Segment] | None = None,
) -> RecallResult:
    """Turns (and, with ``documents``, recordings) that best follow ``instruction``.

    ``pool`` scores the given items instead of searching the tenant's index: a text
    corpus outside the memory (SQuTR's passages), or a caller's own shortlist. Content
    fuses BM25 with ``params.lexical_weight`` for text passages (segments with no span
    of audio, ``end <= start``) and ``params.lexical_weight_turns`` for spoken turns."""
    if k < 1:
        raise ValueError(f"k must be 1 or more (got {k}): how many turns to return")
    params = params or FusionParams()
    names = memory.speaker_names(tenant) if pool is None else []
    parsed = plan is None
    plan = plan or (parser or default_parser(memory)).parse(
        instruction, reference is not None, names
    )
    ref = (
        reference
        if isinstance(reference, Reference) or reference is None
        else Reference.encode(
            memory,
            reference,
            sample_rate,
            transcribe=plan.content_from_reference,
            spaces=_reference_spaces(plan),
        )
    )
    filters = dict(where or {})
    if plan.role:
        filters["role"] = plan.role
    if plan.time.session is not None:
        filters["session"] = plan.time.session
    if plan.speaker.mode == "target" and plan.speaker.value:
        # a named speaker is a hard filter: only their turns
        named = next(
            (s for s in memory.speakers(tenant) if plan.speaker.value in (s.name, s.id)), None
        )
        if named is None and parsed and pool is None and not names:
            # with no voice named yet, the planner takes any name it hears for a speaker:
            # a name no voice has is searched as everyone, as beside known names
            value = plan.speaker.value
            plan = replace(
                plan,
                speaker=Constraint(),
                notices=(
                    *plan.notices,
                    PlanNotice(
                        "unknown_speaker",
                        f"{value!r} is not a known speaker (no voice has a name yet; name "
                        "one with voxmem speakers name); searched everyone",
                        asked=value,
                    ),
                ),
            )
        else:
            filters["speaker"] = named.id if named else plan.speaker.value
    clauses: list[dict[str, Any]] = [{k_: v} for k_, v in filters.items()]
    if plan.time.after is not None:
        clauses.append({"created_at": {"$gte": plan.time.after}})
    if plan.time.before is not None:
        clauses.append({"created_at": {"$lt": plan.time.before}})
    chroma_where: dict[str, Any] | None = None
    if len(clauses) == 1:
        chroma_where = clauses[0]
    elif clauses:
        chroma_where = {"$and": clauses}
    if plan.time.after is not None or plan.time.before is not None:
        # a time span is a filter too: searched with it, and checked on every candidate
        filters["_time"] = (plan.time.after, plan.time.before)

    queries = _query_vectors(memory, tenant, plan, ref)
    targets = {
        a: plan.constraint(a).value
        for a in ("style", "environment")
        if plan.constraint(a).mode == "target"
    }
    if pool is not None:
        cands = _passing(pool, filters)
    elif queries:
        ids = _candidates(memory, tenant, queries, filters, chroma_where, params.candidates)
        cands = memory.get_many(tenant, ids)
    elif not targets:
        # only filters (a named speaker, a role, a session or span): the catalog's turns
        # that pass them, in the order they were said
        if not filters:
            return RecallResult(plan, [])
        try:
            listed = memory.list(
                tenant,
                session=filters.get("session"),
                speaker=filters.get("speaker"),
                role=filters.get("role"),
                limit=LISTED_TURNS,
                newest_first=plan.time.order == "latest",
            )
        except UnknownSpeaker:
            return RecallResult(plan, [])
        cands = _passing(listed, filters)
    else:
        # only label targets: the turns that carry one of the asked-for labels
        found: dict[str, Segment] = {}
        for attr, value in targets.items():
            labels = (
                [value or ""]
                if attr == "style"
                else list(ENVIRONMENT_WORDS.get(value or "", ((), ()))[1])
            )
            relative = (
                attr == "style"
                and params.baseline_turns > 0
                and bool(memory.style_baselines(tenant, params.baseline_turns))
            )
            for seg in memory.with_labels(
                tenant, attr, labels, params.candidates, vectors=relative
            ):
                found[seg.id] = seg
        cands = _passing(found.values(), filters)
    if not cands:
        return RecallResult(plan, [])

    columns: dict[str, tuple[str, np.ndarray]] = {}
    for space, vec in queries.items():
        attr = "content" if space == "text" else space
        # a passage handed in with a broken vector scores lowest, never NaN in the ranking
        columns[attr] = (
            "vector",
            _finite(
                np.array(
                    [float(s.vectors[space] @ vec) if space in s.vectors else -1.0 for s in cands]
                )
            ),
        )
    parts: dict[str, dict[str, np.ndarray]] = {}
    words = _content_text(plan, ref)
    w = params.lexical_weight_turns if _spoken(cands) else params.lexical_weight
    if "content" in columns and words and w > 0:
        dense = columns["content"][1]
        lex = _finite(_lexical_scores(cands, words, pool))
        if float(lex.std()) > 1e-9:
            columns["content"] = ("vector+lexical", _blend(dense, lex, w, params.lexical_fusion))
            parts["content"] = {"vector": dense, "lexical": lex}
    if "style" in columns and ref is not None and pool is None and params.baseline_turns > 0:
        columns["style"] = (
            "vector",
            _relative_same_style(memory, tenant, cands, ref, columns["style"][1], params),
        )
    for attr, value in targets.items():
        scores = np.array([_label_score(s, attr, value or "") for s in cands])
        if attr == "style" and pool is None and params.baseline_turns > 0:
            scores = _with_relative_style(memory, tenant, cands, value or "", scores, params)
        columns[attr] = ("label", scores)

    sure: dict[str, np.ndarray] = {}
    if "content" in columns and params.asr_doubt_power > 0:
        doubt = _word_doubt(cands, params)
        if doubt is not None:
            sure["content"] = doubt
    turns = _fuse(cands, columns, params, parts, sure)
    gated: set[str] = set()
    if plan.speaker.mode == "same" and "speaker" in queries and params.speaker_gate is not None:
        inside = _voice_cosines(cands, queries["speaker"]) >= params.speaker_gate
        turns = _gated(turns, inside)
        gated = {s.id for s, ok in zip(cands, inside, strict=True) if ok}
    turns.sort(key=lambda t: (-t.score, t.segment.created_at, t.segment.start))
    if plan.time.order is not None:
        turns = _in_time_order(turns, plan.time.order, gated)
    result = RecallResult(plan, turns[:k] if not documents else turns)
    if documents:
        result.documents = roll_up(turns)[:k]
        result.turns = turns[:k]
    return result


def _spoken(cands: Sequence[Segment]) -> bool:
    """Whether the candidates are spoken turns (most have a span of audio, their words
    the ASR's) rather than text passages."""
    return 2 * sum(s.end > s.start for s in cands) > len(cands)


def _passing(segments: Iterable[Segment], filters: Mapping[str, Any]) -> list[Segment]:
    """The segments that meet the role, session, speaker and time filters."""
    keys = [k for k in filters if k in ("role", "session", "speaker")]
    after, before = filters.get("_time", (None, None))
    return [
        s
        for s in segments
        if all(getattr(s, "speaker_id" if k == "speaker" else k) == filters[k] for k in keys)
        and (after is None or s.created_at >= after)
        and (before is None or s.created_at < before)
    ]


def _in_time_order(
    turns: list[RetrievedTurn], order: str, gated: set[str] | None = None
) -> list[RetrievedTurn]:
    """ "The first thing I said": among the turns that meet every attribute of the plan
    (all evidence matched; when none does, every turn inside the speaker gate, ``gated``,
    or every turn without one), the earliest (or latest) first, then the rest by
    score."""

    def meets(t: RetrievedTurn) -> bool:
        return all(e.matched for e in t.evidence.values())

    matched = (
        [t for t in turns if meets(t)]
        or [t for t in turns if t.segment.id in (gated or ())]
        or list(turns)
    )
    ids = {id(t) for t in matched}
    sign = 1.0 if order == "first" else -1.0
    matched.sort(key=lambda t: (sign * t.segment.created_at, sign * t.segment.start))
    return matched + [t for t in turns if id(t) not in ids]


def _candidates(
    memory: AudioMemory,
    tenant: str,
    queries: Mapping[str, np.ndarray],
    filters: Mapping[str, Any],
    where: dict[str, Any] | None,
    k: int,
) -> list[str]:
    """Ids of the ``k`` nearest turns in each space of ``queries`` that pass ``filters``
    (the spaces searched side by side), space by space, each id once.

    A role alone keeps about half the turns, and Chroma's filtered search is slow on
    large collections, so a wider unfiltered search is filtered here first; the
    filtered search runs only for the spaces where that leaves too few."""
    found: dict[str, list[str]] = {}
    left = dict(queries)
    if set(filters) == {"role"}:
        wide = memory.search_spaces(tenant, queries, OVERFETCH * k)
        for space, hits in wide.items():
            kept = [h.segment.id for h in hits if h.segment.role == filters["role"]][:k]
            if len(kept) >= k or len(hits) < OVERFETCH * k:
                found[space] = kept
                del left[space]
    if left:
        for space, hits in memory.search_spaces(tenant, left, k, where).items():
            found[space] = [h.segment.id for h in hits]
    return list(dict.fromkeys(i for space in queries for i in found[space]))


def _query_vectors(
    memory: AudioMemory, tenant: str, plan: RetrievalPlan, ref: Reference | None
) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    words = _content_text(plan, ref)
    if words and ref is not None and words == ref.transcript and "text" in ref.vectors:
        out["text"] = ref.vectors["text"]  # the clip's words, embedded with the clip
    elif words:
        out["text"] = memory.perception.text.queries([words])[0]
    if plan.speaker.mode == "same" and ref is not None:
        out["speaker"] = ref.vectors["speaker"]
    for attr in ("style", "environment"):
        if plan.constraint(attr).mode == "same" and ref is not None:
            out[attr] = ref.vectors[attr]
    return out


def _content_text(plan: RetrievalPlan, ref: Reference | None) -> str | None:
    """The words content is matched on: the reference's own when the plan takes them."""
    if plan.content_from_reference and ref is not None and ref.transcript:
        return ref.transcript
    return plan.content or None


def _lexical_scores(
    cands: Sequence[Segment], words: str, pool: Sequence[Segment] | None
) -> np.ndarray:
    """BM25 of each candidate's transcript for ``words``: over the whole pool (indexed
    once) when one is given, else over the candidates the searches found."""
    if pool is None:
        return lexical.scores(cands, words, content=True)
    every = lexical.scores(pool, words, cache=True, content=True)
    at = {id(s): i for i, s in enumerate(pool)}
    return every[[at[id(s)] for s in cands]]


def _label_score(seg: Segment, attr: str, value: str) -> float:
    if attr == "style":
        return float(seg.style_labels.get(value, 0.0))
    classes = ENVIRONMENT_WORDS.get(value, ((), ()))[1]
    return max([float(seg.environment_labels.get(c, 0.0)) for c in classes] + [0.0])


def _reference_spaces(plan: RetrievalPlan) -> list[str]:
    """The spaces a reference clip is encoded in: those the plan compares it in, plus its
    voice when its style is compared (to find the speaker's baseline)."""
    spaces = [a for a in ATTRIBUTES if plan.constraint(a).mode == "same"]
    if "style" in spaces and "speaker" not in spaces:
        spaces.append("speaker")
    return spaces


def _relative_same_style(
    memory: AudioMemory,
    tenant: str,
    cands: Sequence[Segment],
    ref: Reference,
    absolute: np.ndarray,
    params: FusionParams,
) -> np.ndarray:
    """ "Same style as the clip", judged as change from each speaker's habits: when the
    clip's voice is a known speaker with a baseline, every candidate with a baseline is
    scored by the mean of its absolute style similarity and the similarity of the two
    speaker-relative style vectors."""
    encoder = memory.perception.style
    raw_ref, voice = ref.vectors.get("style_raw"), ref.vectors.get("speaker")
    if raw_ref is None or voice is None or not isinstance(encoder, RelativeStyleEncoder):
        return absolute
    baselines = memory.style_baselines(tenant, params.baseline_turns)
    known = [s for s in memory.speakers(tenant) if s.id in baselines]
    if not known:
        return absolute
    sims = np.stack([s.centroid for s in known]) @ voice
    best = int(np.argmax(sims))
    if float(sims[best]) < memory.speaker_params.match_threshold:
        return absolute
    ref_rel = encoder.vectors(raw_ref, baselines[known[best].id])[0]
    out = absolute.copy()
    for i, seg in enumerate(cands):
        raw, base = seg.vectors.get("style_raw"), baselines.get(seg.speaker_id or "")
        if raw is not None and base is not None:
            out[i] = 0.5 * (absolute[i] + float(encoder.vectors(raw, base)[0] @ ref_rel))
    return out


def _with_relative_style(
    memory: AudioMemory,
    tenant: str,
    cands: Sequence[Segment],
    value: str,
    absolute: np.ndarray,
    params: FusionParams,
) -> np.ndarray:
    """The stored (absolute) label score averaged with the label's probability relative
    to the speaker's own baseline, for turns whose speaker has one: sad for this person,
    not merely low and slow for anyone."""
    encoder = memory.perception.style
    if not isinstance(encoder, RelativeStyleEncoder):
        return absolute
    baselines = memory.style_baselines(tenant, params.baseline_turns)
    out = absolute.copy()
    for i, seg in enumerate(cands):
        raw = seg.vectors.get("style_raw")
        base = baselines.get(seg.speaker_id or "")
        if raw is None or base is None:
            continue
        relative = encoder.label_scores(raw, base).get(value)
        if relative is not None:
            out[i] = 0.5 * (absolute[i] + float(relative[0]))
    return out


def _blend(dense: np.ndarray, lex: np.ndarray, w: float, how: str) -> np.ndarray:
    """Dense and lexical content scores of the same candidates as one, ``w`` the lexical
    share: ``z`` (each z-normalised), ``minmax`` (each scaled to [0, 1] over the
    candidates) or ``rrf`` (reciprocal ranks, k = 60, ties sharing their mean rank).
    A score that is not finite counts as the lowest of its column."""
    dense, lex = _finite(dense), _finite(lex)
    if how == "z":
        return (1 - w) * _z(dense) + w * _z(lex)
    if how == "minmax":
        return (1 - w) * _minmax(dense) + w * _minmax(lex)
    if how == "rrf":
        from scipy.stats import rankdata

        return (1 - w) / (60 + rankdata(-dense)) + w / (60 + rankdata(-lex))
    raise ValueError(f"lexical_fusion {how!r}: choose z, minmax or rrf")


def _finite(raw: np.ndarray) -> np.ndarray:
    ok = np.isfinite(raw)
    if ok.all():
        return raw
    return np.where(ok, raw, raw[ok].min() if ok.any() else 0.0)


def _minmax(raw: np.ndarray) -> np.ndarray:
    span = float(raw.max() - raw.min())
    return (raw - raw.min()) / span if span > 1e-12 else np.zeros_like(raw)


def _z(raw: np.ndarray) -> np.ndarray:
    sd = float(raw.std())
    return (raw - raw.mean()) / sd if sd > 1e-9 else np.zeros_like(raw)


def _word_doubt(cands: Sequence[Segment], params: FusionParams) -> np.ndarray | None:
    """How much of the evidence against each turn's content stands (1: all of it), from
    how sure the ASR was of its words against the other candidates (see
    ``FusionParams.asr_doubt_power``); None when fewer than three turns have words to
    judge by."""
    sure = np.full(len(cands), np.nan)
    for i, s in enumerate(cands):
        if s.end > s.start and len(s.words) >= params.asr_doubt_min_words:
            probs = np.array([w.probability for w in s.words], dtype=float)
            sure[i] = float(np.clip(np.nan_to_num(probs, nan=1.0), 0.0, 1.0).mean())
    judged = np.isfinite(sure)
    if judged.sum() < 3:
        return None
    median = float(np.median(sure[judged]))
    if median <= 0:
        return None
    share = np.clip(np.where(judged, sure / median, 1.0), params.asr_doubt_floor, 1.0)
    return share**params.asr_doubt_power


def _fuse(
    cands: list[Segment],
    columns: Mapping[str, tuple[str, np.ndarray]],
    params: FusionParams,
    parts: Mapping[str, Mapping[str, np.ndarray]] | None = None,
    sure: Mapping[str, np.ndarray] | None = None,
) -> list[RetrievedTurn]:
    """Each attribute z-normalised over the candidates, then their mean plus
    ``params.min_weight`` times their minimum. ``sure`` scales an attribute's evidence
    against a turn (its negative z) by how sure the turn's own reading of it is."""
    if not columns:
        return [RetrievedTurn(s, 0.0) for s in cands]
    parts = parts or {}
    columns = {attr: (how, _finite(raw)) for attr, (how, raw) in columns.items()}
    zs = {attr: _z(raw) for attr, (_, raw) in columns.items()}
    for attr, weight in (sure or {}).items():
        zs[attr] = np.where(zs[attr] < 0, zs[attr] * weight, zs[attr])
    stack = np.stack(list(zs.values()))
    fused = stack.mean(axis=0) + (params.min_weight * stack.min(axis=0) if len(zs) > 1 else 0)
    out = []
    for i, seg in enumerate(cands):
        ev = {
            a: Evidence(
                a,
                columns[a][0],
                float(columns[a][1][i]),
                float(zs[a][i]),
                bool(zs[a][i] >= params.matched_z),
                {name: float(v[i]) for name, v in parts.get(a, {}).items()},
            )
            for a in columns
        }
        out.append(RetrievedTurn(seg, float(fused[i]), ev))
    return out


def _voice_cosines(cands: Sequence[Segment], voice: np.ndarray) -> np.ndarray:
    """Each candidate's voiceprint's cosine to ``voice`` (-1 without a usable one)."""
    norm = float(np.linalg.norm(voice))
    out = np.full(len(cands), -1.0)
    for i, s in enumerate(cands):
        v = s.vectors.get("speaker")
        if v is None or norm == 0 or not np.all(np.isfinite(v)):
            continue
        n = float(np.linalg.norm(v))
        if n > 0 and v.shape == voice.shape:
            out[i] = float(v @ voice) / (n * norm)
    return _finite(out)


def _gated(turns: list[RetrievedTurn], inside: np.ndarray) -> list[RetrievedTurn]:
    """``turns`` (in the candidates' order) with those ``inside`` the speaker gate lifted
    above the rest: each keeps its fused score plus one offset, the spread of the
    scores, so the order within each group is the fused order and the scores say the
    ranking. The speaker's evidence is matched for the turns inside and only for them,
    so what reads ``matched`` (a time order, the agent's forget) follows the gate."""
    scores = np.array([t.score for t in turns])
    lift = float(scores.max() - scores.min()) + 1.0 if inside.any() and not inside.all() else 0.0
    out = []
    for t, ok in zip(turns, inside, strict=True):
        evidence = {**t.evidence, "speaker": replace(t.evidence["speaker"], matched=bool(ok))}
        out.append(RetrievedTurn(t.segment, t.score + lift if ok else t.score, evidence))
    return out


def roll_up(turns: Sequence[RetrievedTurn]) -> list[RetrievedDocument]:
    """Recordings ranked by their best turn: a multi-speaker recording is relevant when
    the asked-for speaker says the asked-for thing in one of its turns."""
    by_doc: dict[str, list[RetrievedTurn]] = {}
    for t in turns:
        by_doc.setdefault(t.segment.recording_id, []).append(t)
    docs = [
        RetrievedDocument(rid, max(t.score for t in ts), max(ts, key=lambda t: t.score), ts)
        for rid, ts in by_doc.items()
    ]
    return sorted(docs, key=lambda d: -d.score)


__all__ = [
    "ATTRIBUTES",
    "Evidence",
    "FusionParams",
    "RecallResult",
    "Reference",
    "RetrievedDocument",
    "RetrievedTurn",
    "recall",
    "roll_up",
]
