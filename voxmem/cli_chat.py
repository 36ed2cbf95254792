"""``voxmem chat``: talk to the voice agent from the command line."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from voxmem.settings import Settings


def chat(
    ctx: typer.Context,
    say: list[Path] = typer.Option(
        None,
        "--say",
        help="Audio files spoken in turn (any format): --say a.wav b.wav, or --say repeated.",
    ),
    tenant: str = typer.Option(..., "--tenant", "-t", help="Whose memory."),
    session: str = typer.Option(..., "--session", "-s", help="Conversation id (resumable)."),
    text: list[str] = typer.Option(None, "--text", help="Typed turns, in order after --say."),
    out: Path | None = typer.Option(None, "--out", help="Write each reply's audio here (wav)."),
    responder: str | None = typer.Option(
        None, "--responder", help="extractive, local or openai (default: VOXMEM_AGENT__RESPONDER)."
    ),
    data_dir: Path | None = typer.Option(None, "--data-dir", help="Memory folder."),
) -> None:
    """Talk to the agent: audio turns with --say, typed turns with --text, or type at the
    prompt when neither is given (an empty line ends the chat)."""
    from voxmem.errors import VoxmemError

    console = Console(width=max(Console().width, 140))
    settings = Settings()
    if not settings.allow_downloads:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if responder is not None:
        settings.agent = settings.agent.model_copy(update={"responder": responder})
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir})
        settings.chroma = settings.chroma.model_copy(update={"path": data_dir / "chroma"})
    extra = [a for a in ctx.args if not a.startswith("-")]
    if len(extra) != len(ctx.args):
        console.print(
            f"[red]unknown options:[/] {' '.join(a for a in ctx.args if a.startswith('-'))}"
        )
        raise typer.Exit(2)
    # "--say a.wav b.wav": the files after the first are left over as extra arguments
    turns: list[tuple[str, Any]] = [("audio", p) for p in [*(say or []), *map(Path, extra)]]
    turns += [("text", t) for t in (text or [])]
    try:
        code = asyncio.run(_chat(console, settings, tenant, session, turns, out))
    except (VoxmemError, ValueError) as exc:
        console.print(f"[red]{type(exc).__name__}:[/] {exc}")
        raise typer.Exit(1) from None
    raise typer.Exit(code)


async def _chat(
    console: Console,
    settings: Settings,
    tenant: str,
    session: str,
    turns: list[tuple[str, Any]],
    out: Path | None,
) -> int:
    from voxmem.agent import VoiceAgent
    from voxmem.memory import AudioMemory

    interactive = not turns
    failed = 0
    memory = AudioMemory(settings)
    async with VoiceAgent(memory, settings=settings) as agent:
        i = 0
        while True:
            if interactive:
                line = await asyncio.to_thread(_prompt)
                if not line:
                    break
                kind, value = "text", line
            elif i < len(turns):
                kind, value = turns[i]
            else:
                break
            i += 1
            if kind == "audio" and not Path(value).exists():
                console.print(f"[red]{value}: no such file[/]")
                failed += 1
                continue
            result = await agent.turn(
                tenant,
                session,
                audio=value if kind == "audio" else None,
                text=value if kind == "text" else None,
            )
            _show(console, result, kind, value)
            if result.heard is not None and result.heard.problem:
                failed += 1
            if out is not None and result.audio:
                _write_reply(out / f"{session}-{result.turn:03d}.wav", result.audio)
        console.print("[dim]saving the conversation to memory...[/]")
    return 1 if failed else 0


def _prompt() -> str:
    try:
        return input("you> ").strip()
    except EOFError:
        return ""


def _show(console: Console, result: Any, kind: str, value: Any) -> None:
    who = result.speaker_name or result.speaker_id or ("typed" if kind == "text" else "new voice")
    source = Path(value).name if kind == "audio" else "text"
    console.print(f"[bold]{who}[/] ({source}): {result.transcript or '-'}")
    if result.heard is not None and (result.heard.style or result.heard.environment):
        tags = list(result.heard.style)[:2] + list(result.heard.environment)[:2]
        console.print(f"  [dim]heard: {', '.join(tags)}[/]")
    console.print(f"  [dim]route: {result.intent}  plan: {result.plan or '-'}[/]")
    if result.hits:
        table = Table(show_header=True, box=None, padding=(0, 1))
        for col in ("turn", "speaker", "session", "score", "transcript", "evidence"):
            table.add_column(col, overflow="fold")
        for h in result.hits:
            ev = ", ".join(
                f"{a} {e['raw']:.2f}{' ✓' if e['matched'] else ''}" for a, e in h.evidence.items()
            )
            table.add_row(
                h.turn_id,
                h.speaker_name or h.speaker_id or "-",
                h.session,
                f"{h.score:.2f}",
                h.transcript,
                ev,
            )
        console.print(table)
    console.print(f"[bold green]{'agent'}>[/] {result.reply}")
    if result.replayed:
        console.print(f"  [dim]replayed the original audio of {', '.join(result.replayed)}[/]")
    timings = "  ".join(
        f"{k} {v * 1000:.0f} ms"
        for k, v in result.timings.items()
        if isinstance(v, float) and v >= 0
    )
    console.print(f"  [dim]{timings}[/]")
    for note in result.notes:
        console.print(f"  [yellow]{note}[/]")
    sys.stdout.flush()


def _write_reply(path: Path, pcm: bytes) -> None:
    import numpy as np

    from voxmem.agent.speak import OUTPUT_RATE
    from voxmem.audio import Audio, write_wav

    samples = np.frombuffer(pcm, "<i2").astype(np.float32) / 32767.0
    path.parent.mkdir(parents=True, exist_ok=True)
    write_wav(Audio(samples, OUTPUT_RATE), path)
