"""``voxmem demo``: the whole product in one command, as the README runs it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import VENV_BIN


@pytest.mark.models
@pytest.mark.synth
def test_demo_talks_to_a_served_agent_end_to_end(clips_tmpdir: Path) -> None:
    """A real ``voxmem serve`` process on loopback, the scripted conversation spoken
    into it in real time: every turn answered with audio, recall answered from memory.
    (Its callers' clips come from the session's clip cache, see ``clips_tmpdir``.)"""
    proc = subprocess.run(
        [str(VENV_BIN / "voxmem"), "demo"],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env={
            "PATH": "/usr/bin:/bin",
            "COLUMNS": "200",
            "HOME": str(Path.home()),
            "TMPDIR": str(clips_tmpdir),
        },
    )
    out = proc.stdout
    assert proc.returncode == 0, (out + proc.stderr)[-3000:]
    assert "listening on ws://127.0.0.1:" in out
    assert "14 of 14 turns answered with audio" in out, out[-3000:]
    # each spoken turn: who spoke, what was heard, the answer, the latency
    assert out.count("  agent [completed]:") == 14, out[-3000:]
    assert len(re.findall(r"latency: end of speech -> first audio \d+ ms", out)) == 14
    assert "Nice to meet you, Dana" in out
    # Tuesday's questions recall Monday's turns, including what the agent itself said
    tuesday = out.split("session 'tuesday'")[1]
    hotel = tuesday.split("What did you tell me about the hotel?")[1].split("\n")
    assert "recalled" in hotel[1] and "Riverside" in hotel[1], hotel[:3]
    found = re.search(r"(\d+) of 7 questions recalled the asked-for turn first", out)
    assert found and int(found.group(1)) >= 3, out[-2000:]
