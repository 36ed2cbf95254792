"""``voxmem demo``: the whole product in one command. It starts ``voxmem serve`` on
loopback, then plays the agent benchmark's scripted conversation (three synthetic
voices over two sessions: names and facts on Monday, who-said-what, what the agent
said, style, environment and replay questions on Tuesday) into it as a Realtime
client, in real time, and prints each turn: who spoke, what the server heard, what
it recalled, what the agent answered, and how long the answer took."""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from itertools import groupby
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from voxmem.benchmarks.agent_bench import SCRIPT, TENANT, Line, clip_for
from voxmem.benchmarks.realtime import Caller, Exchange, exchange, pcm24k, served, speech_bounds_s
from voxmem.benchmarks.synth import ClipCache

#: the voices' names in the script (the server learns them from the introductions)
VOICE_NAMES = {"festival-slt-hts": "Dana", "flite-kal": "Marco", "flite-rms": "Peter"}


def _speaker(ex: Exchange) -> str:
    t = ex.transcription or {}
    return str(t.get("speaker_name") or t.get("speaker_id") or "a new voice")


def _labels(labels: dict[str, float] | None) -> str:
    if not labels:
        return ""
    top = max(labels.items(), key=lambda kv: kv[1])
    return f"{top[0]} {top[1]:.2f}"


def _print_turn(
    console: Console, line: Line, ex: Exchange, meant: str | None = None
) -> dict[str, Any]:
    """Print one exchange; ``meant``: the stored words of the turn its question asks
    for (as the ASR heard them), which the first recalled turn should be."""
    t = ex.transcription or {}
    who = VOICE_NAMES.get(line.voice or "", "?")
    style, env = _labels(t.get("style")), _labels(t.get("environment"))
    tags = "; " + ", ".join(x for x in (style, env) if x) if (style or env) else ""
    heard = f"heard as {_speaker(ex)}{tags}"
    said = str(t.get("transcript", "(no transcript)"))
    console.print(f"[bold]{escape(who)}[/] ({escape(heard)}): {escape(said)}")
    hits = (ex.retrieval or {}).get("hits") or []
    for h in hits[:3]:
        by = h.get("speaker_name") or h.get("role") or "?"
        console.print(
            f"  [cyan]recalled[/] {escape(str(by))} ({h.get('session', '')}, score "
            f"{float(h.get('score') or 0):.2f}): {escape(str(h.get('transcript', '')))}"
        )
    reply = ex.reply_text()
    done = (ex.done or {}).get("response", {})
    vox = done.get("voxmem", {})
    status = escape(f"[{done.get('status')}]")
    console.print(f"  [green]agent[/] {status}: {escape(reply)}")
    timings = vox.get("timings") or {}
    parts = []
    if ex.first_audio is not None:
        parts.append(
            f"end of speech -> first audio {1000 * (ex.first_audio - ex.speech_end):.0f} ms"
        )
    parts += [
        f"{k} {1000 * float(timings[k]):.0f}"
        for k in ("perceive", "recall", "first_token", "first_audio")
        if isinstance(timings.get(k), (int, float)) and timings[k] >= 0
    ]
    console.print(f"  [dim]latency: {', '.join(parts) or 'no reply audio'} (ms)[/]")
    want = line.expect.get("hit")
    found = None
    if want:
        # the asked-for turn is the one that said it, however the ASR spelled the word
        top = str(hits[0].get("transcript", "")) if hits else None
        found = top is not None and (top == meant or want in top.lower())
        console.print(
            f"  [dim]asked for '{want}': "
            f"{'[green]found it first[/]' if found else '[red]not the first recalled turn[/]'}[/]"
        )
    return {
        "said": line.text,
        "heard": t.get("transcript"),
        "speaker": _speaker(ex),
        "reply": reply,
        "recalled": [h.get("transcript") for h in hits[:3]],
        "status": done.get("status"),
        "latency_ms": (
            round(1000 * (ex.first_audio - ex.speech_end), 1) if ex.first_audio else None
        ),
        "found": found,
    }


async def _conversation(
    console: Console, url: str, token: str, clips: dict[int, Any]
) -> list[dict[str, Any]]:
    turns = []
    #: (the script's words, the words stored for them) of every line so far
    stored: list[tuple[str, str]] = []
    for session, lines in groupby(enumerate(SCRIPT), key=lambda il: il[1].session):
        console.rule(f"session '{session}'")
        async with Caller(url, token, f"demo-{session}") as caller:
            for i, line in lines:
                if line.voice is None:
                    # something the agent said earlier (taken in with the next turn)
                    item = {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": line.text}],
                    }
                    await caller.ws.send(
                        json.dumps({"type": "conversation.item.create", "item": item})
                    )
                    console.print(f"[bold]agent[/] (earlier): {escape(line.text)}")
                    stored.append((line.text, line.text))
                    continue
                pcm, bounds = clips[i]
                ex = await exchange(caller, pcm, bounds, timeout=300)
                want = str(line.expect.get("hit") or "").lower()
                meant = next(
                    (heard for text, heard in stored if want and want in text.lower()), None
                )
                turns.append(_print_turn(console, line, ex, meant))
                stored.append((line.text, str(turns[-1]["heard"] or "")))
                await asyncio.sleep(0.5)
    return turns


def run_live_demo(console: Console, data_dir: Path | None = None) -> int:
    cache = ClipCache(Path(tempfile.gettempdir()) / "voxmem-agent-bench-clips")
    began = time.perf_counter()
    with console.status("synthesising the callers' voices"):
        clips = {}
        for i, line in enumerate(SCRIPT):
            if line.voice is not None:
                audio = clip_for(line, cache)
                clips[i] = (
                    pcm24k(audio.samples, audio.sample_rate),
                    speech_bounds_s(audio.samples, audio.sample_rate),
                )
    with tempfile.TemporaryDirectory(prefix="voxmem-demo-") as tmp:
        data = data_dir or Path(tmp) / "memory"
        with console.status("starting voxmem serve on loopback (loading models)"):
            ctx = served(Path(tmp), data, TENANT)
            server = ctx.__enter__()
        try:
            console.print(
                f"voxmem serve is listening on {server.url}; a Realtime client now speaks "
                f"{len(clips)} lines of three voices into it, in real time"
            )
            turns = asyncio.run(_conversation(console, server.url, server.token, clips))
        finally:
            with console.status("stopping the server (it saves queued memory writes)"):
                ctx.__exit__(None, None, None)
    replied = sum(t["latency_ms"] is not None for t in turns)
    asked = [t for t in turns if t["found"] is not None]
    lat = sorted(t["latency_ms"] for t in turns if t["latency_ms"] is not None)
    console.rule("summary")
    console.print(f"{replied} of {len(turns)} turns answered with audio")
    console.print(
        f"{sum(bool(t['found']) for t in asked)} of {len(asked)} questions recalled the "
        "asked-for turn first"
    )
    if lat:
        console.print(
            f"end of speech -> first reply audio: median {lat[len(lat) // 2]:.0f} ms, "
            f"max {lat[-1]:.0f} ms"
        )
    console.print(f"demo took {time.perf_counter() - began:.0f} s")
    return 0 if replied == len(turns) else 1


__all__ = ["run_live_demo"]
