"""The ``benchmarks`` command: ``benchmarks list``, ``benchmarks run NAME``."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from voxmem.benchmarks.registry import BACKENDS, RUNNERS, WORDING_ROLES, Options, get_runner
from voxmem.benchmarks.seeds import HEADLINE, Edition, pooled
from voxmem.errors import VoxmemError

app = typer.Typer(
    no_args_is_help=True, add_completion=False, help="Run voxmem's benchmarks and write reports."
)
console = Console(width=max(Console().width, 170))


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
    seed: list[int] = typer.Option(
        [0],
        "--seed",
        help="Seed for generated data. Repeat it (--seed 0 --seed 1 --seed 2) to run "
        "inspire, voicetrace or squtr on an edition per seed and pool their figures, with "
        "instruct's paired difference from each baseline (each run under --out/NAME/seed-S).",
    ),
    quick: bool = typer.Option(False, "--quick", help="A small slice, for smoke runs."),
    data_dir: Path | None = typer.Option(
        None,
        "--data-dir",
        help="Real data in the benchmark's published format (default: the offline mini edition).",
    ),
    split: list[str] = typer.Option(
        [], "--split", help="Only these splits / subsets / conditions (repeatable)."
    ),
    limit: int | None = typer.Option(
        None, "--limit", min=1, help="At most this many queries per split."
    ),
    retrievers: str | None = typer.Option(
        None,
        "--retrievers",
        help="Comma-separated retrievers (default: every baseline and instruct).",
    ),
    wordings: str = typer.Option(
        "test",
        "--wordings",
        help="Instruction wordings of the generated mini editions (and of SQuTR, whose data "
        "has none): test (frozen, held out from the planner) or dev (the editions' own "
        "tables, which it was tuned on).",
    ),
    backend: str = typer.Option(
        "embedded",
        "--backend",
        help="The store benchmark's engines: embedded (SQLite, files, embedded Chroma) or "
        "server (PostgreSQL and a Chroma server, started on loopback for the run).",
    ),
) -> None:
    """Run one benchmark; print a table and write results.json + summary.md under --out/NAME."""
    try:
        runner = get_runner(name)
    except KeyError as exc:
        console.print(f"[red]{exc.args[0]}[/]")
        raise typer.Exit(2) from None
    if wordings not in WORDING_ROLES:
        console.print(f"[red]--wordings {wordings!r}: choose {' or '.join(WORDING_ROLES)}[/]")
        raise typer.Exit(2)
    if backend not in BACKENDS:
        console.print(f"[red]--backend {backend!r}: choose {' or '.join(BACKENDS)}[/]")
        raise typer.Exit(2)
    if data_dir is not None and not data_dir.is_dir():
        console.print(f"[red]--data-dir {data_dir} is not a folder[/]")
        raise typer.Exit(2)
    seeds = list(seed)
    if len(set(seeds)) != len(seeds):
        console.print(f"[red]--seed {' --seed '.join(map(str, seeds))}: give each seed once[/]")
        raise typer.Exit(2)
    if len(seeds) > 1 and name not in HEADLINE:
        console.print(
            f"[red]several --seed values pool generated editions of "
            f"{', '.join(sorted(HEADLINE))}; {name} takes one[/]"
        )
        raise typer.Exit(2)
    if len(seeds) > 1 and data_dir is not None:
        console.print("[red]several --seed values pool generated editions; --data-dir is one[/]")
        raise typer.Exit(2)
    options = Options(
        splits=split or None,
        limit=limit,
        retrievers=[r.strip() for r in retrievers.split(",") if r.strip()] if retrievers else None,
        wordings=wordings,
        backend=backend,
    )
    editions = []
    try:
        for s in seeds:
            folder = out / name / f"seed-{s}" if len(seeds) > 1 else out / name
            report = runner.run(
                out=folder,
                seed=s,
                quick=quick,
                console=console,
                data_dir=data_dir,
                options=options,
            )
            paths = report.write(folder)
            console.print(report.table())
            console.print("wrote " + ", ".join(str(p) for p in paths))
            editions.append(Edition(s, report.as_dict()))
        if len(seeds) > 1:
            report = pooled(name, editions)
            paths = report.write(out / name)
            console.print(report.table())
            for note in report.notes:
                console.print(note)
            console.print("wrote " + ", ".join(str(p) for p in paths))
    except VoxmemError as exc:
        console.print(f"[red]{type(exc).__name__}: {exc}[/]")
        raise typer.Exit(1) from None


@app.command("train-planner")
def train_planner(
    seed: int | None = typer.Option(
        None,
        help="Seed of the generated corpora and of training; each planner's members take "
        "this seed and the next ones. Default: the shipped weights' seeds (English 0, "
        "members of seeds 0-4; other languages 2, members of seeds 2-4).",
    ),
    members: int | None = typer.Option(
        None,
        min=1,
        help="Members of each planner's ensemble (default: the shipped weights', 5 English "
        "and 3 for other languages), each trained alone with its own seed (English: about "
        "a minute each on 2 cores with its corpus's encodings cached, 326 s for five, and "
        "2 minutes more to encode each corpus; other languages: 3 to 4 minutes each with "
        "their encodings cached, longer without).",
    ),
    out: Path | None = typer.Option(
        None, "--out", help="English planner's weights file (default: its shipped weights)."
    ),
    train: int = typer.Option(
        12000, min=50, help="Generated training instructions (English planner)."
    ),
    dev: int = typer.Option(
        2000,
        min=10,
        help="Generated dev instructions, held-back wordings (English planner; a tenth as "
        "many again from each supplement's held-back wordings, scored apart).",
    ),
    dialogue: int = typer.Option(
        800,
        min=0,
        help="Requests a member learns from for the assistant's and the user's own turns "
        "(the dialogue_roles supplement; English planner).",
    ),
    asides: int = typer.Option(
        800,
        min=0,
        help="Requests a member learns from with words that ask for nothing (the asides "
        "supplement; English planner).",
    ),
    cache: Path | None = typer.Option(
        None, "--cache", help="Folder keeping the corpus's and pools' encodings between runs."
    ),
    other_out: Path | None = typer.Option(
        None,
        "--other-out",
        help="Weights file of the planner for other languages (default: its shipped weights).",
    ),
    which: str = typer.Option(
        "both", "--which", help="Which planner to train: english, other or both."
    ),
) -> None:
    """Train the instruction planners and write their weights: the English planner on
    its generated corpus and the written train pools (``--train``, ``--dev``, ``--out``;
    prints its dev accuracy), and the planner for other languages on the train pools in
    every language and generated corpora (``--other-out``; 3 to 4 minutes a member on 2 cores
    with its encodings cached by ``--cache``, longer without)."""
    from voxmem.benchmarks.train_planner import TrainParams
    from voxmem.benchmarks.train_planner import train_planner as run_training
    from voxmem.retrievers.planner import WEIGHTS

    if which not in ("english", "other", "both"):
        console.print(f"[red]--which must be english, other or both, not {which!r}[/]")
        raise typer.Exit(2)
    if which in ("english", "both"):
        run_training(
            seed=0 if seed is None else seed,
            out=out or WEIGHTS,
            params=TrainParams(
                train=train,
                dev=dev,
                members=members or TrainParams.members,
                dialogue=dialogue,
                asides=asides,
            ),
            cache=cache,
        )
    if which in ("other", "both"):
        from voxmem.benchmarks.train_planner_multi import MultiParams, train_multilingual
        from voxmem.retrievers.planner_multi import WEIGHTS as OTHER_WEIGHTS

        train_multilingual(
            seed=2 if seed is None else seed,
            out=other_out or OTHER_WEIGHTS,
            params=MultiParams(members=members or MultiParams.members),
            cache=cache,
        )


def main() -> None:
    app()
