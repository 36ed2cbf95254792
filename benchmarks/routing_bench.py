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

from voxmem.benchmarks.pools import FrozenPoolChanged, get_pool, load_routing_pool
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
    r = router.route(item["text"], NAMES)
    out = {"decision": r.needs_memory == item["memory"], "intent": r.intent == item["intent"]}
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
        confusion[f"{item['intent']}->{got.intent}"] += 1
    elapsed = time.perf_counter() - start
    order = ["decision", "intent", "plan", *FIELDS]
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
    report.notes.append(
        "test pool: 'decision' is memory vs no memory over every request; 'plan' and the "
        "fields are over memory requests (whole plan = intent and every field right). "
        "Figures only; the pool's errors are not read to change the router."
    )
    return report


__all__ = ["FrozenPoolChanged", "judge", "load_pool", "run_routing"]
