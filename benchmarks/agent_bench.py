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
    #: silence between the end of speech and the turn's start (the commit), seconds
    tail_s: float = 0.0


def trailing_silence(clip: Any, floor_db: float = -35.0) -> float:
    """Seconds between the clip's last frame within ``floor_db`` of its peak and its end."""
    x = np.asarray(clip.samples)
    frame = 480
    n = len(x) // frame
    if n == 0:
        return 0.0
    rms = np.sqrt(np.mean(x[: n * frame].reshape(n, frame) ** 2, axis=1) + 1e-12)
    loud = np.nonzero(20 * np.log10(rms / rms.max()) > floor_db)[0]
    return (len(x) - (int(loud[-1]) + 1) * frame) / clip.sample_rate if len(loud) else 0.0


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


#: a server commits a turn after this much silence (the Realtime default)
SILENCE_WINDOW_S = 0.5


async def spoken(agent: Any, clip: Any, chunk_s: float = 0.1) -> Any:
    """A listener fed ``clip`` as fast as it is spoken, then silence until the server's
    silence window has passed since the end of speech, as a live front end feeds it."""
    listener = agent.listener(TENANT)
    step = int(chunk_s * clip.sample_rate)
    for i in range(0, len(clip.samples), step):
        listener.feed(clip.samples[i : i + step])
        await asyncio.sleep(chunk_s)
    quiet = np.zeros(step, np.float32)
    for _ in range(round(max(0.0, SILENCE_WINDOW_S - trailing_silence(clip)) / chunk_s)):
        listener.feed(quiet)
        await asyncio.sleep(chunk_s)
    return listener


async def run_script(agent: Any, cache: ClipCache | None, live: bool = False) -> list[Turn]:
    """Every line of the script through the agent. ``live``: each clip is heard while it
    is spoken (a listener fed in real time), and timings run from its end."""
    turns = []
    for line in SCRIPT:
        if line.voice is None:
            await agent.observe(TENANT, line.session, text=line.text, role="agent")
            continue
        clip = await asyncio.to_thread(clip_for, line, cache)
        audio = await spoken(agent, clip) if live else clip
        result = await agent.turn(TENANT, line.session, audio=audio)
        tail = max(SILENCE_WINDOW_S, trailing_silence(clip)) if live else trailing_silence(clip)
        if line.expect.get("intent") == "name":
            agent.flush(TENANT)  # the name is stored before anyone asks by it
        turns.append(Turn(line, result, clip.duration, check(line, result, agent), tail))
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
        ["mode", "node", "p50_ms", "p95_ms", "max_ms", "n"],
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

        async def go() -> tuple[list[Turn], list[Turn]]:
            async with agent:
                whole = await run_script(agent, cache)
            second = AudioMemory(settings.model_copy(update={"data_dir": Path(tmp) / "live"}))
            # the fill, again, for the live run's memory
            if size:
                fill(second, size, seed)
            live_agent = VoiceAgent(
                second, settings=second.settings, synthesizer_=agent.synthesizer
            )
            async with live_agent:
                return whole, await run_script(live_agent, cache, live=True)

        whole, live = asyncio.run(go())
        turns = live
    for mode, ts in (("live", live), ("whole clip", whole)):
        _rows(report, mode, ts)
    report.results = {
        "live": _turns(live),
        "whole_clip": _turns(whole),
        "turns_right": {
            "live": sum(not t.problems for t in live),
            "whole_clip": sum(not t.problems for t in whole),
        },
        "n_turns": len(turns),
    }
    report.notes.append(
        "live: each clip fed to a listener 100 ms at a time as fast as it is spoken, then "
        f"silence until {SILENCE_WINDOW_S} s after the end of speech, when the turn is "
        "committed (as a server with that silence window does); whole clip: the clip "
        "handed over after it ended."
    )
    report.notes.append(
        "first_token / first_audio / total: seconds from the commit to the reply's first "
        "text and first audio chunk; first_audio_after_speech adds the silence between the "
        "end of speech and the commit (what a server measures as VAD stop minus the "
        "silence window); the other nodes are their own wall time. The voices are "
        f"synthetic (flite, festival); the agent speaks with {agent.synthesizer.name}; "
        f"ASR {settings.asr.variant}."
    )
    for mode, ts in (("live", live), ("whole clip", whole)):
        wrong = [t for t in ts if t.problems]
        report.notes.append(
            f"{mode}: {len(ts) - len(wrong)} of {len(ts)} turns did what the script expects"
        )
        for t in wrong:
            report.notes.append(f"  {t.line.text!r}: {'; '.join(t.problems)}")
    return report


def _rows(report: Report, mode: str, turns: list[Turn]) -> None:
    for node in (*NODES, "first_audio_after_speech"):
        if node == "first_audio_after_speech":
            # from the end of speech (the clip's own trailing silence counted): what a
            # server measures as "VAD stop minus the silence window"
            values = [
                t.result.timings["first_audio"] + t.tail_s
                for t in turns
                if t.result.timings.get("first_audio", -1) >= 0
            ]
        else:
            values = [t.result.timings[node] for t in turns if t.result.timings.get(node, -1) >= 0]
        if values:
            report.rows.append(
                {
                    "mode": mode,
                    "node": node,
                    "p50_ms": 1000 * statistics.median(values),
                    "p95_ms": 1000 * float(np.percentile(values, 95)),
                    "max_ms": 1000 * max(values),
                    "n": len(values),
                }
            )


def _turns(turns: list[Turn]) -> list[dict[str, Any]]:
    return [
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
            "trailing_silence_s": t.tail_s,
            "problems": t.problems,
        }
        for t in turns
    ]


__all__ = ["SCRIPT", "Line", "check", "clip_for", "fill", "run_agent_bench", "run_script"]
