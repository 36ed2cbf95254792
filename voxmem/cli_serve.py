"""``voxmem serve``: the voice server; ``voxmem token``: a new access token for a tenant."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from pathlib import Path

import typer
from rich.console import Console

from voxmem.settings import Settings

console = Console()


def serve(
    host: str | None = typer.Option(None, "--host", help="Listen address (default 127.0.0.1)."),
    port: int | None = typer.Option(None, "--port", help="Port (default 8765; 0 picks one)."),
    token_file: Path | None = typer.Option(
        None,
        "--token-file",
        help="'<sha256> <tenant>' lines (make them with: voxmem token TENANT --file FILE).",
    ),
    data_dir: Path | None = typer.Option(None, "--data-dir", help="Memory folder."),
    vad: str | None = typer.Option(None, "--vad", help="silero (default) or energy."),
    warm_up: bool = typer.Option(True, "--warm-up/--no-warm-up", help="Load models first."),
) -> None:
    """Serve the voice agent over a Realtime-compatible websocket, and its web page."""
    from voxmem.server.auth import TokenFileError, TokenTable

    settings = Settings()
    if not settings.allow_downloads:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir})
        settings.chroma = settings.chroma.model_copy(update={"path": data_dir / "chroma"})
    overrides = {
        k: v
        for k, v in {
            "host": host,
            "port": port,
            "token_file": token_file,
            "vad": vad,
            "warm_up": warm_up,
        }.items()
        if v is not None
    }
    try:
        settings.server = settings.server.model_validate(
            {**settings.server.model_dump(), **overrides}
        )
        path = settings.server.token_file
        tokens = (
            TokenTable.load(path, settings.server.tokens)
            if path is not None
            else TokenTable(settings.server.tokens)
        )
    except (TokenFileError, OSError, ValueError) as exc:
        console.print(f"[red]{type(exc).__name__}:[/] {exc}")
        raise typer.Exit(1) from None
    if not len(tokens):
        console.print(
            "[red]no access tokens:[/] make one with `voxmem token TENANT --file tokens.txt`, "
            "then `voxmem serve --token-file tokens.txt` (or set VOXMEM_SERVER__TOKEN_FILE)"
        )
        raise typer.Exit(1)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    raise typer.Exit(asyncio.run(_serve(settings, tokens)))


async def _serve(settings: Settings, tokens: object) -> int:
    from voxmem.agent import VoiceAgent
    from voxmem.memory import AudioMemory
    from voxmem.server import VoiceServer
    from voxmem.server.auth import TokenTable

    assert isinstance(tokens, TokenTable)
    memory = AudioMemory(settings)
    async with VoiceAgent(memory, settings=settings) as agent:
        if settings.server.warm_up:
            console.print("loading models...")
            await asyncio.to_thread(agent.warm_up)
        async with VoiceServer(agent, tokens=tokens, settings=settings) as server:
            typer.echo(f"voxmem is listening on {server.url} (open {server.url}/ in a browser)")
            typer.echo(f"Realtime websocket: ws://{server.host}:{server.port}/v1/realtime")
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
            await stop.wait()
            console.print("stopping: closing sessions...")
        console.print("saving queued memory writes...")
    console.print("stopped")
    return 0


def token(
    tenant: str = typer.Argument(..., help="The tenant the token opens."),
    file: Path = typer.Option(..., "--file", help="Token file to append the token's hash to."),
) -> None:
    """Make a new access token for TENANT: prints it once, stores only its hash."""
    from voxmem.memory.records import TenantRequired
    from voxmem.server.auth import append_token_line, new_token

    value = new_token()
    try:
        append_token_line(file, value, tenant)
    except (TenantRequired, OSError) as exc:
        console.print(f"[red]{type(exc).__name__}:[/] {exc}")
        raise typer.Exit(1) from None
    typer.echo(value)
    Console(stderr=True).print(
        f"[dim]its sha256 is in {file}; the token itself is not stored anywhere[/]", highlight=False
    )
