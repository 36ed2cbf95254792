"""Natural-language instructions to retrieval plans.

``InstructionParser.parse`` is what recall and the agent call. Three planners,
chosen by ``PlannerSettings.kind``:

- ``trained`` (default): heads over the MiniLM text encoder trained on a generated
  corpus (:mod:`voxmem.retrievers.planner`; ``benchmarks train-planner``);
- ``lexicon``: the patterns and word lists below. Lexicons and patterns catch the
  wordings people use most ("this speaker", "sounds sad", "rain in the background",
  "what did ... say about X"); with a text encoder, the instruction's sentence
  embedding is also compared with descriptions of every attribute mode and value
  (thresholds in ``ParserParams``);
- ``llm``: an OpenAI-compatible endpoint (:mod:`voxmem.retrievers.planner_llm`).

A planner that fails falls back (llm -> trained -> lexicon) and says so in the
plan's notices.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from voxmem.memory.encoders.base import TextEncoder
from voxmem.retrievers.plan import Constraint, PlanNotice, RetrievalPlan
from voxmem.retrievers.vocabulary import ENVIRONMENT_WORDS, STYLE_WORDS
from voxmem.settings import PlannerSettings

PlannerKind = Literal["lexicon", "trained", "llm"]


@dataclass(frozen=True)
class ParserParams:
    #: cosine similarity above which an embedding match decides an attribute; set just
    #: above the highest similarity that unconstrained instructions of the tune pool reach
    same_threshold: float = 0.65
    target_threshold: float = 0.55


#: making a parser's trained planner, once, whichever thread asks first
_PLANNER_LOCK = threading.Lock()
_REF = (
    r"(?:this|that|the same|same|the given|the reference|the query(?:'s)?|the sample|"
    r"the example|the provided|the clip(?:'s)?|the recording(?:'s)?|the one in the clip)"
)
_PERSON = (
    r"(?:speaker|voice|person|talker|narrator|individual|guy|man|woman|lady|girl|boy|user|"
    r"caller|presenter|host|someone|somebody)"
)
_CLIP = r"(?:clip|recording|reference|sample|example|query|audio|file|snippet|excerpt)"
SPEAKER_SAME = [
    # "this speaker", "that same caller", "this particular person"
    rf"\b{_REF} (?:(?:particular|specific|exact|very|same|one) )?{_PERSON}\b",
    rf"\b(?:same|identical|matching|exact same|very same) {_PERSON}\b",
    # "the woman speaking here", "the guy in this clip", "the voice you just heard"
    rf"\b{_PERSON}(?:'s voice)? (?:(?:who is |that is )?(?:speaking|talking) )?(?:here|in "
    rf"(?:the|this|that|my) {_CLIP})\b",
    rf"\b{_PERSON} (?:(?:that|who|which) )?(?:you|i|we) (?:just )?(?:heard|hear|played|"
    r"recorded|sent|gave)\b",
    rf"\b{_PERSON} (?:as|from|of|on) (?:in )?(?:the|this|that|my) {_CLIP}\b",
    r"\bsaid by (?:him|her|them)\b",
    r"\bby (?:him|her|them)\b",
    r"\b(?:he|she) (?:say|said|says|mention|mentioned|talk|talked|talks|spoke|speak|"
    r"speaks|sound|sounded|sounds|was|were|is|are|tell|told|ask|asked|discuss|discussed)\b",
    r"\b(?:his|her) (?:voice|words|turn|remarks?)\b",
    r"\bwho(?:ever)? (?:is|was) (?:speaking|talking) (?:here|in (?:the|this) clip)\b",
    r"\bsounds? like (?:this|that|the) (?:speaker|person|voice)\b",
    r"\bsame (?:person|one) (?:who|that) (?:is|was) (?:speaking|talking)\b",
]
STYLE_SAME = [
    r"\b(?:same|similar|identical|matching) (?:\w+ )?(?:style|tone|manner|way of "
    r"speaking|delivery|emotion|mood|feeling|affect|intonation|prosody|expression)\b",
    rf"\b{_REF} (?:style|tone|manner|emotion|mood|delivery|way)\b",
    r"\b(?:said|spoken|speaking|talking) (?:like this|the same way|in the same way)\b",
    r"\b(?:sounds?|sounding) the same way\b",
    r"\bwith this (?:emotion|tone|style|mood)\b",
]
ENV_SAME = [
    r"\b(?:same|similar|identical|matching) (?:\w+ )?(?:background|environment|surroundings|"
    r"setting|place|location|room|acoustic(?:s| environment)?|ambien(?:ce|t sound)|backdrop|"
    r"background (?:noise|sound))\b",
    rf"\b{_REF} (?:background|environment|surroundings|setting|place|room|ambience)\b",
    r"\brecorded (?:in|at) the same (?:place|location|room|spot)\b",
    r"\bsame (?:noise|sounds?) (?:behind|in the background)\b",
]
CONTENT_FROM_REFERENCE = [
    r"\bcontinu(?:e|es|ation|ing)\b",
    r"\bcomes? next\b",
    r"\bfollow(?:s|ing)? (?:up|on)\b",
    r"\b(?:reply|replies|response|responds?|answers?) (?:to )?(?:this|that|the)\b",
    r"\banswers? (?:this|the|my|that) (?:spoken )?question\b",
    r"\bwhat happens next\b",
    r"\bnext (?:line|turn|utterance|sentence)\b",
    r"\b(?:same|similar) (?:content|topic|words|meaning|subject)\b",
    r"\b(?:says?|saying|said) the same (?:thing|words)\b",
]
ROLE_USER = [
    r"\bwhat did i\b",
    r"\bi (?:said|say|mentioned|told|asked)\b",
    r"\bmy (?:words|"
    r"question|request)\b",
]
ROLE_AGENT = [
    r"\byou (?:said|told|mentioned|answered|replied)\b",
    r"\bthe (?:assistant|agent"
    r"|bot)(?:'s)? (?:said|say|answer|reply|told)\b",
]
CONTENT_PATTERNS = [
    r"\b(?:say|said|says|saying|talk|talked|talks|talking|spoke|speak|speaks|mention|"
    r"mentioned|mentions|discuss|discussed|discusses|tell|told|ask|asked|complain|complained|"
    r"explain|explained|report|reported)(?:s|ed|ing|d)? (?:us |me |you |him |her |them )?"
    r"(?:about|regarding|concerning|on|of|that|when) (?P<c>.+)",
    r"\b(?:about|regarding|concerning|on the (?:topic|subject) of|related to|relating to|"
    r"mentioning|discussing|that mentions?|that talks? about|where .{1,20} talks? about) "
    r"(?P<c>.+)",
    r"\b(?:the part|the bit|the moment|the segment|the turn) (?:where|when|in which) "
    r"(?:\w+ )?(?:said|says|says that|said that|talks about|mentions) (?P<c>.+)",
    r"\bsaying (?P<c>.+)",
]
#: words that carry no content of their own in an instruction
_FILLER_WORDS = """
a an the this that these those it its of in on at to for with from by and or but as is are
was were be been being find get show give me us retrieve search look fetch play pull up
recording recordings clip clips audio segment segments part parts turn turns utterance
utterances moment moments where when which what who whom whose how did do does said say
says speaking spoken speak speaks talk talked talking voice speaker person someone
something please any some one all there here background sound sounds sounded sounding like
same similar way style tone manner emotion mood noise environment reference query sample
example given provided he she they him her them his their i my you your we our can could
would should will just also hear heard hearing audible barking ringing chirping ticking
going behind backdrop nearby near every each moments bits bit bring locate need pull which
whose while against mentions mention speech other others more have has had feature
list search look give anything everything particular specific exact very right come
across using guy man woman lady girl boy somebody feeling delivery
features featuring delivered deliver another else again talker talkers recorded instances
examples samples files ones words sentences utter uttered spoken-word kind sort type
"""
FILLER = frozenset(_FILLER_WORDS.split())
#: content words needed, without a content cue, beside a voice/style/sound constraint
MIN_BARE_CONTENT = 3


#: words that name a sound but are more often a topic; they need a background cue
AMBIGUOUS_SOUNDS = {
    "bar",
    "pub",
    "radio",
    "singing",
    "beep",
    "fridge",
    "humming",
    "buzzing",
    "fountain",
    "party",
    "restaurant",
    "cafe",
    "music",
    "song",
    "water",
    "sea",
    "river",
    "stream",
    "steps",
    "walking",
    "vehicle",
    "traffic",
    "fan",
    "storm",
    "noise",
    "static",
    "bell",
    "phone",
    "telephone",
    "clock",
    "engine",
    "motor",
    "paper",
    "camera",
    "keyboard",
    "hum",
    "buzz",
    "tick",
    "waves",
    "ocean",
    "piano",
    "guitar",
    "dog",
    "cat",
    "bird",
    "birds",
    "wind",
    "breeze",
    "alarm",
}
BACKGROUND_CUE = (
    r"\b(?:background|behind|backdrop|hear|heard|audible|noise|sound|sounds|"
    r"going on|ambien|near|nearby|outside|in the room|ringing|barking|chirping|"
    r"ticking|blaring|roaring|humming|playing)"
)


def _any(patterns: Sequence[str], text: str) -> re.Match[str] | None:
    for p in patterns:
        m = re.search(p, text)
        if m:
            return m
    return None


def _word_hit(words: Sequence[str], text: str) -> str | None:
    for w in sorted(words, key=len, reverse=True):
        if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text):
            return w
    return None


class InstructionParser:
    """Instruction (+ whether a reference clip is given) -> RetrievalPlan.

    ``planner`` chooses who reads it (default: the trained planner); ``text`` gives
    the lexicon its embedding fallback."""

    def __init__(
        self,
        text: TextEncoder | None = None,
        params: ParserParams | None = None,
        planner: PlannerKind | PlannerSettings = "trained",
        trained: Any | None = None,
        llm: Any | None = None,
    ) -> None:
        self.text = text
        self.params = params or ParserParams()
        self.settings = (
            planner if isinstance(planner, PlannerSettings) else PlannerSettings(kind=planner)
        )
        self._trained, self._llm = trained, llm
        self._protos: dict[str, tuple[list[str], np.ndarray]] = {}
        if text is not None:
            self._build_prototypes(text)

    @property
    def kind(self) -> PlannerKind:
        return self.settings.kind

    def parse(
        self, instruction: str, has_reference: bool = False, speaker_names: Sequence[str] = ()
    ) -> RetrievalPlan:
        from voxmem.errors import ModelUnavailable
        from voxmem.retrievers.planner import PlannerUnavailable

        notices: list[PlanNotice] = []
        if self.kind == "llm":
            try:
                return self._llm_planner().plan(instruction, has_reference, speaker_names)
            except PlannerUnavailable as exc:
                notices.append(PlanNotice("fallback", f"{exc}; the trained planner read it"))
        if self.kind in ("llm", "trained"):
            try:
                plan = self._trained_planner().plan(instruction, has_reference, speaker_names)
                return replace(plan, notices=(*notices, *plan.notices))
            except (PlannerUnavailable, ModelUnavailable) as exc:
                notices.append(PlanNotice("fallback", f"{exc}; the lexicon read it"))
        plan = self.parse_lexicon(instruction, has_reference, speaker_names)
        return replace(plan, notices=(*notices, *plan.notices))

    def _trained_planner(self) -> Any:
        if self._trained is None:
            with _PLANNER_LOCK:  # routes run in threads: one planner per parser
                if self._trained is None:
                    from voxmem.retrievers.planner import TrainedPlanner

                    self._trained = TrainedPlanner()
        return self._trained

    def _llm_planner(self) -> Any:
        if self._llm is None:
            from voxmem.retrievers.planner import PlannerUnavailable
            from voxmem.retrievers.planner_llm import LlmPlanner

            s = self.settings
            if not s.openai_base_url:
                raise PlannerUnavailable(
                    "the LLM planner needs an endpoint: set openai_base_url in the planner settings"
                )
            key = s.openai_api_key.get_secret_value() if s.openai_api_key else None
            self._llm = LlmPlanner(
                s.openai_base_url, s.openai_model, key, s.timeout_s, max_tokens=s.max_tokens
            )
        return self._llm

    def _build_prototypes(self, text: TextEncoder) -> None:
        same = {
            "speaker": [
                "spoken by the same person as in the reference clip",
                "the same speaker as this recording",
                "recordings of this voice",
            ],
            "style": [
                "said in the same speaking style as the reference",
                "the same tone and emotion as this clip",
                "sounding the same way as this recording",
            ],
            "environment": [
                "recorded with the same background sound as the reference",
                "the same acoustic environment as this clip",
                "the same noise in the background as here",
            ],
        }
        for attr, phrases in same.items():
            self._protos[f"same:{attr}"] = (phrases, text.queries(phrases))
        styles = [
            (label, f"spoken in a {w} way") for label, ws in STYLE_WORDS.items() for w in ws[:4]
        ]
        self._protos["target:style"] = (
            [s[0] for s in styles],
            text.queries([s[1] for s in styles]),
        )
        envs = [
            (label, f"with the sound of {w} in the background")
            for label, (ws, _) in ENVIRONMENT_WORDS.items()
            for w in ws[:4]
        ]
        self._protos["target:environment"] = (
            [e[0] for e in envs],
            text.queries([e[1] for e in envs]),
        )

    def parse_lexicon(
        self, instruction: str, has_reference: bool = False, speaker_names: Sequence[str] = ()
    ) -> RetrievalPlan:
        """The lexicon's plan. English only: an instruction it cannot read gets the
        trained planner's content-only plan and its notice."""
        from voxmem.retrievers.planner import is_english, not_english_plan

        if not is_english(instruction, speaker_names):
            return not_english_plan(instruction, speaker_names)
        text = " ".join(instruction.lower().replace("’", "'").split())
        used: list[str] = []

        role = "user" if _any(ROLE_USER, text) else "agent" if _any(ROLE_AGENT, text) else None

        speaker = Constraint()
        named = _word_hit([n.lower() for n in speaker_names], text)
        if named:
            original = next(n for n in speaker_names if n.lower() == named)
            speaker = Constraint("target", original)
            used.append(named)
        elif has_reference and (m := _any(SPEAKER_SAME, text)):
            speaker = Constraint("same")
            used.append(m.group(0))

        style = Constraint()
        if has_reference and (m := _any(STYLE_SAME, text)):
            style = Constraint("same")
            used.append(m.group(0))
        else:
            for label, words in STYLE_WORDS.items():
                hit = _word_hit(words, text)
                if hit and not (label == "fast" and "breakfast" in text):
                    style = Constraint("target", label)
                    used.extend(words)
                    break

        environment = Constraint()
        if has_reference and (m := _any(ENV_SAME, text)):
            environment = Constraint("same")
            used.append(m.group(0))
        else:
            cue = re.search(BACKGROUND_CUE, text) is not None
            for label, (words, _) in ENVIRONMENT_WORDS.items():
                hit = _word_hit(words, text)
                if hit and (cue or hit not in AMBIGUOUS_SOUNDS):
                    environment = Constraint("target", label)
                    used.extend(words)
                    break

        from_reference = has_reference and _any(CONTENT_FROM_REFERENCE, text) is not None
        constrained = any(c.mode != "any" for c in (speaker, style, environment))
        content = None if from_reference else self._content(text, used, constrained)

        plan = RetrievalPlan(
            content, from_reference, speaker, style, environment, role, instruction
        )
        return _stored_style(self._embedding_fallback(plan, text, has_reference))

    def _content(self, text: str, used: list[str], constrained: bool = False) -> str | None:
        """The words left once attribute phrases and instruction boilerplate are gone.

        Without an explicit content cue ("about", "mentions", ...), an instruction that
        already asks for a voice, style or sound keeps leftover words as content only when
        there are at least ``MIN_BARE_CONTENT`` of them: one or two stray words ("roof" of
        "rain on the roof") are more often part of the attribute phrase than a topic."""
        m = _any(CONTENT_PATTERNS, text)
        candidate = m.group("c") if m else text
        for phrase in sorted(used, key=len, reverse=True):
            candidate = re.sub(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", " ", candidate)
        candidate = re.sub(
            r"\b(?:in the background|behind (?:them|him|her|it)|"
            r"in (?:a|an|the) \w+ (?:voice|tone|way|manner))\b",
            " ",
            candidate,
        )
        words = [w.removesuffix("'s") for w in re.findall(r"[a-z0-9'-]+", candidate)]
        words = [w for w in words if w not in ("", "'", "-")]
        content_words = [w for w in words if w not in FILLER]
        if not content_words or (not m and constrained and len(content_words) < MIN_BARE_CONTENT):
            return None
        # keep the phrase from its first to its last content word
        first = words.index(content_words[0])
        last = len(words) - 1 - words[::-1].index(content_words[-1])
        phrase = " ".join(words[first : last + 1]).strip(" ?.!,")
        return phrase or None

    def _embedding_fallback(
        self, plan: RetrievalPlan, text: str, has_reference: bool
    ) -> RetrievalPlan:
        if self.text is None:
            return plan
        q = self.text.queries([text])[0]
        updates: dict[str, Constraint] = {}
        for attr in ("speaker", "style", "environment"):
            if plan.constraint(attr).mode != "any":
                continue
            if has_reference:
                _, vecs = self._protos[f"same:{attr}"]
                if float(np.max(vecs @ q)) >= self.params.same_threshold:
                    updates[attr] = Constraint("same")
                    continue
            key = f"target:{attr}"
            if key in self._protos:
                labels, vecs = self._protos[key]
                sims = vecs @ q
                best = int(np.argmax(sims))
                if float(sims[best]) >= self.params.target_threshold:
                    updates[attr] = Constraint("target", labels[best])
        if not updates:
            return plan
        return replace(plan, **updates)


def _stored_style(plan: RetrievalPlan) -> RetrievalPlan:
    """A style no stored turn carries (crying, laughing, shouting) asked for as the
    nearest stored one, with a notice."""
    from voxmem.retrievers.planner import MAPPED_STYLES

    label = plan.style.value
    if plan.style.mode != "target" or label not in MAPPED_STYLES:
        return plan
    notice = PlanNotice(
        "unstored_label",
        f"no stored turn carries the style {label!r}; asked for {MAPPED_STYLES[label]!r}, "
        "the nearest stored style",
        asked=label,
    )
    return replace(
        plan,
        style=Constraint("target", MAPPED_STYLES[label]),
        notices=(*plan.notices, notice),
    )
