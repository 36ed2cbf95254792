"""The ``voxmem`` command."""

from __future__ import annotations

import os

import typer
from rich.console import Console
from rich.table import Table

from voxmem.settings import Role, Settings

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="voxmem: a memory made of sound for voice agents.",
)
console = Console(width=max(Console().width, 140))


@app.command()
def doctor(
    role: list[Role] | None = typer.Option(None, "--role", help="Check only these roles."),
    load: bool = typer.Option(True, help="Load each model once (--no-load only resolves)."),
) -> None:
    """Show, per model role, the backend, where its weights come from, and whether it loads."""
    from voxmem.doctor import check_all

    settings = Settings()
    if not settings.allow_downloads:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    reports = check_all(settings, role or None, load=load)
    table = Table(title="voxmem doctor", show_lines=False)
    for col in ("role", "backend", "source", "weights", "load"):
        table.add_column(col, overflow="fold")
    for r in reports:
        status = (
            f"[green]ok[/] {r.detail} ({r.seconds:.1f} s)"
            if r.ok and load
            else "[green]resolved[/]"
            if r.ok
            else f"[red]FAILED[/] {r.detail}"
        )
        table.add_row(r.role.value, r.backend, r.source or "-", _short(r.location), status)
    console.print(table)
    console.print(
        f"data dir {settings.data_dir}  cache {settings.cache_dir}  "
        f"chroma {settings.chroma.mode}  threads {settings.threads}  "
        f"downloads {'allowed' if settings.allow_downloads else 'off'}"
    )
    failed = [r for r in reports if not r.ok]
    if failed:
        console.print(
            f"[red]{len(failed)} role(s) cannot load:[/] " + ", ".join(r.role.value for r in failed)
        )
        raise typer.Exit(1)


def _short(location: str | None) -> str:
    """Paths shortened for the table: site-packages and the home directory abbreviated."""
    if not location:
        return "-"
    if "site-packages/" in location:
        return "site-packages/" + location.split("site-packages/", 1)[1]
    home = os.path.expanduser("~")
    return "~" + location[len(home) :] if location.startswith(home + "/") else location


@app.command()
def version() -> None:
    """Print the installed version."""
    from importlib.metadata import version as dist_version

    console.print(dist_version("voxmem"))


def main() -> None:
    app()
