"""Bad input at the command line: one typed line and exit status 1, never a traceback."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from voxmem.cli import app


@pytest.mark.parametrize("tenant", ["nobody", "not a tenant!"])
@pytest.mark.parametrize(
    "args",
    [
        ["speakers", "list"],
        ["speakers", "name", "spk-1", "Ann"],
        ["speakers", "merge", "a", "b"],
        ["speakers", "split", "a", "seg-1"],
        ["stats"],
        ["forget", "--everything"],
        ["recall", "what was said about the budget"],
    ],
)
def test_unknown_or_invalid_tenant_is_one_clear_line(
    args: list[str], tenant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VOXMEM_DATA_DIR", str(tmp_path / "memory"))
    result = CliRunner().invoke(app, [*args, "--tenant", tenant])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert "UnknownTenant" in result.output or "TenantRequired" in result.output


# --- faults a user meets at the command line --------------------------------------


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A memory with two sessions and two speakers of tenant acme (fake encoders)."""
    from tests.store_helpers import open_fake, tone, vectors

    path = tmp_path_factory.mktemp("cli") / "memory"
    with open_fake(path) as memory:
        for i, session in enumerate(["s1", "s2"]):
            memory.add_segment(
                tone(300 + 400 * i),
                tenant="acme",
                session=session,
                transcript=f"turn {i}",
                vectors=vectors(memory, i),
            )
        ids = [s.id for s in memory.speakers("acme")]
    return path, ids


def _run(args: list[str], data_dir: Path, **env: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, [*args, "--data-dir", str(data_dir)], env=env)
    return result.exit_code, result.output


def _one_line(code: int, output: str, error: str) -> None:
    assert code == 1, output
    assert "Traceback" not in output and "╭" not in output, output
    lines = [line for line in output.splitlines() if line.strip()]
    assert lines[0].startswith(f"{error}:"), output
    assert len(lines) <= 3, output  # the one message, wrapped at most twice


def test_recall_refuses_k_below_one(tmp_path: Path) -> None:
    code, output = _run(["recall", "the budget", "-t", "acme", "--k", "-3"], tmp_path)
    assert code == 2
    assert "Invalid value for '--k'" in output and "greater than or equal to 1" in output


def test_write_audio_onto_a_file_is_refused_before_recalling(tmp_path: Path) -> None:
    target = tmp_path / "hits.wav"
    target.write_bytes(b"mine")
    code, output = _run(
        ["recall", "the budget", "-t", "acme", "--write-audio", str(target)], tmp_path / "m"
    )
    _one_line(code, output, "FileExistsError")
    assert "is a file" in output and target.read_bytes() == b"mine"


@pytest.mark.parametrize(
    "args",
    [["stats"], ["speakers", "list", "-t", "acme"], ["recall", "the budget", "-t", "acme"]],
)
def test_a_data_folder_that_is_a_file_is_one_line(args: list[str], tmp_path: Path) -> None:
    not_a_folder = tmp_path / "memory"
    not_a_folder.write_text("a file")
    code, output = _run(args, not_a_folder)
    assert code == 1 and "Traceback" not in output and "╭" not in output, output
    assert "memory" in output and len(output.strip().splitlines()) <= 3, output


@pytest.mark.parametrize("args", [["stats"], ["recall", "the budget", "-t", "acme"]])
def test_a_damaged_catalog_is_one_line_that_says_what_to_do(
    args: list[str], stored: tuple[Path, list[str]], tmp_path: Path
) -> None:
    import shutil

    copy = tmp_path / "memory"
    shutil.copytree(stored[0], copy)
    (copy / "catalog.sqlite3").write_bytes(np.random.default_rng(0).bytes(20_000))
    for extra in ("catalog.sqlite3-wal", "catalog.sqlite3-shm"):
        (copy / extra).unlink(missing_ok=True)
    code, output = _run(args, copy)
    _one_line(code, output, "DatabaseError")
    assert "restore catalog.sqlite3 from a backup" in " ".join(output.split())


def test_a_damaged_index_is_one_line_and_rebuild_fresh_restores_it(
    stored: tuple[Path, list[str]], tmp_path: Path
) -> None:
    import shutil

    copy = tmp_path / "memory"
    shutil.copytree(stored[0], copy)
    (copy / "chroma" / "chroma.sqlite3").write_bytes(np.random.default_rng(1).bytes(50_000))
    for args in (["stats"], ["rebuild"]):
        code, output = _run(args, copy)
        _one_line(code, output, "IndexDamaged")
        assert "voxmem rebuild --fresh" in " ".join(output.split()), output
    code, output = _run(["rebuild", "--fresh"], copy)
    assert code == 0 and "indexed 2 segment(s)" in output, output
    code, output = _run(["verify", "--no-repair"], copy)
    assert code == 0, output  # the catalog, the audio and the rebuilt index agree
    assert "consistent" in output and "repaired" not in output, output
    code, output = _run(["sessions", "-t", "acme"], copy)
    assert code == 0 and "s1" in output and "s2" in output, output


@pytest.mark.parametrize(
    "args",
    [["stats"], ["recall", "the budget", "-t", "acme"], ["forget", "-t", "acme", "--everything"]],
)
def test_a_chroma_server_that_is_down_at_start_is_one_line(args: list[str], tmp_path: Path) -> None:
    from tests.store_helpers import free_port

    code, output = _run(args, tmp_path, VOXMEM_CHROMA__URL=f"http://127.0.0.1:{free_port()}")
    _one_line(code, output, "IndexUnavailable")


def test_naming_a_speaker_empty_or_after_another_speakers_id_is_refused(
    stored: tuple[Path, list[str]], tmp_path: Path
) -> None:
    import shutil

    copy = tmp_path / "memory"
    shutil.copytree(stored[0], copy)
    first, second = stored[1]
    for name in ["", "  ", second]:
        code, output = _run(["speakers", "name", first, name, "-t", "acme"], copy)
        assert code == 1 and "Traceback" not in output, output
    code, output = _run(["speakers", "list", "-t", "acme"], copy)
    assert code == 0 and output.count(" - ") >= 2, output  # both still unnamed


def test_forgetting_an_unknown_session_is_an_error_like_an_unknown_speaker(
    stored: tuple[Path, list[str]], tmp_path: Path
) -> None:
    import shutil

    copy = tmp_path / "memory"
    shutil.copytree(stored[0], copy)
    code, output = _run(["forget", "-t", "acme", "--speaker", "nobody"], copy)
    _one_line(code, output, "UnknownSpeaker")
    code, output = _run(["forget", "-t", "acme", "--session", "nosuch"], copy)
    _one_line(code, output, "UnknownSession")
    assert "voxmem sessions" in output
    code, output = _run(["sessions", "-t", "acme"], copy)
    rows = [line.split("│")[1].strip() for line in output.splitlines() if line.count("│") > 3]
    assert code == 0 and rows == ["s1", "s2"], output


@pytest.mark.models
def test_ingesting_audio_without_speech_stores_nothing_and_says_why(tmp_path: Path) -> None:
    import soundfile as sf

    rng = np.random.default_rng(0)
    for name, samples in {
        "noise": 0.3 * rng.standard_normal(48_000),
        "tone": 0.3 * np.sin(2 * np.pi * 440 * np.arange(48_000) / 16_000),
        "click": 0.3 * rng.standard_normal(160),
    }.items():
        sf.write(tmp_path / f"{name}.wav", samples.astype(np.float32), 16_000)
        code, output = _run(
            ["ingest", str(tmp_path / f"{name}.wav"), "-t", "acme", "-s", "s1"], tmp_path / "m"
        )
        assert code == 1 and "NoSpeech" in output and "nothing was stored" in output, output
    code, output = _run(["stats"], tmp_path / "m")
    assert code == 0
    assert re.search(r"recordings\W+0\b", output) and re.search(r"segments\W+0\b", output), output


def test_recall_prints_the_plans_notices_and_follows_the_planner_setting(tmp_path: Path) -> None:
    """The planner is chosen by settings (``VOXMEM_PLANNER__*``), and what it could not
    do as asked is printed under the plan."""
    from tests.store_helpers import tone
    from voxmem.memory.encoders.fake import fake_perception
    from voxmem.memory.store import AudioMemory
    from voxmem.settings import Settings

    dims = {"text": 384, "speaker": 256, "style": 88, "environment": 603}  # the real ones
    rng = np.random.default_rng(0)
    with AudioMemory(Settings(data_dir=tmp_path), perception=fake_perception(dims=dims)) as m:
        vecs = {s: rng.standard_normal(n).astype(np.float32) for s, n in dims.items()}
        m.add_segment(
            tone(300),
            tenant="acme",
            session="s1",
            transcript="the budget is due friday",
            vectors={s: v / np.linalg.norm(v) for s, v in vecs.items()},
        )
        [spk] = m.speakers("acme")
        m.name_speaker("acme", spk.id, "dana")
    code, output = _run(["recall", "what was said about the budget", "-t", "acme"], tmp_path)
    assert code == 0, output
    row = next(line for line in output.splitlines() if "budget is due" in line)
    assert "dana" in row and spk.id not in row  # the voice by its name, not its id
    ask = ["recall", "予算について何と言いましたか", "-t", "acme"]
    code, output = _run(ask, tmp_path)
    assert code == 0, output
    assert "note (other_language)" in output and "not English" in output
    assert "the budget is due friday" in output and "fallback" not in output
    # an LLM planner whose endpoint is down: the trained planner reads it, and says so
    code, output = _run(
        ask,
        tmp_path,
        VOXMEM_PLANNER__KIND="llm",
        VOXMEM_PLANNER__OPENAI_BASE_URL="http://127.0.0.1:9/v1",
        VOXMEM_PLANNER__TIMEOUT_S="2",
    )
    assert code == 0, output
    assert "note (fallback)" in output and "the trained planner read it" in output


def test_a_verify_report_says_what_differed_and_whether_it_was_repaired() -> None:
    from voxmem.memory.maintenance import VerifyReport

    report = VerifyReport(missing_in_index={"text": 2, "style": 0}, orphan_audio=1)
    text = report.describe()
    assert "2 text entries missing from the index" in text and "style" not in text
    assert "1 audio files of no turn" in text and "to repair" in text
    report.repaired = True
    assert report.describe().startswith("repaired:")
    assert VerifyReport(repaired=True).describe().startswith("consistent")
    # a lost audio file is never called repaired
    lost = VerifyReport(missing_audio=["seg_1"], repaired=True).describe()
    assert lost.startswith("not repaired: 1 turns with no audio file"), lost
