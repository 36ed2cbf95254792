from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import VENV_BIN
from voxmem.audio import Audio, load_audio
from voxmem.benchmarks.probes.mini import LIBRIVOX
from voxmem.benchmarks.probes.run import probe_for
from voxmem.benchmarks.probes.taskformat import TaskFormatError, audio_cell, read_task, write_task
from voxmem.benchmarks.synth import ClipCache, Utterance, render
from voxmem.benchmarks.synth.conversation import conversation


def _clip(cache: ClipCache, text: str, voice: str, **kw: object) -> dict[str, object]:
    return audio_cell(render(Utterance(text, voice, **kw), cache), f"{voice}.flac")  # type: ignore[arg-type]


def test_task_folders_round_trip_and_validate(tmp_path: Path) -> None:
    audio = Audio(np.sin(np.arange(16_000) / 10).astype(np.float32) * 0.3)
    rows = [
        {
            "file": "a",
            "audio": audio_cell(audio, "a.flac"),
            "instruction": "x",
            "label": "y",
            "speaker": "s1",
        }
    ]
    write_task(tmp_path / "Task_A", rows, "a task")
    task = read_task(tmp_path / "Task_A")
    assert task.audio_columns == ("audio",) and task.rows[0]["speaker"] == "s1"
    np.testing.assert_allclose(task.audio(task.rows[0]).samples, audio.samples, atol=1e-4)

    write_task(
        tmp_path / "Task_B",
        [{"file": "a", "audio": audio_cell(audio, "a"), "label": "y"}],
        "no instruction",
    )
    with pytest.raises(TaskFormatError, match=r"lacks column.*instruction"):
        read_task(tmp_path / "Task_B")
    (tmp_path / "Task_C").mkdir()
    with pytest.raises(TaskFormatError, match="no parquet"):
        read_task(tmp_path / "Task_C")
    write_task(
        tmp_path / "Task_D",
        [{"file": "a", "text": "t", "instruction": "i", "label": "y"}],
        "no audio",
    )
    with pytest.raises(TaskFormatError, match="no audio column"):
        read_task(tmp_path / "Task_D")
    write_task(
        tmp_path / "Task_E",
        [
            {
                "file": "bad",
                "audio": {"bytes": b"garbage" * 40, "path": "x"},
                "instruction": "i",
                "label": "y",
            }
        ],
        "corrupt audio",
    )
    task = read_task(tmp_path / "Task_E")
    with pytest.raises(TaskFormatError, match="row 'bad'"):
        task.audio(task.rows[0])


def test_probe_names_follow_dynamic_superb() -> None:
    assert probe_for("SpeakerVerification_VCTK") == "speaker_verification"
    assert probe_for("EmotionRecognition_MultimodalEmotionlinesDataset") == "style"
    assert probe_for("EnvironmentalSoundClassification_ESC50-Animals") == "environment"
    assert probe_for("SuperbASR_LibriSpeech-TestClean") == "asr"
    assert probe_for("Unrelated_Task") is None


@pytest.mark.models
def test_probes_run_on_a_real_format_folder(tmp_path: Path, clip_cache: ClipCache) -> None:
    data = tmp_path / "tasks"
    s1, s2 = "The budget meeting moved to Thursday morning.", "Could you send me the slides?"
    pairs = [
        ("flite-slt", "flite-slt", "yes"),
        ("flite-slt", "flite-rms", "no"),
        ("piper-joe", "piper-joe", "yes"),
        ("piper-joe", "espeak-us-f", "no"),
    ]
    write_task(
        data / "SpeakerVerification_Tiny",
        [
            {
                "file": f"p{i}",
                "enrollment": _clip(clip_cache, s1, a),
                "testing": _clip(clip_cache, s2, b),
                "instruction": "same?",
                "label": lab,
            }
            for i, (a, b, lab) in enumerate(pairs)
        ],
        "pairs",
    )
    write_task(
        data / "EmotionRecognition_Tiny",
        [
            {
                "file": f"{v}-{st}",
                "audio": _clip(clip_cache, s1, v, style=st),
                "instruction": "style?",
                "label": st,
            }
            for v in ("flite-slt", "flite-rms")
            for st in ("neutral", "whisper", "fast")
        ],
        "styles",
    )
    write_task(
        data / "EnvironmentRecognition_Tiny",
        [
            {
                "file": f"{v}-{bg}",
                "audio": _clip(clip_cache, s1, v, background=bg, snr_db=10.0),
                "instruction": "where?",
                "label": bg,
            }
            for v in ("flite-slt", "flite-rms")
            for bg in ("rain", "phone")
        ],
        "backgrounds",
    )
    ident = "sense_and_sensibility_01_austen_64kb-0930"
    write_task(
        data / "SpeechRecognition_Tiny",
        [
            {
                "file": ident,
                "audio": audio_cell(load_audio(LIBRIVOX / f"{ident}.wav"), "x"),
                "instruction": "transcribe",
                "label": "he might even have been made amiable himself",
            }
        ],
        "asr",
    )
    audio, ref = conversation(
        [Utterance(s1, "flite-slt"), Utterance(s2, "festival-ked"), Utterance(s2, "flite-slt")],
        clip_cache,
        seed=3,
    )
    write_task(
        data / "SpeakerDiarization_Tiny",
        [
            {
                "file": "c",
                "audio": audio_cell(audio, "c"),
                "instruction": "who spoke when",
                "label": json.dumps([[r.start, r.end, r.speaker] for r in ref]),
            }
        ],
        "diarization",
    )

    # through the command's own code in this process (the executable itself is run by
    # the test below), so that the shipped models this session has loaded are reused
    from typer.testing import CliRunner

    from voxmem.benchmarks.cli import app

    run = CliRunner().invoke(
        app, ["run", "probes", "--data-dir", str(data), "--out", str(tmp_path / "out")]
    )
    if run.exception is not None and not isinstance(run.exception, SystemExit):
        raise run.exception  # what a process would print as a traceback
    assert run.exit_code == 0, run.output[-3000:]
    results = json.loads((tmp_path / "out" / "probes" / "results.json").read_text())
    assert results["benchmark"] == "probes" and "task folders" in results["edition"]
    rows = {(r["probe"], r["backend"], r["metric"]): r["value"] for r in results["rows"]}
    assert rows[("speaker verification", "voicefilter-dvector", "EER")] == 0.0
    assert rows[("asr", "whisper-base", "WER")] <= 0.15
    assert rows[("diarization", "clustering", "DER (2 speakers, collar 0.25)")] < 0.15
    assert 0.0 <= rows[("style", "egemaps", "accuracy (absolute)")] <= 1.0
    assert 0.0 <= rows[("environment", "yamnet", "top-1 accuracy")] <= 1.0
    assert any(p == "throughput" for p, _, _ in rows)
    assert "| probe |" in (tmp_path / "out" / "probes" / "summary.md").read_text()


def test_probes_report_a_malformed_folder(tmp_path: Path) -> None:
    (tmp_path / "SpeakerVerification_Broken").mkdir()
    proc = subprocess.run(
        [
            str(VENV_BIN / "benchmarks"),
            "run",
            "probes",
            "--data-dir",
            str(tmp_path),
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 1
    assert "TaskFormatError" in proc.stdout and "no parquet" in proc.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = subprocess.run(
        [str(VENV_BIN / "benchmarks"), "run", "probes", "--data-dir", str(empty)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 1 and "no task folders" in proc.stdout
