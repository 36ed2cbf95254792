"""What an instruction asks for, as a plan the retriever can execute."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Mode = Literal["any", "same", "target"]
Order = Literal["first", "latest"]
ATTRIBUTES: tuple[str, ...] = ("speaker", "style", "environment")


@dataclass(frozen=True)
class Constraint:
    """``any``: unconstrained; ``same``: as in the reference clip; ``target``: ``value``."""

    mode: Mode = "any"
    value: str | None = None

    def __str__(self) -> str:
        return self.mode if self.mode != "target" else f"target:{self.value}"


@dataclass(frozen=True)
class TimeWindow:
    """When the asked-for turns were said: one session, a span of storage times
    (``after <= created_at < before``, seconds since the epoch), and whether the
    earliest or the latest matching turn is wanted ("the first thing I said")."""

    session: str | None = None
    after: float | None = None
    before: float | None = None
    order: Order | None = None
    #: the words' meaning, for reports: "today", "last_session", "before_break", ...
    label: str | None = None

    @property
    def active(self) -> bool:
        return any(x is not None for x in (self.session, self.after, self.before, self.order))

    def __str__(self) -> str:
        return self.label or ("first" if self.order == "first" else self.order or "any")


NoticeKind = Literal[
    "english_only",
    "other_language",
    "no_reference",
    "unstored_label",
    "unknown_speaker",
    "fallback",
    "clip_as_content",
]


@dataclass(frozen=True)
class PlanNotice:
    """Something the planner could not do as asked, or read into a request, said
    plainly: an instruction in a language it cannot read, a "same as the clip" without
    a clip, a label no stored turn carries, a name nobody has, a planner that failed
    and was replaced, a clip with nothing asked of it taken as its own words."""

    kind: NoticeKind
    message: str
    #: for ``unstored_label``: the label as asked ("crying"), the plan carrying the
    #: stored one searched instead ("sad"); for ``unknown_speaker``: the name as heard,
    #: where the planner read one
    asked: str | None = None


@dataclass(frozen=True)
class RetrievalPlan:
    """Content to match plus one constraint per attribute, and hard filters."""

    content: str | None = None
    #: match the reference clip's own words (continuation, "answers this question")
    content_from_reference: bool = False
    speaker: Constraint = field(default_factory=Constraint)
    style: Constraint = field(default_factory=Constraint)
    environment: Constraint = field(default_factory=Constraint)
    role: str | None = None
    instruction: str = ""
    time: TimeWindow = field(default_factory=TimeWindow)
    notices: tuple[PlanNotice, ...] = ()

    def constraint(self, attribute: str) -> Constraint:
        value: Constraint = getattr(self, attribute)
        return value

    @property
    def needs_reference(self) -> bool:
        return self.content_from_reference or any(
            self.constraint(a).mode == "same" for a in ATTRIBUTES
        )

    def describe(self) -> str:
        parts = []
        if self.content:
            parts.append(f"content {self.content!r}")
        if self.content_from_reference:
            parts.append("content like the reference")
        parts += [
            f"{a} {self.constraint(a)}" for a in ATTRIBUTES if self.constraint(a).mode != "any"
        ]
        if self.role:
            parts.append(f"role {self.role}")
        if self.time.active:
            parts.append(f"time {self.time}")
        return "; ".join(parts) or "anything"
