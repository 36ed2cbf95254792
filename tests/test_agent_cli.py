"""`voxmem chat` as a user runs it, on the shipped models."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import VENV_BIN
from voxmem.audio import write_wav
from voxmem.benchmarks.agent_bench import BUDGET_DANA, DANA, Line, clip_for
from voxmem.benchmarks.synth import ClipCache
from voxmem.cli import app


def test_chat_refuses_a_bad_tenant_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "chat",
            "--tenant",
            "no good",
            "--session",
            "s",
            "--text",
            "hi",
            "--data-dir",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 1
    assert "TenantRequired" in result.output and "Traceback" not in result.output


@pytest.mark.models
def test_chat_with_audio_and_text_turns(tmp_path: Path, pytestconfig: pytest.Config) -> None:
    cache = ClipCache(pytestconfig.cache.mkdir("voxmem-synth"))
    fact = write_wav(clip_for(Line("s", DANA, BUDGET_DANA), cache), tmp_path / "fact.wav")
    junk = tmp_path / "junk.wav"
    junk.write_bytes(b"RIFF not really a wav file")
    out = tmp_path / "replies"
    proc = subprocess.run(
        [
            str(VENV_BIN / "voxmem"),
            "chat",
            "--tenant",
            "acme",
            "--session",
            "monday",
            "--data-dir",
            str(tmp_path / "data"),
            "--say",
            str(fact),
            str(junk),
            "--text",
            "What did I say about the budget?",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = proc.stdout + proc.stderr
    assert "Traceback" not in output
    assert "marketing" in output.lower()
    assert "recall" in output and "first_audio" in output
    assert "couldn't use that audio" in output  # the junk file, answered, not fatal
    assert proc.returncode == 1  # one turn could not be heard
    replies = sorted(out.glob("monday-*.wav"))
    assert len(replies) == 3
