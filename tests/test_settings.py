from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from voxmem.settings import Role, Settings


def test_defaults_are_offline_and_embedded() -> None:
    s = Settings()
    assert s.allow_downloads is False
    assert s.chroma.mode == "embedded"
    assert s.chroma.path == s.data_dir / "chroma"
    assert s.asr.backend == "faster-whisper" and s.asr.variant == "base"
    assert {r.value for r in Role} == {
        "asr",
        "vad",
        "speaker",
        "style",
        "environment",
        "text",
        "diarization",
        "llm",
        "tts",
    }
    for role in Role:
        assert s.model_for(role).backend


def test_environment_overrides_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("VOXMEM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("VOXMEM_ASR__VARIANT", "tiny.en")
    monkeypatch.setenv("VOXMEM_SPEAKER__WEIGHTS", "/models/ecapa")
    monkeypatch.setenv("VOXMEM_CHROMA__URL", "http://127.0.0.1:8000")
    monkeypatch.setenv("VOXMEM_THREADS", "4")
    monkeypatch.setenv("VOXMEM_ALLOW_DOWNLOADS", "true")
    s = Settings()
    assert s.data_dir == tmp_path / "data"
    assert s.chroma.path == tmp_path / "data" / "chroma"
    assert s.asr.variant == "tiny.en" and s.asr.backend == "faster-whisper"
    assert s.speaker.weights == "/models/ecapa"
    assert s.chroma.mode == "server" and s.chroma.url == "http://127.0.0.1:8000"
    assert s.threads == 4 and s.allow_downloads is True


def test_precedence_arguments_then_env_then_dotenv(monkeypatch: pytest.MonkeyPatch) -> None:
    Path(".env").write_text(
        "VOXMEM_THREADS=3\nVOXMEM_TEXT__BACKEND=e5\nVOXMEM_DATA_DIR=/from/dotenv\n"
    )
    assert Settings().threads == 3
    assert Settings().text.backend == "e5"
    monkeypatch.setenv("VOXMEM_THREADS", "5")
    s = Settings()
    assert s.threads == 5  # environment beats .env
    assert s.data_dir == Path("/from/dotenv")  # .env beats the default
    assert Settings(threads=7).threads == 7  # arguments beat everything


def test_home_is_expanded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VOXMEM_CACHE_DIR", "~/somewhere")
    assert "~" not in str(Settings().cache_dir)


@pytest.mark.parametrize("bad", ["0", "-1", "many"])
def test_invalid_threads_are_rejected(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    monkeypatch.setenv("VOXMEM_THREADS", bad)
    with pytest.raises(ValidationError, match="threads"):
        Settings()


def test_asr_language_reaches_the_transcriber(monkeypatch: pytest.MonkeyPatch) -> None:
    from voxmem.memory.encoders import factory

    seen = {}

    class Spy:
        def __init__(self, model: object, threads: int, language: str | None = None) -> None:
            seen["language"] = language

    monkeypatch.setattr(factory, "WhisperTranscriber", Spy)
    monkeypatch.setenv("VOXMEM_ASR__LANGUAGE", "en")
    factory.transcriber(Settings())
    assert seen["language"] == "en"


def test_torch_threads_default_to_one_and_are_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert Settings().torch_threads == 1
    monkeypatch.setenv("VOXMEM_TORCH_THREADS", "3")
    assert Settings().torch_threads == 3 and Settings().threads == 2
    monkeypatch.setenv("VOXMEM_TORCH_THREADS", "0")
    with pytest.raises(ValidationError, match="torch_threads"):
        Settings()
