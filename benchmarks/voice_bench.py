"""``benchmarks run voice``: a real ``voxmem serve`` process, called by synthetic callers
over its Realtime websocket, timed as a caller hears it.

Each caller streams PCM16 at 24 kHz in real time (40 ms chunks, silence between its
lines, as a microphone does) with ``server_vad``, and speaks lines of the agent
benchmark's script (three synthetic voices). The latency of a turn runs from the end
of the caller's speech to the first ``response.output_audio.delta`` it receives: the
end of speech is the VAD's ``speech_stopped.audio_end_ms`` (where the detector says
speech ended, before its silence window) turned into the wall time at which that
audio was spoken; the clip's own speech end (known from the clip) is reported too.
Callers run 1, 4 and 8 at a time (``--quick``: 1 and 2), and the server's own
per-stage figures (``response.done``'s ``voxmem.latency`` and the agent's timings)
are broken down. Barge-in: the first caller starts its next line 300 ms into a reply;
the time from the start of that speech to ``input_audio_buffer.speech_started`` and
to the last audio delta of the interrupted response is measured. The full run first
fills the server's data dir with ``agent_bench.FILL`` turns of other conversations;
``--quick`` uses an empty memory.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from voxmem.benchmarks.agent_bench import FILL, SCRIPT, TENANT, clip_for, fill
from voxmem.benchmarks.realtime import (
    Caller,
    Exchange,
    exchange,
    finish,
    of_type,
    pcm24k,
    served,
    speech_bounds_s,
)
from voxmem.benchmarks.report import Report, versions
from voxmem.benchmarks.synth import ClipCache

#: the server's silence window (the Realtime default)
SILENCE_MS = 500
#: a barge-in starts this long after the reply's first audio
BARGE_AFTER_S = 0.3
#: the agent timings reported per stage (seconds from the commit, or their own time)
STAGES = ("perceive", "route", "recall", "first_token", "first_audio")


@dataclass
class Clip:
    text: str
    pcm: bytes
    bounds: tuple[float, float]


def clips(cache: ClipCache) -> list[Clip]:
    out = []
    for line in SCRIPT:
        if line.voice is None:
            continue
        audio = clip_for(line, cache)
        out.append(
            Clip(
                line.text,
                pcm24k(audio.samples, audio.sample_rate),
                speech_bounds_s(audio.samples, audio.sample_rate),
            )
        )
    return out


@dataclass
class Barge:
    reply_cut: Exchange  # the response that was interrupted
    speech_start: float
    speech_started_at: float | None
    last_audio_at: float | None
    status: str | None
    reason: str | None


async def caller_run(
    url: str, token: str, name: str, lines: list[Clip], barge: Clip | None, timeout: float
) -> tuple[list[Exchange], Barge | None]:
    """One caller speaks ``lines`` in turn, each after the previous reply ended; with
    ``barge``, it then speaks that line into the middle of its last reply."""
    out: list[Exchange] = []
    result = None
    async with Caller(url, token, name, silence_ms=SILENCE_MS) as caller:
        for i, clip in enumerate(lines):
            last = barge is not None and i == len(lines) - 1
            ex = await exchange(caller, clip.pcm, clip.bounds, timeout=timeout, until_done=not last)
            out.append(ex)
            if not last:
                await asyncio.sleep(0.3)
                continue
            assert barge is not None
            if ex.first_audio is None:  # nothing to interrupt
                await finish(caller, ex, timeout)
                break
            await asyncio.sleep(max(0.0, ex.first_audio + BARGE_AFTER_S - time.perf_counter()))
            since = len(caller.events)
            start = caller.play(barge.pcm)
            onset = caller.wall(start + barge.bounds[0])
            _, started = await caller.wait(
                of_type("input_audio_buffer.speech_started"), since, timeout
            )
            await finish(caller, ex, timeout)
            status = ex.done["response"]["status"] if ex.done else None
            details = (ex.done or {}).get("response", {}).get("status_details") or {}
            # the barge-in line is a turn of its own: follow it to its reply too
            follow = Exchange(onset, caller.wall(start + barge.bounds[1]), started_index=since)
            _, created = await caller.wait(of_type("response.created"), since, timeout)
            follow.response_id = created.event["response"]["id"]
            await finish(caller, follow, timeout)
            result = Barge(ex, onset, started.at, ex.last_audio, status, details.get("reason"))
        await asyncio.sleep(0.2)
    return out, result


async def level(
    url: str, token: str, n: int, cl: list[Clip], turns: int, timeout: float
) -> tuple[list[list[Exchange]], Barge | None]:
    """``n`` callers at once, each speaking ``turns`` lines (caller k starts k lines
    into the script, so they say different things); caller 0 ends with a barge-in."""
    jobs = []
    for k in range(n):
        lines = [cl[(k * 3 + j) % len(cl)] for j in range(turns)]
        barge = cl[(k * 3 + turns) % len(cl)] if k == 0 else None
        jobs.append(caller_run(url, token, f"voice-bench-{n}-{k}", lines, barge, timeout))
        await asyncio.sleep(0.05)  # staggered a little, as real callers are
    got = await asyncio.gather(*[asyncio.ensure_future(j) for j in jobs])
    return [g[0] for g in got], got[0][1]


def _pct(values: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(values), 1),
        "p95_ms": round(float(np.percentile(values, 95)), 1),
        "max_ms": round(max(values), 1),
        "n": len(values),
    }


def summarize(n: int, sessions: list[list[Exchange]], barge: Barge | None) -> dict[str, Any]:
    flat = [ex for s in sessions for ex in s]
    vad = [1000 * (ex.first_audio - ex.vad_end) for ex in flat if ex.first_audio and ex.vad_end]
    true = [1000 * (ex.first_audio - ex.speech_end) for ex in flat if ex.first_audio]
    stages: dict[str, list[float]] = {}
    for ex in flat:
        v = (ex.done or {}).get("response", {}).get("voxmem", {})
        for k, ms in (v.get("latency") or {}).items():
            stages.setdefault(f"server.{k}", []).append(float(ms))
        for k, s in (v.get("timings") or {}).items():
            if k in STAGES and s is not None and s >= 0:
                stages.setdefault(f"agent.{k}", []).append(1000 * float(s))
    out: dict[str, Any] = {
        "sessions": n,
        "turns": len(flat),
        "turns_replied": sum(ex.replied for ex in flat),
        "sessions_replied": sum(all(ex.replied for ex in s) and bool(s) for s in sessions),
        "speech_end_to_first_audio": _pct(vad) if vad else None,
        "clip_end_to_first_audio": _pct(true) if true else None,
        "stages": {k: _pct(v) for k, v in sorted(stages.items())},
    }
    if barge is not None:
        out["barge_in"] = {
            "status": barge.status,
            "reason": barge.reason,
            "speech_to_speech_started_ms": (
                round(1000 * (barge.speech_started_at - barge.speech_start), 1)
                if barge.speech_started_at
                else None
            ),
            "speech_to_last_audio_ms": (
                round(1000 * (barge.last_audio_at - barge.speech_start), 1)
                if barge.last_audio_at
                else None
            ),
        }
    return out


def plot(levels: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ns = [lv["sessions"] for lv in levels]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for key, label in (
        ("speech_end_to_first_audio", "end of speech (VAD)"),
        ("clip_end_to_first_audio", "end of speech (clip)"),
    ):
        for q, style in (("p50_ms", "-o"), ("p95_ms", "--s")):
            ys = [(lv[key] or {}).get(q, np.nan) for lv in levels]
            a.plot(ns, ys, style, label=f"{label} {q[:3]}")
    a.set_xlabel("concurrent sessions")
    a.set_ylabel("ms to first reply audio")
    a.set_xticks(ns)
    a.grid(alpha=0.3)
    a.legend(fontsize=8)
    names = sorted({k for lv in levels for k in lv["stages"] if k.startswith("agent.")})
    width = 0.8 / max(1, len(levels))
    for j, lv in enumerate(levels):
        xs = np.arange(len(names)) + j * width
        b.bar(
            xs,
            [lv["stages"].get(k, {}).get("p50_ms", 0) for k in names],
            width,
            label=f"{lv['sessions']} sessions",
        )
    b.set_xticks(np.arange(len(names)) + 0.4 - width / 2)
    b.set_xticklabels([k.split(".", 1)[1] for k in names], rotation=20)
    b.set_ylabel("p50 ms (agent, from the commit)")
    b.legend(fontsize=8)
    fig.suptitle("voxmem serve: end of speech to first reply audio")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_voice(*, out: Path, seed: int, quick: bool, console: Console) -> Report:
    from voxmem.memory import AudioMemory
    from voxmem.settings import Settings

    size = 0 if quick else FILL
    counts = (1, 2) if quick else (1, 4, 8)
    turns = 2 if quick else 4
    report = Report(
        "voice",
        f"voxmem serve over its Realtime websocket, synthetic callers in real time, "
        f"memory of {size:,} other turns",
        ["sessions", "metric", "p50_ms", "p95_ms", "max_ms", "n"],
        meta={"versions": versions("websockets", "faster-whisper", "piper-tts")},
    )
    cache = ClipCache(Path(tempfile.gettempdir()) / "voxmem-agent-bench-clips")
    began = time.perf_counter()
    with console.status("rendering the callers' lines"):
        cl = clips(cache)
    report.timings["render_s"] = time.perf_counter() - began
    with tempfile.TemporaryDirectory(prefix="voxmem-voice-bench-") as tmp:
        data = Path(tmp) / "data"
        if size:
            console.print(f"filling the server's memory with {size:,} turns...")
            memory = AudioMemory(Settings(data_dir=data))
            report.timings["fill_s"] = fill(memory, size, seed)
            memory.close()
        began = time.perf_counter()
        with console.status("starting voxmem serve (loading models)"):
            ctx = served(Path(tmp), data, TENANT)
            server = ctx.__enter__()
        try:
            report.timings["server_start_s"] = time.perf_counter() - began
            levels = []
            for n in counts:
                console.print(f"{n} concurrent session(s)...")
                t = time.perf_counter()
                sessions, barge = asyncio.run(
                    level(server.url, server.token, n, cl, turns, timeout=60.0 + 30.0 * n)
                )
                report.timings[f"sessions_{n}_s"] = time.perf_counter() - t
                levels.append(summarize(n, sessions, barge))
        finally:
            ctx.__exit__(None, None, None)
    for lv in levels:
        n = lv["sessions"]
        for key in ("speech_end_to_first_audio", "clip_end_to_first_audio"):
            if lv[key]:
                report.rows.append({"sessions": n, "metric": key, **lv[key]})
        for k, v in lv["stages"].items():
            report.rows.append({"sessions": n, "metric": k, **v})
        b = lv.get("barge_in")
        if b:
            for k in ("speech_to_speech_started_ms", "speech_to_last_audio_ms"):
                if b[k] is not None:
                    report.rows.append(
                        {"sessions": n, "metric": f"barge_in.{k[:-3]}", "p50_ms": b[k], "n": 1}
                    )
    report.results = {
        "levels": levels,
        "memory_turns": size,
        "turns_per_session": turns,
        "lines": [c.text for c in cl],
    }
    out.mkdir(parents=True, exist_ok=True)
    plot(levels, out / "voice.png")
    report.plots.append("voice.png")
    report.notes.append(
        "speech_end_to_first_audio: from the wall time at which the audio at the VAD's "
        "speech_stopped.audio_end_ms was spoken (VAD stop minus its "
        f"{SILENCE_MS} ms silence window) to the first response.output_audio.delta the "
        "caller received; clip_end_to_first_audio: from the clip's own end of speech. "
        "Both include the silence window, the 40 ms chunking and loopback transport."
    )
    report.notes.append(
        "server.*: response.done's voxmem.latency; agent.*: the agent's timings "
        "(seconds from the commit for first_token/first_audio, own wall time otherwise)."
    )
    report.notes.append(
        f"barge-in: caller 0 starts its next line {BARGE_AFTER_S * 1000:.0f} ms after its "
        "reply's first audio; times run from the start of that speech. The server sends reply "
        f"audio up to its playback lead ahead, so a negative speech_to_last_audio means no "
        "delta of the interrupted reply arrived after the caller began to speak (a client "
        "stops what it buffered on speech_started)."
    )
    for lv in levels:
        report.notes.append(
            f"{lv['sessions']} session(s): {lv['sessions_replied']} of {lv['sessions']} got "
            f"every reply; {lv['turns_replied']} of {lv['turns']} turns answered with audio"
        )
    return report


__all__ = ["run_voice"]
