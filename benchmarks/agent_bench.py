"""``benchmarks run agent``: a scripted spoken conversation through the whole agent, with
the shipped models, timed per node.

Three synthetic voices over two sessions introduce themselves, state facts (two on
the same topic, so content alone cannot decide whose fact it is), one of them sad,
one with rain behind it, and the agent tells one of them something; then they ask
who said what, what the agent said, when someone sounded sad, what was said in the
rain, and ask to hear a turn again. The script is also the end-to-end test
(tests/test_agent_e2e.py). With ``--quick`` the memory holds only the conversation;
otherwise it first holds ``FILL`` turns of other conversations (generated vectors
with the encoders' real dimensions, as ``benchmarks run store`` makes them), so
recall works at the size the latency target names.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from voxmem.benchmarks.report import Report, versions
from voxmem.benchmarks.synth import ClipCache, Utterance, render

FILL = 10_000
TENANT = "family"
NODES = (
    "perceive",
    "route",
    "recall",
    "respond",
    "first_token",
    "first_audio",
    "speak",
    "remember",
    "total",
)


@dataclass(frozen=True)
class Line:
    """One turn of the script. ``voice`` None: the agent says ``text`` (observed)."""

    session: str
    voice: str | None
    text: str
    style: str = "neutral"
    background: str | None = None
    #: what the turn must do: intent, speaker (of the top hit), hit (words in the top
    #: hit), reply (words in the reply), role (of every hit), replay (bool), name
    expect: dict[str, Any] = field(default_factory=dict)


DANA, MARCO, PETER = "festival-slt-hts", "flite-kal", "flite-rms"
BUDGET_DANA = "The budget for the offsite comes from the marketing team."
BUDGET_MARCO = "I think the budget should come from the sales department instead."
SAD = "I missed my sister's wedding because my flight was cancelled."
RAIN = "The garden party moves to Sunday afternoon."
HOTEL = "I booked the Riverside Hotel for the offsite, and check in starts at three."

SCRIPT: tuple[Line, ...] = (
    Line("monday", DANA, "Hi, I'm Dana.", expect={"intent": "name", "name": "Dana"}),
    Line("monday", MARCO, "Hello, my name is Marco.", expect={"intent": "name"}),
    Line("monday", PETER, "My name is Peter.", expect={"intent": "name"}),
    Line("monday", DANA, BUDGET_DANA, expect={"intent": "chat"}),
    Line("monday", MARCO, BUDGET_MARCO, expect={"intent": "chat"}),
    Line("monday", None, HOTEL),
    Line("monday", PETER, SAD, style="sad", expect={"intent": "chat"}),
    Line("monday", MARCO, RAIN, background="rain", expect={"intent": "chat"}),
    Line(
        "tuesday",
        DANA,
        "What did I say about the budget?",
        expect={
            "intent": "recall",
            "speaker": "Dana",
            "hit": "marketing",
            "reply": "marketing",
            "greeted": "Dana",
        },
    ),
    Line(
        "tuesday",
        MARCO,
        "What did I say about the budget?",
        expect={"intent": "recall", "speaker": "Marco", "hit": "sales", "reply": "sales"},
    ),
    Line(
        "tuesday",
        PETER,
        "What did you tell me about the hotel?",
        expect={"intent": "recall", "role": "agent", "hit": "riverside", "reply": "riverside"},
    ),
    Line(
        "tuesday",
        PETER,
        "What did Marco say about the budget?",
        expect={"intent": "recall", "speaker": "Marco", "hit": "sales"},
    ),
    Line(
        "tuesday",
        DANA,
        "When did Peter sound sad?",
        expect={"intent": "recall", "speaker": "Peter", "hit": "wedding"},
    ),
    Line(
        "tuesday",
        DANA,
        "What was said with rain in the background?",
        expect={"intent": "recall", "hit": "garden"},
    ),
    Line(
        "tuesday",
        PETER,
        "Play what Dana said about the budget.",
        expect={"intent": "replay", "speaker": "Dana", "hit": "marketing", "replay": True},
    ),
)


@dataclass
class Turn:
    line: Line
    result: Any
    clip_seconds: float
    problems: list[str]


def clip_for(line: Line, cache: ClipCache | None, seed: int = 0) -> Any:
    assert line.voice is not None
    return render(
        Utterance(
            line.text,
            line.voice,
            style=line.style,
            background=line.background,
            snr_db=10.0 if line.background else None,
            seed=seed,
        ),
        cache,
    )


def check(line: Line, result: Any, agent: Any) -> list[str]:
    """What the turn got wrong against its expectations (empty: all right)."""
    e, out = line.expect, []
    if "intent" in e and result.intent != e["intent"]:
        out.append(f"intent {result.intent} != {e['intent']}")
    top = result.hits[0] if result.hits else None
    if "speaker" in e and (top is None or top.speaker_name != e["speaker"]):
        out.append(f"top hit by {top.speaker_name if top else None}, wanted {e['speaker']}")
    if "hit" in e and (top is None or e["hit"] not in top.transcript.lower()):
        out.append(f"top hit {top.transcript if top else None!r} lacks {e['hit']!r}")
    if "reply" in e and e["reply"] not in result.reply.lower():
        out.append(f"reply {result.reply!r} lacks {e['reply']!r}")
    if "role" in e and (not result.hits or any(h.role != e["role"] for h in result.hits)):
        out.append(f"hits not all {e['role']}: {[h.role for h in result.hits]}")
    if "greeted" in e and f"Welcome back, {e['greeted']}" not in result.reply:
        out.append(f"no welcome back in {result.reply!r}")
    if e.get("replay"):
        from voxmem.agent.speak import to_pcm16

        if not result.replayed or top is None:
            out.append("nothing replayed")
        else:
            original = to_pcm16(agent.memory.audio(TENANT, top.turn_id))
            if not result.audio.endswith(original):
                out.append("the reply audio does not end with the stored clip")
    return out


async def run_script(agent: Any, cache: ClipCache | None) -> list[Turn]:
    turns = []
    for line in SCRIPT:
        if line.voice is None:
            await agent.observe(TENANT, line.session, text=line.text, role="agent")
            continue
        clip = await asyncio.to_thread(clip_for, line, cache)
        result = await agent.turn(TENANT, line.session, audio=clip)
        if line.expect.get("intent") == "name":
            agent.flush(TENANT)  # the name is stored before anyone asks by it
        turns.append(Turn(line, result, clip.duration, check(line, result, agent)))
    return turns


def fill(memory: Any, n: int, seed: int) -> float:
    """``n`` turns of other conversations with generated vectors; returns seconds."""
    from voxmem.audio import Audio
    from voxmem.memory.records import NewSegment

    rng = np.random.default_rng(seed)
    dims = memory.perception.dims
    t = np.arange(4000) / 16_000
    clip = Audio((0.2 * np.sin(2 * np.pi * 220 * t)).astype(np.float32))
    voices = rng.standard_normal((40, dims["speaker"]))
    start = time.perf_counter()
    for first in range(0, n, 1000):
        k = min(1000, n - first)

        def unit(x: np.ndarray) -> np.ndarray:
            return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)

        vecs = {s: unit(rng.standard_normal((k, d))) for s, d in dims.items() if s != "speaker"}
        noise = rng.standard_normal((k, dims["speaker"])) * (0.4 / np.sqrt(dims["speaker"]))
        vecs["speaker"] = unit(voices[rng.integers(40, size=k)] + noise)
        items = [
            NewSegment(
                clip,
                f"earlier turn {first + i}",
                {s: v[i] for s, v in vecs.items()},
                role="user" if i % 2 else "agent",
            )
            for i in range(k)
        ]
        memory.add_segments(items, tenant=TENANT, session=f"old-{first // 1000}")
    return time.perf_counter() - start


def run_agent_bench(*, out: Path, seed: int, quick: bool, console: Console) -> Report:
    from voxmem.agent import VoiceAgent
    from voxmem.memory import AudioMemory
    from voxmem.settings import Settings

    size = 0 if quick else FILL
    report = Report(
        "agent",
        f"scripted conversation, 3 synthetic voices, 2 sessions, memory of {size:,} other turns",
        ["node", "p50_ms", "p95_ms", "max_ms", "n"],
        meta={"versions": versions("faster-whisper", "piper-tts", "langgraph")},
    )
    cache = ClipCache(Path(tempfile.gettempdir()) / "voxmem-agent-bench-clips")
    with tempfile.TemporaryDirectory(prefix="voxmem-agent-bench-") as tmp:
        settings = Settings(data_dir=Path(tmp))
        memory = AudioMemory(settings)
        agent = VoiceAgent(memory, settings=settings)
        start = time.perf_counter()
        agent.warm_up()
        report.timings["warm_up_s"] = time.perf_counter() - start
        if size:
            console.print(f"filling the memory with {size:,} turns...")
            report.timings["fill_s"] = fill(memory, size, seed)

        async def go() -> list[Turn]:
            async with agent:
                return await run_script(agent, cache)

        turns = asyncio.run(go())
    for node in NODES:
        values = [t.result.timings[node] for t in turns if t.result.timings.get(node, -1) >= 0]
        if values:
            report.rows.append(
                {
                    "node": node,
                    "p50_ms": 1000 * statistics.median(values),
                    "p95_ms": 1000 * float(np.percentile(values, 95)),
                    "max_ms": 1000 * max(values),
                    "n": len(values),
                }
            )
    report.results = {
        "turns": [
            {
                "session": t.line.session,
                "voice": t.line.voice,
                "said": t.line.text,
                "heard": t.result.transcript,
                "intent": t.result.intent,
                "plan": t.result.plan,
                "reply": t.result.reply,
                "top_hit": t.result.hits[0].to_dict() if t.result.hits else None,
                "timings": t.result.timings,
                "clip_s": t.clip_seconds,
                "problems": t.problems,
            }
            for t in turns
        ],
        "turns_right": sum(not t.problems for t in turns),
        "n_turns": len(turns),
    }
    report.notes.append(
        "first_token / first_audio / total: seconds from the end of the user's turn (the "
        "whole clip handed to the agent) to the reply's first text and first audio chunk; "
        "the other nodes are their own wall time. The clips are synthetic voices "
        f"(flite, festival), the agent speaks with {agent.synthesizer.name}."
    )
    wrong = [t for t in turns if t.problems]
    report.notes.append(
        f"{len(turns) - len(wrong)} of {len(turns)} turns did what the script expects"
    )
    for t in wrong:
        report.notes.append(f"  {t.line.text!r}: {'; '.join(t.problems)}")
    return report


__all__ = ["SCRIPT", "Line", "check", "clip_for", "fill", "run_agent_bench", "run_script"]
