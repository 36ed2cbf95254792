"""The memory end to end on the real shipped models: ingest, recall, speakers, CLI."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.conftest import VENV_BIN
from voxmem.audio import write_wav
from voxmem.benchmarks.synth import ClipCache, Utterance
from voxmem.benchmarks.synth.conversation import conversation
from voxmem.cli import app
from voxmem.memory import AudioMemory
from voxmem.settings import Settings

pytestmark = pytest.mark.models

BUDGET = "The budget for the new project was cut by ten percent."
WEATHER = "It will rain all weekend at the lake house."
TRAIN = "Please book the train tickets to Lisbon tonight."


@pytest.fixture(scope="module")
def meeting(tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config) -> Path:
    cache = ClipCache(pytestconfig.cache.mkdir("voxmem-synth"))
    audio, _ = conversation(
        [
            Utterance(BUDGET, "flite-rms"),
            Utterance(WEATHER, "piper-joe"),
            Utterance(TRAIN, "espeak-sc-f", style="fast"),
        ],
        cache,
        seed=5,
    )
    return write_wav(audio, tmp_path_factory.mktemp("audio") / "meeting.wav")


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> AudioMemory:
    root = tmp_path_factory.mktemp("mem")
    return AudioMemory(Settings(data_dir=root / "data", cache_dir=root / "cache"))


def test_ingest_and_recall_with_real_models(
    memory: AudioMemory, meeting: Path, pytestconfig: pytest.Config
) -> None:
    segments = memory.ingest(meeting, tenant="acme", session="monday", role="user")
    assert len(segments) == 3
    assert len({s.speaker_id for s in segments}) == 3
    assert "budget" in segments[0].transcript.lower()
    assert "train" in segments[2].transcript.lower()
    assert all(s.words and s.style_labels and s.environment_labels for s in segments)
    assert segments[0].end <= segments[1].start
    hits = memory.search("acme", "text", memory.embed_query("how much money do we have"), 3)
    assert hits[0].segment.id == segments[0].id
    # the same voice in another session is the same speaker
    cache = ClipCache(pytestconfig.cache.mkdir("voxmem-synth"))
    later, _ = conversation(
        [Utterance("I found the receipts for the hotel.", "piper-joe")], cache, seed=9
    )
    (again,) = memory.ingest(later.samples, sample_rate=16_000, tenant="acme", session="tuesday")
    assert again.speaker_id == segments[1].speaker_id
    by_voice = memory.search(
        "acme", "speaker", again.vectors["speaker"], 2, where={"session": "monday"}
    )
    assert by_voice[0].segment.id == segments[1].id
    assert memory.verify(repair=False).ok


def test_cli_ingest_speakers_forget(tmp_path: Path, meeting: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VOXMEM_")}
    env.update(
        VOXMEM_DATA_DIR=str(tmp_path / "data"), VOXMEM_CACHE_DIR=str(tmp_path / "c"), COLUMNS="200"
    )
    # set for each in-process command and restored after it (the command sets it itself
    # when it is missing, which would outlive the test)
    env["HF_HUB_OFFLINE"] = "1"

    def voxmem_process(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(VENV_BIN / "voxmem"), *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
            check=False,
        )

    def voxmem(*args: str) -> Any:
        """The command's own code in this process, in the same environment (a new process
        for each would import the stack again: the executable runs the ingest and the
        forget)."""
        result = CliRunner().invoke(app, list(args), env=env)
        # what a process would print as a traceback, and exit 1 with
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return SimpleNamespace(returncode=result.exit_code, stdout=result.output)

    out = voxmem_process("ingest", str(meeting), "--tenant", "acme", "--session", "s1")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "budget" in out.stdout.lower() and "meeting.wav" in out.stdout
    listed = voxmem("speakers", "list", "--tenant", "acme")
    speaker = next(w for w in listed.stdout.split() if w.startswith("spk_"))
    assert listed.stdout.count("spk_") == 3
    assert voxmem("speakers", "name", speaker, "dana", "--tenant", "acme").returncode == 0
    assert "dana" in voxmem("speakers", "list", "--tenant", "acme").stdout
    bad = voxmem("ingest", str(tmp_path / "missing.wav"), "--tenant", "acme", "--session", "x")
    assert bad.returncode == 1 and "no audio file" in bad.stdout
    unknown = voxmem("stats", "--tenant", "nobody")
    assert unknown.returncode == 1 and "UnknownTenant" in unknown.stdout
    gone = voxmem_process("forget", "--tenant", "acme", "--speaker", "dana")
    assert gone.returncode == 0 and "forgot 1 segment" in gone.stdout
    assert voxmem("speakers", "list", "--tenant", "acme").stdout.count("spk_") == 2
    # new processes after another process's forget, as a user would run them
    assert voxmem_process("verify", "--no-repair").returncode == 0
    assert voxmem_process("rebuild").stdout.strip().endswith("indexed 2 segment(s)")


def test_the_embedding_example_runs(tmp_path: Path) -> None:
    import sys

    from tests.conftest import ROOT

    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "embed_memory.py")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "best match" in proc.stdout and "budget" in proc.stdout.lower()
    assert (tmp_path / "example-memory" / "catalog.sqlite3").exists()
