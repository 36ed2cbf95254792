"""``benchmarks run voice --quick``: a real ``voxmem serve`` process, real websocket
callers streaming synthetic speech in real time, and the report they produce."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import VENV_BIN


@pytest.mark.models
@pytest.mark.synth
def test_voice_benchmark_quick_end_to_end(tmp_path: Path, clips_tmpdir: Path) -> None:
    # its callers' clips come from the session's clip cache (see ``clips_tmpdir``)
    proc = subprocess.run(
        [str(VENV_BIN / "benchmarks"), "run", "voice", "--quick", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=400,
        check=False,
        env={**os.environ, "TMPDIR": str(clips_tmpdir)},
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    folder = tmp_path / "voice"
    report = json.loads((folder / "results.json").read_text())
    assert (folder / "summary.md").read_text().startswith("# voice")
    assert (folder / "voice.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert report["plots"] == ["voice.png"]
    results = report["results"]
    assert results["memory_turns"] == 0
    levels = results["levels"]
    assert [lv["sessions"] for lv in levels] == [1, 2]
    for lv in levels:
        assert set(lv) >= {
            "sessions",
            "turns",
            "turns_replied",
            "sessions_replied",
            "speech_end_to_first_audio",
            "clip_end_to_first_audio",
            "stages",
            "barge_in",
        }
        # every session got every reply, with audio
        assert lv["sessions_replied"] == lv["sessions"], lv
        assert lv["turns_replied"] == lv["turns"] == 2 * lv["sessions"], lv
        e2e = lv["speech_end_to_first_audio"]
        assert e2e["n"] == lv["turns"] and 0 < e2e["p50_ms"] <= e2e["p95_ms"] < 60_000
        # the caller's clock agrees with the server's own measure within a second
        server = lv["stages"]["server.speech_end_to_first_audio_ms"]
        assert abs(server["p50_ms"] - e2e["p50_ms"]) < 1000, lv
        assert "agent.perceive" in lv["stages"]
        barge = lv["barge_in"]
        assert barge["status"] == "cancelled" and barge["reason"] == "turn_detected", barge
        assert 0 < barge["speech_to_speech_started_ms"] < 2000, barge
    rows = {(r["sessions"], r["metric"]) for r in report["rows"]}
    assert (1, "speech_end_to_first_audio") in rows and (
        2,
        "barge_in.speech_to_speech_started",
    ) in rows
