"""``benchmarks run routing``: the agent's memory/no-memory decision and the plan it makes,
on a frozen test pool of conversational requests written apart from the router.

The pool (``benchmarks/data/routing/test.jsonl``) has the role ``test``: it was written
before the router was run, by a writer who had not seen its rules, and is frozen by the
content hash declared in ``voxmem.benchmarks.pools``, checked at run time. Its errors are
not read to change the router: the report gives counts only. The router's own tuning
wordings live in ``tests/test_agent_route.py``.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console

from voxmem.benchmarks.pools import (
    PERSONAL_KINDS,
    POOLS,
    FrozenPoolChanged,
    get_pool,
    load_personal_pool,
    load_routing_pool,
)
from voxmem.benchmarks.report import Report, versions

#: the frozen test pool (role, file and sha256 in ``voxmem.benchmarks.pools``)
POOL = get_pool("routing/test")
#: the known speakers the pool was written for
NAMES = list(POOL.speaker_names)
FIELDS = ("speaker", "role", "style", "environment", "time", "topic")


def load_pool() -> list[dict[str, Any]]:
    """The routing test pool, refused (``FrozenPoolChanged``) if its bytes changed."""
    return load_routing_pool(POOL)


def judge(router: Any, item: dict[str, Any]) -> dict[str, bool]:
    """Which parts of the route match the item's labels. Plan fields are judged on
    memory requests only."""
    from voxmem.agent.route import MEMORY_INTENTS

    r = router.route(item["text"], NAMES)
    # the pool's requests come with no memory: a tentative route (a question no rule of
    # the past matched) finds nothing to hold its words, and the agent answers it as
    # chat; ``decision_if_held`` counts it as a memory request, as a memory that holds
    # its words would
    intent = "chat" if r.tentative else r.intent
    out = {
        "decision": (intent in MEMORY_INTENTS) == item["memory"],
        "decision_if_held": r.needs_memory == item["memory"],
        "intent": intent == item["intent"],
    }
    if not item["memory"]:
        return out
    plan = r.plan
    want_speaker = "agent" if item["role"] == "agent" else item["speaker"]
    out["speaker"] = r.speaker == want_speaker
    out["role"] = (r.speaker == "agent") == (item["role"] == "agent")
    style = plan.style.value if plan and plan.style.mode == "target" else None
    env = plan.environment.value if plan and plan.environment.mode == "target" else None
    out["style"] = style == item["style"]
    out["environment"] = env == item["environment"]
    out["time"] = r.time == item["time"]
    content = (plan.content or "") if plan else ""
    topic = item["topic"]
    out["topic"] = (not content) if topic is None else topic.lower() in content.lower()
    out["plan"] = all(out[f] for f in FIELDS) and out["intent"]
    return out


#: the frozen pool of later questions after a short history (``personal`` rows)
PERSONAL_POOL = "routing/personal_test"


def judge_personal(router: Any, item: dict[str, Any]) -> dict[str, bool]:
    """Whether the agent would look in its memory for ``item``'s question after its
    history, as the agent decides: the router's rules, and for a tentative route (a
    question no rule of the past matched) whether a remembered statement holds half its
    content words (``memory_holds`` on the route's ``terms``). The memory holds the
    history's turns, spoken (the asker's own turns when the route asks about the asker,
    the agent's when it asks about the agent); a history is shorter than the ten turns
    the agent searches for a tentative route, so all of them are searched. Time words
    are not applied (the history has no times). ``rules_only``: the same without the
    tentative routes."""
    from voxmem.agent.route import memory_holds

    r = router.route(item["question"], ())
    history = item["history"]
    if r.needs_memory and r.tentative:
        role = {"self": "user", "agent": "agent"}.get(r.speaker)
        turns = [h["text"] for h in history if role is None or h["role"] == role]
        decided = memory_holds(r.terms, turns)
    else:
        decided = r.needs_memory
    rules = r.needs_memory and not r.tentative
    return {"decision": decided == item["memory"], "rules_only": rules == item["memory"]}


def score_personal(router: Any, items: list[dict[str, Any]]) -> dict[str, Any]:
    """Decision accuracy (with and without the tentative routes) over every question,
    per kind, and over memory / other questions."""
    right: Counter[str] = Counter()
    rules: Counter[str] = Counter()
    total: Counter[str] = Counter()
    wrong: list[dict[str, Any]] = []
    for item in items:
        v = judge_personal(router, item)
        for part in ("all", item["kind"], "memory" if item["memory"] else "not memory"):
            total[part] += 1
            right[part] += int(v["decision"])
            rules[part] += int(v["rules_only"])
        if not v["decision"]:
            wrong.append(item)
    parts = ["all", "memory", "not memory", *(k for k in PERSONAL_KINDS if total[k])]
    return {
        "parts": parts,
        "accuracy": {p: right[p] / total[p] for p in parts},
        "rules_only": {p: rules[p] / total[p] for p in parts},
        "counts": {p: [right[p], rules[p], total[p]] for p in parts},
        "wrong": wrong,
    }


def run_routing(*, out: Path, seed: int, quick: bool, console: Console) -> Report:
    from voxmem.agent.route import Router

    items = load_pool()
    router = Router(agent_name="Vox")
    report = Report(
        "routing",
        "frozen test pool (written apart from the router, never used to tune it)",
        ["part", "accuracy", "right", "n"],
        meta={"versions": versions(), "pool": POOL.source, "sha256": POOL.sha256},
    )
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    confusion: Counter[str] = Counter()
    start = time.perf_counter()
    for item in items:
        verdict = judge(router, item)
        for part, ok in verdict.items():
            total[part] += 1
            right[part] += int(ok)
        got = router.route(item["text"], NAMES)
        confusion[f"{item['intent']}->{'tentative ' if got.tentative else ''}{got.intent}"] += 1
    elapsed = time.perf_counter() - start
    order = ["decision", "decision_if_held", "intent", "plan", *FIELDS]
    for part in order:
        if total[part]:
            report.rows.append(
                {
                    "part": part,
                    "accuracy": right[part] / total[part],
                    "right": right[part],
                    "n": total[part],
                }
            )
    report.results = {
        "accuracy": {p: right[p] / total[p] for p in order if total[p]},
        "counts": {p: [right[p], total[p]] for p in order if total[p]},
        "confusion": dict(sorted(confusion.items())),
    }
    report.timings["total_s"] = elapsed
    report.timings["per_request_ms"] = 1000 * elapsed / (2 * max(1, len(items)))
    if PERSONAL_POOL in POOLS:
        pool = get_pool(PERSONAL_POOL)
        scored = score_personal(router, load_personal_pool(pool))
        for part in scored["parts"]:
            r_, rules_, n = scored["counts"][part]
            report.rows.append(
                {
                    "part": f"after a history: {part} (rules alone {rules_ / n:.3f})",
                    "accuracy": r_ / n,
                    "right": r_,
                    "n": n,
                }
            )
        report.results["personal"] = {
            "pool": pool.source,
            "sha256": pool.sha256,
            "accuracy": scored["accuracy"],
            "rules_only": scored["rules_only"],
            "counts": scored["counts"],
        }
        report.notes.append(
            "'after a history': the look-in-memory decision for a later question after a "
            "short history (routing/personal_test, frozen, written apart from the router): "
            "the rules, and for a question no rule of the past matched (a tentative "
            "route) whether a remembered statement holds half its content words; 'rules "
            "alone' without those questions. Figures only."
        )
    report.notes.append(
        "test pool: 'decision' is memory vs no memory over every request, as the agent "
        "decides with nothing remembered (a tentative route, a question no rule of the "
        "past matched, is then chat); 'decision_if_held' counts tentative routes as "
        "memory requests, as a memory holding their words would; 'plan' and the fields "
        "are over memory requests (whole plan = intent and every field right). Figures "
        "only; the pool's errors are not read to change the router."
    )
    return report


def spoken(items: list[dict[str, Any]], cache: Path) -> list[dict[str, Any]]:
    """``items`` with each question as the speech recognizer hears it: spoken by the
    benchmark voices in turn (rendered clips cached in ``cache``) and transcribed by the
    settings' ASR (whisper base by default), as a spoken turn reaches the router. ASR
    ends many questions with a full stop, and mishears some words."""
    from voxmem.benchmarks.retrieval.contextdialog_mini import USER_VOICES
    from voxmem.benchmarks.synth import Utterance, render
    from voxmem.memory.encoders.factory import transcriber
    from voxmem.settings import Settings

    asr = transcriber(Settings())
    out = []
    for n, item in enumerate(items):
        voice = USER_VOICES[n % len(USER_VOICES)]
        heard = asr.transcribe(render(Utterance(item["question"], voice), cache))
        out.append({**item, "question": str(getattr(heard, "text", heard)).strip()})
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m voxmem.benchmarks.routing_bench --pool routing/personal_dev``: the
    decision figures on a personal pool; ``--spoken`` on its questions as speech
    recognition gives them (a few minutes); ``--errors`` lists the wrong questions of a
    pool that is not a test pool."""
    import argparse

    from voxmem.agent.route import Router
    from voxmem.settings import Settings

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--pool", default="routing/personal_dev")
    ap.add_argument("--errors", action="store_true")
    ap.add_argument("--spoken", action="store_true")
    args = ap.parse_args(argv)
    pool = get_pool(args.pool)
    if args.errors and pool.role == "test":
        ap.error(f"{pool.name} is a test pool: its errors are not read")
    items = load_personal_pool(pool)
    if args.spoken:
        items = spoken(items, Settings().cache_dir / "clips" / "routing")
    scored = score_personal(Router(agent_name="Vox"), items)
    for part in scored["parts"]:
        r_, rules_, n = scored["counts"][part]
        print(f"{part:12s} {r_ / n:.3f} ({r_}/{n})  rules alone {rules_ / n:.3f}")
    if args.errors:
        for item in scored["wrong"]:
            print(f"{item['id']} {item['kind']}: {item['question']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["FrozenPoolChanged", "judge", "judge_personal", "load_pool", "run_routing"]
