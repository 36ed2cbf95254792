"""The ``benchmarks`` command: ``benchmarks list``, ``benchmarks run NAME``."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from voxmem.benchmarks.registry import RUNNERS, get_runner

app = typer.Typer(
    no_args_is_help=True, add_completion=False, help="Run voxmem's benchmarks and write reports."
)
console = Console(width=max(Console().width, 120))


@app.command("list")
def list_runners() -> None:
    """List the benchmarks that can be run."""
    for name, runner in sorted(RUNNERS.items()):
        console.print(f"[bold]{name}[/]  {runner.description}")


@app.command()
def run(
    name: str = typer.Argument(..., help="Benchmark name (see `benchmarks list`)."),
    out: Path = typer.Option(
        Path("reports"), "--out", help="Folder for results.json and the Markdown summary."
    ),
    seed: int = typer.Option(0, help="Seed for generated data."),
    quick: bool = typer.Option(False, "--quick", help="A small slice, for smoke runs."),
) -> None:
    """Run one benchmark; print a table and write results.json + summary.md under --out."""
    try:
        runner = get_runner(name)
    except KeyError as exc:
        console.print(f"[red]{exc.args[0]}[/]")
        raise typer.Exit(2) from None
    report = runner.run(out=out / name, seed=seed, quick=quick, console=console)
    paths = report.write(out / name)
    console.print(report.table())
    console.print("wrote " + ", ".join(str(p) for p in paths))


def main() -> None:
    app()
