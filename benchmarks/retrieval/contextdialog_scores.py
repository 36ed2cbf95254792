"""ContextDialog's figures: answer scoring (SQuAD normalisation, containment, token
F1), supporting-utterance recall, and the report's aggregates, routing, latencies and
plots, from one record per question."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from voxmem.benchmarks.retrieval import common

#: conditions that rank the history (recall is measured for these)
RANKERS = ("random", "bm25", "dense", "instruct")
SIDES = ("user", "assistant")

# -- answer scoring -----------------------------------------------------------------------


def normalize_answer(text: str) -> str:
    """SQuAD's normalisation: lower case, no punctuation, no articles, single spaces."""
    text = text.lower()
    text = "".join(" " if ch in string.punctuation else ch for ch in text)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def contains_answer(reply: str, answer: str) -> float:
    """1.0 when the normalised answer occurs in the normalised reply as whole words."""
    a, r = normalize_answer(answer), normalize_answer(reply)
    return float(bool(a) and re.search(rf"(?:^| ){re.escape(a)}(?: |$)", r) is not None)


def token_f1(reply: str, answer: str) -> float:
    """SQuAD token F1 between the reply and the reference answer."""
    pred, gold = normalize_answer(reply).split(), normalize_answer(answer).split()
    common_ = Counter(pred) & Counter(gold)
    same = sum(common_.values())
    if not pred or not gold or same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(gold)
    return 2 * precision * recall / (precision + recall)


def recall_at(ranking: Sequence[str], support: str, k: int) -> float:
    return float(support in ranking[:k])


@dataclass
class Asked:
    """What happened to one question."""

    qa_id: str
    split: str
    conv_id: str
    side: str
    question: str
    answer: str
    support: str
    transcript: str = ""
    route: dict[str, Any] = field(default_factory=dict)
    speaker_known: bool = False
    #: user-side questions: the asking voice was taken for the supporting turn's speaker
    speaker_is_support: bool | None = None
    #: retriever -> utterance ids, best first
    rankings: dict[str, list[str]] = field(default_factory=dict)
    #: answer condition -> reply
    replies: dict[str, str] = field(default_factory=dict)
    agent_timings: dict[str, float] = field(default_factory=dict)
    #: retriever -> seconds to rank; condition -> seconds to answer
    rank_s: dict[str, float] = field(default_factory=dict)
    answer_s: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "qa_id": self.qa_id,
            "split": self.split,
            "conv_id": self.conv_id,
            "side": self.side,
            "question": self.question,
            "transcript": self.transcript,
            "answer": self.answer,
            "support": self.support,
            "route": self.route,
            "speaker_known": self.speaker_known,
            "speaker_is_support": self.speaker_is_support,
            "rankings": {r: v[:5] for r, v in self.rankings.items()},
            "replies": self.replies,
            "agent_timings": self.agent_timings,
            "rank_s": self.rank_s,
            "answer_s": self.answer_s,
        }


# -- figures -------------------------------------------------------------------------------


def _answer_conditions(conditions: Sequence[str]) -> list[str]:
    out = []
    for c in conditions:
        out += {"dense": ["dense@1", "dense@3"], "bm25": ["bm25@3"], "random": []}.get(c, [c])
    return out


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if values else float("nan")


def aggregate(
    asked: Sequence[Asked], conditions: Sequence[str], splits: Sequence[str]
) -> dict[str, Any]:
    """``recall[retriever][split][side]`` and ``answers[condition][split][side]``, with
    ``all`` for every split and side pooled."""
    groups: dict[tuple[str, str], list[Asked]] = {}
    for a in asked:
        for s in (a.split, "all"):
            for side in (a.side, "all"):
                groups.setdefault((s, side), []).append(a)
    keys = [(s, side) for s in (*splits, "all") for side in (*SIDES, "all")]
    recall: dict[str, Any] = {}
    for r in (r for r in RANKERS if r in conditions):
        recall[r] = {}
        for s, side in keys:
            rows = groups.get((s, side), [])
            recall[r].setdefault(s, {})[side] = {
                "R@1": _mean([recall_at(a.rankings.get(r, []), a.support, 1) for a in rows]),
                "R@3": _mean([recall_at(a.rankings.get(r, []), a.support, 3) for a in rows]),
                "questions": len(rows),
            }
    answers: dict[str, Any] = {}
    for c in _answer_conditions(conditions):
        answers[c] = {}
        for s, side in keys:
            rows = groups.get((s, side), [])
            answers[c].setdefault(s, {})[side] = {
                "containment": _mean([contains_answer(a.replies[c], a.answer) for a in rows]),
                "F1": _mean([token_f1(a.replies[c], a.answer) for a in rows]),
                "questions": len(rows),
            }
    return {"recall": recall, "answers": answers}


def latency(asked: Sequence[Asked], info: Mapping[str, Any]) -> dict[str, Any]:
    parts = ("perceive", "route", "recall", "first_token", "first_audio", "total")
    agent = {}
    for p in parts:
        vals = [a.agent_timings[p] for a in asked if a.agent_timings.get(p, -1.0) >= 0]
        agent[p] = {"mean_s": _mean(vals), "p90_s": _p90(vals), "n": len(vals)}
    rank = {
        r: {"mean_s": _mean(v), "p90_s": _p90(v)}
        for r in RANKERS
        if (v := [a.rank_s[r] for a in asked if r in a.rank_s])
    }
    answer = {
        c: {"mean_s": _mean(v), "p90_s": _p90(v)}
        for c in {c for a in asked for c in a.answer_s}
        if (v := [a.answer_s[c] for a in asked if c in a.answer_s])
    }
    return {
        "agent turn (instruct), per question": agent,
        "ranking per question (instruct: the whole agent turn)": rank,
        "answer per question (instruct: the whole agent turn)": dict(sorted(answer.items())),
        "observe user turn": {"mean_s": _mean(info["observe_user_s"])},
        "observe agent turn": {"mean_s": _mean(info["observe_agent_s"])},
    }


def _p90(values: Sequence[float]) -> float:
    return float(np.percentile(values, 90)) if values else float("nan")


def routing(asked: Sequence[Asked]) -> dict[str, Any]:
    """What the agent's router made of the questions (never tuned on them)."""
    expected = {"user": "self", "assistant": "agent"}
    out: dict[str, Any] = {}
    for side in (*SIDES, "all"):
        rows = [a for a in asked if side in (a.side, "all")]
        if not rows:
            continue
        out[side] = {
            "questions": len(rows),
            "intent": dict(Counter(str(a.route.get("intent")) for a in rows)),
            "asked_about": dict(Counter(str(a.route.get("speaker")) for a in rows)),
            "asked_about as expected": _mean(
                [float(a.route.get("speaker") == expected[a.side]) for a in rows]
            ),
            "asking voice matched a known speaker": _mean([float(a.speaker_known) for a in rows]),
        }
        judged = [float(a.speaker_is_support) for a in rows if a.speaker_is_support is not None]
        if judged:
            out[side]["asking voice taken for the supporting turn's speaker"] = _mean(judged)
    return out


def bar_plot(
    values: Mapping[str, Mapping[str, float]],
    path: Path,
    title: str,
    ylabel: str,
    published: tuple[str, float] | None = None,
) -> Path:
    """Grouped bars, one group per side, one bar per retriever or condition."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(values)
    groups = ["user", "assistant", "all"]
    fig, ax = plt.subplots(figsize=(8.5, 4.2))
    width = 0.8 / max(1, len(names))
    x = np.arange(len(groups))
    for i, n in enumerate(names):
        ys = [values[n].get(g, np.nan) for g in groups]
        ax.bar(x + (i - (len(names) - 1) / 2) * width, ys, width, label=n)
    if published is not None:
        label, value = published
        ax.plot([x[-1] - 0.4, x[-1] + 0.4], [value] * 2, "k--", lw=1, label=label)
    ax.set_xticks(x, groups)
    ax.set_ylim(0, 1.05)
    return common._finish(fig, ax, path, title, ylabel)
