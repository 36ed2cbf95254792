"""The ``voxmem`` command."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from voxmem.settings import Role, Settings

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="voxmem: a memory made of sound for voice agents.",
)
console = Console(width=max(Console().width, 140))
T = TypeVar("T")


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
        f"chroma {settings.chroma.mode}  threads {settings.threads} "
        f"(torch {settings.torch_threads})  "
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


# --- the memory -------------------------------------------------------------------

DataDir = typer.Option(None, "--data-dir", help="Memory folder (default: VOXMEM_DATA_DIR).")
Tenant = typer.Option(..., "--tenant", "-t", help="Whose memory (required on every call).")


def _memory(data_dir: Path | None) -> Any:
    """The memory, opened; a folder, catalog or index that cannot be used is one line."""
    from voxmem.memory import AudioMemory

    if not _call(Settings).allow_downloads:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return _call(lambda: AudioMemory.open(data_dir))


def _fail(exc: BaseException, fix: str = "") -> NoReturn:
    console.print(f"[red]{type(exc).__name__}:[/] {escape(str(exc))}{escape(fix)}")
    raise typer.Exit(1)


def _call(fn: Callable[[], T]) -> T:
    """Run ``fn``; bad input (a typed error, a rejected value) and what the system refuses
    (a file where a folder should be, a damaged catalog) become one line and exit
    status 1 instead of a traceback."""
    from voxmem.errors import VoxmemError

    try:
        return fn()
    except (VoxmemError, ValueError, OSError) as exc:
        _fail(exc)
    except sqlite3.DatabaseError as exc:
        _fail(
            exc,
            " (the memory's catalog cannot be read: it is damaged or not a voxmem "
            "catalog; restore catalog.sqlite3 from a backup)",
        )


@app.command()
def ingest(
    files: list[Path] = typer.Argument(..., help="Audio files (wav, flac, mp3, m4a, ...)."),
    tenant: str = Tenant,
    session: str = typer.Option(..., "--session", "-s", help="Conversation id."),
    role: str = typer.Option("unknown", help="user, agent or unknown."),
    data_dir: Path | None = DataDir,
) -> None:
    """Diarize, transcribe and encode FILES, and store every speaker turn."""
    from rich.progress import Progress

    from voxmem.errors import VoxmemError

    memory = _memory(data_dir)
    table = Table(title=f"stored for {tenant} / {session}")
    for col in ("file", "segment", "speaker", "time", "transcript", "style", "environment"):
        table.add_column(col, overflow="fold")
    failed = 0
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("ingesting", total=len(files))
        for f in files:
            progress.update(task, description=f"ingesting {f.name}")
            try:
                segments = memory.ingest(f, tenant=tenant, session=session, role=role)
            except (VoxmemError, ValueError, OSError) as exc:
                failed += 1
                console.print(f"[red]{escape(str(f))}: {type(exc).__name__}:[/] {escape(str(exc))}")
                progress.advance(task)
                continue
            for seg in segments:
                table.add_row(
                    f.name,
                    seg.id,
                    seg.speaker_id or "-",
                    f"{seg.start:.2f}-{seg.end:.2f}",
                    seg.transcript,
                    _top(seg.style_labels),
                    _top(seg.environment_labels),
                )
            progress.advance(task)
    console.print(table)
    if failed:
        raise typer.Exit(1)


def _top(labels: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.2f}" for k, v in list(labels.items())[:2])


speakers_app = typer.Typer(help="Known voices of a tenant: list, name, enroll, merge, split.")
app.add_typer(speakers_app, name="speakers")


@speakers_app.command("list")
def speakers_list(tenant: str = Tenant, data_dir: Path | None = DataDir) -> None:
    """List a tenant's speakers."""
    speakers = _call(lambda: _memory(data_dir).speakers(tenant))
    table = Table(title=f"speakers of {tenant}")
    for col in ("id", "name", "segments"):
        table.add_column(col)
    for spk in speakers:
        table.add_row(spk.id, spk.name or "-", str(spk.n_segments))
    console.print(table)


@speakers_app.command("name")
def speakers_name(
    speaker: str, name: str, tenant: str = Tenant, data_dir: Path | None = DataDir
) -> None:
    """Give SPEAKER (an id or current name) the name NAME."""
    spk = _call(lambda: _memory(data_dir).name_speaker(tenant, speaker, name))
    console.print(f"{spk.id} is now {spk.name}")


@speakers_app.command("enroll")
def speakers_enroll(
    name: str, clip: Path, tenant: str = Tenant, data_dir: Path | None = DataDir
) -> None:
    """Create or refine the speaker NAME from CLIP, a recording of their voice."""
    spk = _call(lambda: _memory(data_dir).enroll_speaker(tenant, name, clip))
    console.print(f"enrolled {spk.name} as {spk.id}")


@speakers_app.command("merge")
def speakers_merge(
    keep: str, other: str, tenant: str = Tenant, data_dir: Path | None = DataDir
) -> None:
    """Fold OTHER into KEEP (both ids or names)."""
    spk = _call(lambda: _memory(data_dir).merge_speakers(tenant, keep, other))
    console.print(f"{spk.id} ({spk.name or 'unnamed'}) now has {spk.n_segments} segments")


@speakers_app.command("split")
def speakers_split(
    speaker: str,
    segments: list[str],
    tenant: str = Tenant,
    name: str | None = typer.Option(None, help="Name of the new speaker."),
    data_dir: Path | None = DataDir,
) -> None:
    """Move SEGMENTS of SPEAKER to a new speaker."""
    spk = _call(lambda: _memory(data_dir).split_speaker(tenant, speaker, segments, name))
    console.print(f"new speaker {spk.id} with {spk.n_segments} segments")


@app.command()
def sessions(tenant: str = Tenant, data_dir: Path | None = DataDir) -> None:
    """List a tenant's sessions: turns, first and last stored."""
    import datetime as dt

    found = _call(lambda: _memory(data_dir).sessions(tenant))
    table = Table(title=f"sessions of {tenant}")
    for col in ("session", "turns", "first", "last"):
        table.add_column(col)
    for s in found:
        first, last = (
            dt.datetime.fromtimestamp(t).isoformat(sep=" ", timespec="seconds")
            for t in (s.first, s.last)
        )
        table.add_row(s.session, str(s.turns), first, last)
    console.print(table)


@app.command()
def forget(
    tenant: str = Tenant,
    speaker: str | None = typer.Option(None, help="Every turn of this speaker (id or name)."),
    session: str | None = typer.Option(None, help="Every turn of this session."),
    segment: str | None = typer.Option(None, help="One segment id."),
    everything: bool = typer.Option(False, "--everything", help="All of the tenant's memory."),
    data_dir: Path | None = DataDir,
) -> None:
    """Erase turns for good: audio, rows, vectors and their bytes on disk."""
    n = _call(
        lambda: _memory(data_dir).forget(
            tenant, speaker=speaker, session=session, segment=segment, everything=everything
        )
    )
    console.print(f"forgot {n} segment(s) of {tenant}")


@app.command()
def stats(
    tenant: str | None = typer.Option(None, "--tenant", "-t"), data_dir: Path | None = DataDir
) -> None:
    """Counts and sizes, for one tenant or the whole memory."""
    figures = _call(lambda: _memory(data_dir).stats(tenant))
    table = Table(title=f"memory {'of ' + tenant if tenant else ''}".strip())
    table.add_column("figure")
    table.add_column("value")
    for key, value in figures.items():
        table.add_row(key, str(value))
    console.print(table)


@app.command()
def rebuild(
    tenant: str | None = typer.Option(None, "--tenant", "-t"),
    fresh: bool = typer.Option(
        False,
        "--fresh",
        help="Erase the embedded index first (when it is damaged and cannot be opened).",
    ),
    data_dir: Path | None = DataDir,
) -> None:
    """Recreate the vector index from the catalog."""
    if fresh:
        from voxmem.memory.index import erase_embedded

        settings = _call(Settings)
        if settings.chroma.url:
            _fail(ValueError("--fresh erases an embedded index; a Chroma server keeps its own"))
        root = data_dir or settings.data_dir
        path = (
            settings.chroma.path if data_dir is None and settings.chroma.path else root / "chroma"
        )
        if not (root / "catalog.sqlite3").exists():
            _fail(FileNotFoundError(f"no memory at {root}: nothing to rebuild the index from"))
        _call(lambda: erase_embedded(path))
    with console.status("rebuilding the index"):
        n = _call(lambda: _memory(data_dir).rebuild(tenant))
    console.print(f"indexed {n} segment(s)")


@app.command()
def migrate(
    to_data_dir: Path = typer.Option(
        ..., "--to-data-dir", help="The target memory's data folder (created if missing)."
    ),
    to_catalog_url: str | None = typer.Option(
        None, "--to-catalog-url", help="postgresql://... for a PostgreSQL catalog (else SQLite)."
    ),
    to_chroma_url: str | None = typer.Option(
        None, "--to-chroma-url", help="http://host:8000 for a Chroma server (else embedded)."
    ),
    to_audio: str = typer.Option(
        "database", "--to-audio", help="With --to-catalog-url: database or folder."
    ),
    to_audio_dir: Path | None = typer.Option(
        None, "--to-audio-dir", help="With --to-audio folder: the folder every process shares."
    ),
    tenant: list[str] = typer.Option(
        [], "--tenant", "-t", help="Only these tenants (repeatable; default: all)."
    ),
    data_dir: Path | None = DataDir,
) -> None:
    """Copy tenants from this memory to another (embedded <-> PostgreSQL / Chroma server),
    then check the copy: counts, and for a sample of turns their vectors and audio."""
    from voxmem.memory import AudioMemory
    from voxmem.memory.migrate import migrate as copy_memory
    from voxmem.settings import CatalogSettings, ChromaSettings

    source = _memory(data_dir)
    # the target is what these options say, and nothing of the environment's VOXMEM_*
    # (which names the source)
    target_settings = _call(
        lambda: source.settings.model_copy(
            update={
                "data_dir": to_data_dir,
                "chroma": ChromaSettings(url=to_chroma_url, path=to_data_dir / "chroma"),
                "catalog": CatalogSettings.model_validate(
                    {"url": to_catalog_url, "audio": to_audio, "audio_dir": to_audio_dir}
                    if to_catalog_url
                    else {}
                ),
            }
        )
    )
    target = _call(lambda: AudioMemory(target_settings))

    def said(name: str, done: int, total: int) -> None:
        console.print(f"{name}: {done} of {total} turns copied", highlight=False)

    copies = _call(lambda: copy_memory(source, target, tenant or None, progress=said))
    for c in copies:
        counts = ", ".join(f"{n} {kind}" for kind, n in c.counts.items())
        console.print(f"copied {c.tenant}: {counts}; {c.sampled} turns checked (vectors, audio)")
    target.close()
    source.close()


@app.command()
def verify(
    repair: bool = typer.Option(True, help="Fix what differs (--no-repair reports)."),
    data_dir: Path | None = DataDir,
) -> None:
    """Compare the catalog, the audio files and the index."""
    report = _call(lambda: _memory(data_dir).verify(repair=repair))
    console.print(report.describe())
    if not report.ok and not repair:
        raise typer.Exit(1)


@app.command()
def recall(
    instruction: str = typer.Argument(..., help="What to find, in plain words."),
    tenant: str = Tenant,
    reference: Path | None = typer.Option(
        None, "--reference", "-r", help="A clip the instruction refers to."
    ),
    k: int = typer.Option(5, "--k", min=1, help="How many turns (1 or more)."),
    write_audio: Path | None = typer.Option(
        None, "--write-audio", help="Write each hit's audio into this folder."
    ),
    data_dir: Path | None = DataDir,
) -> None:
    """Recall stored turns by instruction, with the evidence for each."""
    from voxmem.audio import write_wav
    from voxmem.memory.records import UnknownTenant
    from voxmem.retrievers.recall import recall as do_recall

    if write_audio is not None and write_audio.exists() and not write_audio.is_dir():
        _fail(
            FileExistsError(
                f"--write-audio {write_audio} is a file; it names a folder to write each hit's "
                "audio into: give a new or existing folder"
            )
        )
    memory = _memory(data_dir)
    result = _call(lambda: do_recall(memory, tenant, instruction, reference=reference, k=k))
    console.print(f"plan: {result.plan.describe()}")
    for notice in result.plan.notices:  # what the planner could not do as asked
        console.print(f"[yellow]note ({notice.kind}):[/] {escape(notice.message)}", highlight=False)

    # a named voice by its name (its id if the tenant went meanwhile)
    def speaker_names() -> dict[str, str | None]:
        try:
            return {s.id: s.name for s in memory.speakers(tenant)}
        except UnknownTenant:
            return {}

    names = _call(speaker_names) if result.turns else {}
    table = Table()
    for col in ("rank", "score", "speaker", "session", "time", "transcript", "evidence"):
        table.add_column(col, overflow="fold")
    for i, hit in enumerate(result.turns, 1):
        seg = hit.segment
        ev = ", ".join(
            f"{e.attribute} {e.raw:.2f}{' ✓' if e.matched else ''}" for e in hit.evidence.values()
        )
        table.add_row(
            str(i),
            # the hit's standing among the candidates (their z-scores fused, plus one
            # lift for every turn of the asked-for voice under the speaker gate): a
            # rank score, below zero is possible
            f"{hit.score:.2f}",
            names.get(seg.speaker_id or "") or seg.speaker_id or "-",
            seg.session,
            f"{seg.start:.1f}-{seg.end:.1f}",
            seg.transcript,
            ev,
        )
    console.print(table)
    if write_audio is not None:
        folder = write_audio
        _call(
            lambda: [
                write_wav(
                    memory.audio(tenant, hit.segment.id), folder / f"{i:02d}-{hit.segment.id}.wav"
                )
                for i, hit in enumerate(result.turns, 1)
            ]
        )


@app.command()
def demo(
    folder: Path | None = typer.Option(
        None, "--folder", help="Use these audio files instead of a synthetic conversation."
    ),
    data_dir: Path | None = typer.Option(
        None, "--data-dir", help="Keep the demo memory here (default: temporary)."
    ),
    memory_only: bool = typer.Option(
        False,
        "--memory-only",
        help="Only the memory: store a conversation and recall turns (no server, no agent).",
    ),
) -> None:
    """The whole product: start the voice server on loopback, speak a scripted
    three-voice conversation into it as a Realtime client, and print each turn."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if memory_only or folder is not None:
        from voxmem.benchmarks.demo import run_demo

        raise typer.Exit(run_demo(console, folder, data_dir))
    from voxmem.benchmarks.live_demo import run_live_demo

    raise typer.Exit(run_live_demo(console, data_dir))


def main() -> None:
    app()


def _register_more_commands() -> None:
    """Commands that live in their own modules."""
    from voxmem.cli_chat import chat
    from voxmem.cli_serve import serve, token

    app.command(
        name="chat", context_settings={"allow_extra_args": True, "ignore_unknown_options": True}
    )(chat)
    app.command(name="serve")(serve)
    app.command(name="token")(token)


_register_more_commands()
