"""ContextDialog: spoken multi-turn context recall, answered by the agent end to end.

For each dialogue a fresh tenant of one agent is fed the history through the agent's
own path: user turns as audio (``VoiceAgent.observe(audio=...)``: perceived with the
real models and remembered), assistant turns as the dataset's text
(``observe(text=..., role="agent")``: spoken in the agent's voice and remembered as
its turns). Then each spoken question goes through the whole graph
(``VoiceAgent.turn``): perceive, route, recall, respond, speak.

Compared on the same memories, with the same responder (the one the settings name):

- ``none``: the responder with the recent dialogue window only, no recalled turns;
- ``random``: a seeded random order of the history (chance, recall only);
- ``dense``: the paper's RAG, text embeddings of the question's transcript against
  the history's transcripts; answered with its top 1 (``dense@1``) and top 3
  (``dense@3``) utterances;
- ``bm25``: BM25 over the same transcripts, answered with its top 3;
- ``instruct``: the agent itself (its router's plan, voxmem's recall, its reply);
- ``oracle``: the supporting utterance given to the responder (an upper bound).

The baselines rank the history's stored segments (the question turns the agent
remembers are left out) with the question as the agent transcribed it. A ranking is
turned into utterances (a segment belongs to the utterance whose observe stored it;
an utterance's rank is its best segment's). Metrics: supporting-utterance recall@1
and @3; answer containment of the normalised reference answer and SQuAD token F1;
split by user-side and assistant-side questions and by split; latencies per question.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from voxmem.benchmarks.registry import Options
from voxmem.benchmarks.report import Report, versions
from voxmem.benchmarks.retrieval import common, harness
from voxmem.benchmarks.retrieval.contextdialog_data import (
    SPLITS,
    Dialogue,
    Question,
    Split,
    load_split,
    splits_in,
)
from voxmem.benchmarks.retrieval.contextdialog_mini import MINI_VERSION, write_mini
from voxmem.benchmarks.retrieval.contextdialog_scores import (
    SIDES,
    Asked,
    aggregate,
    bar_plot,
    latency,
    routing,
)
from voxmem.errors import BenchmarkDataError
from voxmem.memory.records import UnknownTenant

#: what ``--retrievers`` may name
CONDITIONS = ("none", "random", "bm25", "dense", "instruct", "oracle")
SESSION = "dialogue"
PUBLISHED = {
    "source": "ContextDialog (ACL 2025), on its real data (MultiDialog dialogues); a "
    "different dataset from any mini edition",
    "dense RAG (e5-large-v2 over ASR transcripts) top-1 supporting-utterance recall": 0.58,
    "LLM-judge score 1-5, open voice models": [2.0, 2.8],
    "LLM-judge score 1-5, their text backbones": [4.0, 4.1],
    "finding": "questions about the user's own past words are answered worse than "
    "questions about the assistant's",
}


# -- one run -------------------------------------------------------------------------------


@dataclass
class History:
    """One dialogue as the agent stored it."""

    tenant: str
    #: segment id -> utterance id
    utterance_of: dict[str, str]
    #: utterance id -> its stored segments, in order
    segments: dict[str, list[Any]]
    pool: list[Any]
    #: utterances that stored nothing (no speech heard), with the reason
    missing: dict[str, str]
    user_s: list[float]
    agent_s: list[float]


def _tenant(split: str, conv: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "-", conv)
    return f"{split}.{safe}"[:64]


async def _observe(agent: Any, dialogue: Dialogue, tenant: str, flush_s: float) -> History:
    memory = agent.memory
    utterance_of: dict[str, str] = {}
    segments: dict[str, list[Any]] = {}
    missing: dict[str, str] = {}
    user_s: list[float] = []
    agent_s: list[float] = []
    for u in dialogue.utterances:
        t0 = time.perf_counter()
        if u.sender == "human":
            heard = await agent.observe(tenant, SESSION, audio=u.audio)
            if heard is not None and heard.problem:
                missing[u.utterance_id] = heard.problem
        else:
            await agent.observe(tenant, SESSION, text=u.value, role="agent")
        # each observe's writes are queued: wait, so that the new segments are this
        # utterance's
        await asyncio.to_thread(agent.flush, tenant, flush_s)
        (user_s if u.sender == "human" else agent_s).append(time.perf_counter() - t0)
        try:
            stored = memory.list(tenant, session=SESSION, limit=100_000)
        except UnknownTenant:  # nothing stored yet
            stored = []
        new = [s for s in stored if s.id not in utterance_of]
        for s in new:
            utterance_of[s.id] = u.utterance_id
        if not new and u.utterance_id not in missing:
            missing[u.utterance_id] = "nothing stored"
    pool = memory.list(tenant, session=SESSION, limit=100_000, vectors=True)
    for s in pool:
        segments.setdefault(utterance_of[s.id], []).append(s)
    return History(tenant, utterance_of, segments, pool, missing, user_s, agent_s)


async def _answer(agent: Any, prompt: Any) -> str:
    pieces = [p async for p in agent.responder.stream(prompt)]
    return "".join(pieces).strip()


async def _ask(
    agent: Any,
    q: Question,
    split: str,
    history: History,
    conditions: Sequence[str],
    seed: int,
) -> Asked:
    from voxmem.agent.respond import Prompt
    from voxmem.retrievers.baselines import Query
    from voxmem.retrievers.recall import RetrievedTurn

    asked = Asked(
        q.qa_id, split, q.conv_id, q.side, q.question, q.answer, q.supporting_utterance_id
    )
    window = agent.settings.agent.history_turns
    before = await agent.dialogue(history.tenant, SESSION)
    t0 = time.perf_counter()
    result = await agent.turn(history.tenant, SESSION, audio=q.audio)
    asked.rank_s["instruct"] = time.perf_counter() - t0
    asked.transcript = result.transcript
    asked.route = {k: result.route.get(k) for k in ("intent", "speaker", "time", "plan", "why")}
    asked.speaker_known = result.speaker_id is not None
    if q.side == "user" and history.segments.get(q.supporting_utterance_id):
        said_by = history.segments[q.supporting_utterance_id][0].speaker_id
        asked.speaker_is_support = result.speaker_id is not None and result.speaker_id == said_by
    asked.agent_timings = {k: float(v) for k, v in result.timings.items()}
    asked.rankings["instruct"] = harness.keys_in_order(
        (h.turn_id for h in result.hits), history.utterance_of
    )
    asked.replies["instruct"] = result.reply
    asked.answer_s["instruct"] = float(result.timings.get("total", 0.0))
    chosen: dict[str, list[str]] = {}
    for r in ("random", "bm25", "dense"):
        if r not in conditions:
            continue
        t0 = time.perf_counter()
        query = Query(result.transcript, seed=seed, id=q.qa_id, pool=history.pool)
        ranking = harness.ranked_keys(r, agent.memory, history.tenant, query, history.utterance_of)
        asked.rank_s[r] = time.perf_counter() - t0
        asked.rankings[r] = ranking
        chosen[r] = ranking
    base = {
        "user_text": result.transcript,
        "speaker_name": result.speaker_name,
        "asked_about": result.route.get("speaker") or "any",
        "history": before[-window:] if window else [],
        "agent_name": agent.name,
        "session": SESSION,
    }
    answers: dict[str, list[str]] = {}
    if "none" in conditions:
        answers["none"] = []
    if "dense" in conditions:
        answers["dense@1"], answers["dense@3"] = chosen["dense"][:1], chosen["dense"][:3]
    if "bm25" in conditions:
        answers["bm25@3"] = chosen["bm25"][:3]
    if "oracle" in conditions:
        answers["oracle"] = [q.supporting_utterance_id]
    for cond, utts in answers.items():
        segs = [s for u in utts for s in history.segments.get(u, [])]
        recalled = agent.describe_hits(history.tenant, [RetrievedTurn(s, 1.0) for s in segs])
        prompt = Prompt(
            intent="chat" if cond == "none" else "recall",
            recalled=recalled,
            now=time.time(),
            **base,
        )
        t0 = time.perf_counter()
        asked.replies[cond] = await _answer(agent, prompt)
        asked.answer_s[cond] = time.perf_counter() - t0
    return asked


async def _run_all(
    splits: Sequence[Split],
    settings: Any,
    conditions: Sequence[str],
    seed: int,
    console: Console,
    timer: common.Timer,
) -> tuple[list[Asked], dict[str, Any]]:
    from voxmem.agent import VoiceAgent
    from voxmem.memory.store import AudioMemory

    scratch = Path(tempfile.mkdtemp(prefix="voxmem-contextdialog-"))
    settings = settings.model_copy(update={"data_dir": scratch})
    memory = AudioMemory.open(scratch, settings=settings)
    agent = VoiceAgent(memory, settings=settings)
    asked: list[Asked] = []
    info: dict[str, Any] = {"missing": {}, "observe_user_s": [], "observe_agent_s": []}
    flush_s = settings.agent.flush_timeout_s
    try:
        async with agent:
            t0 = time.perf_counter()
            await asyncio.to_thread(agent.warm_up)
            timer.add("model loading", t0)
            info["responder"] = agent.responder.name
            total = sum(len(s.questions) for s in splits)
            with common.progress(console) as bar:
                task = bar.add_task("ContextDialog", total=total)
                for split in splits:
                    for conv, dialogue in split.dialogues.items():
                        tenant = _tenant(split.name, conv)
                        t0 = time.perf_counter()
                        history = await _observe(agent, dialogue, tenant, flush_s)
                        timer.add("history", t0)
                        info["missing"].update(history.missing)
                        info["observe_user_s"] += history.user_s
                        info["observe_agent_s"] += history.agent_s
                        t0 = time.perf_counter()
                        for q in (q for q in split.questions if q.conv_id == conv):
                            asked.append(
                                await _ask(agent, q, split.name, history, conditions, seed)
                            )
                            bar.advance(task)
                        timer.add("questions", t0)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return asked, info


# -- the runner ------------------------------------------------------------------------------


def run_contextdialog(
    *,
    out: Path,
    seed: int,
    quick: bool,
    console: Console,
    data_dir: Path | None,
    options: Options,
) -> Report:
    start = time.perf_counter()
    chosen = list(options.splits or SPLITS)
    unknown = [s for s in chosen if s not in SPLITS]
    if unknown:
        raise BenchmarkDataError(f"unknown split {', '.join(unknown)}; splits: {', '.join(SPLITS)}")
    conditions = common.check_retrievers(options.retrievers, CONDITIONS)
    settings, folder, edition = common.data_folder(
        "contextdialog",
        "ContextDialog",
        write_mini,
        MINI_VERSION,
        data_dir=data_dir,
        seed=seed,
        quick=quick,
        console=console,
        wordings=options.wordings,
    )
    used = common.wordings_used(options.wordings, data_dir)
    if data_dir is not None:
        present = splits_in(folder)
        chosen = [s for s in chosen if s in present] if options.splits is None else chosen
        if not chosen:
            raise BenchmarkDataError(
                f"{folder}: no ContextDialog split ({', '.join(SPLITS)}) in either layout"
            )
    splits = [load_split(folder, s, options.limit) for s in chosen]
    timer = common.Timer()
    asked, info = asyncio.run(_run_all(splits, settings, conditions, seed, console, timer))
    figures = aggregate(asked, conditions, chosen)
    report = Report(
        "contextdialog",
        edition,
        ["split", "side", "retriever", "questions", "R@1", "R@3", "containment", "F1"],
        meta={
            "versions": versions("faster-whisper", "langgraph", "bm25s"),
            "seed": seed,
            "wordings": used,
            "responder": info.get("responder"),
            "asr": settings.asr.model_dump(mode="json", include={"backend", "variant", "language"}),
        },
    )
    for s in (*chosen, "all"):
        for side in (*SIDES, "all") if s == "all" else ("all",):
            for c in ("none", "random", "bm25@3", "dense@1", "dense@3", "instruct", "oracle"):
                ranker = c.split("@")[0]
                rec = figures["recall"].get(ranker, {}).get(s, {}).get(side, {})
                ans = figures["answers"].get(c, {}).get(s, {}).get(side, {})
                if not rec and not ans:
                    continue
                report.rows.append(
                    {
                        "split": s,
                        "side": side,
                        "retriever": c,
                        "questions": (rec or ans)["questions"],
                        "R@1": rec.get("R@1"),
                        "R@3": rec.get("R@3"),
                        "containment": ans.get("containment"),
                        "F1": ans.get("F1"),
                    }
                )
    report.results = {
        "metrics": "supporting-utterance recall@1/@3 per ranker; answer containment of the "
        "normalised reference answer (SQuAD normalisation) and SQuAD token F1 per answer "
        "condition; every figure per split and side (user / assistant), 'all' pooled",
        "recall": figures["recall"],
        "answers": figures["answers"],
        "routing": routing(asked),
        "latency": latency(asked, info),
        "utterances not stored": info["missing"],
    }
    report.published = PUBLISHED
    report.notes += [
        common.wordings_note("contextdialog-mini", used),
        "Published (ContextDialog paper, real data, a different dataset): dense RAG with "
        "e5-large-v2 over ASR transcripts finds the supporting utterance at top 1 for 0.58 "
        "of questions; an LLM judge scores open voice models 2.0-2.8 and their text "
        "backbones 4.0-4.1 out of 5; questions about the user's own words fare worst. "
        "The LLM-judge score is not computed here.",
        f"Responder for every condition: {info.get('responder')}. instruct is the agent end "
        "to end (its router decides whether to recall and whose turns: 'I' is the asking "
        "voice, 'you' the assistant); its R@3 counts its recalled turns "
        f"(recall_k = {settings.agent.recall_k}).",
        "Routing: "
        + "; ".join(
            f"{side}: intent {v['intent']}, asked about {v['asked_about']}"
            for side, v in report.results["routing"].items()
            if side != "all"
        ),
    ]
    if data_dir is None:
        report.notes.append(
            "ContextDialog-mini: synthetic voices and styles, scripted dialogues of 12 turns "
            "(16 with two users); each answer said once, with near misses from the same side "
            "and, with two users, from the other user. Not the real data."
        )
    if info["missing"]:
        report.notes.append(f"Utterances with nothing stored: {info['missing']}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "questions.json").write_text(
        json.dumps([a.as_dict() for a in asked], indent=1, default=str) + "\n"
    )
    r1 = {
        r: {side: v["all"][side]["R@1"] for side in (*SIDES, "all")}
        for r, v in figures["recall"].items()
    }
    acc = {
        c: {side: v["all"][side]["containment"] for side in (*SIDES, "all")}
        for c, v in figures["answers"].items()
    }
    report.plots = [
        bar_plot(
            r1,
            out / "recall_at_1.png",
            f"{edition}: supporting-utterance recall@1",
            "recall@1",
            ("paper's dense RAG, real data (different dataset)", 0.58),
        ).name,
        bar_plot(
            acc, out / "answer_accuracy.png", f"{edition}: answer containment", "containment"
        ).name,
    ]
    report.timings = common.timings(timer, start)
    return report
