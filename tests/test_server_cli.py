"""``voxmem serve`` and ``voxmem token``, and the token table behind them."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import VENV_BIN
from voxmem.cli import app
from voxmem.server.auth import TokenFileError, TokenTable, bearer, hash_token


def test_token_prints_a_token_and_stores_only_its_hash(tmp_path: Path) -> None:
    file = tmp_path / "tokens.txt"
    result = CliRunner().invoke(app, ["token", "acme", "--file", str(file)])
    assert result.exit_code == 0, result.output
    token = result.stdout.strip().splitlines()[0]
    assert token.startswith("vxm_") and len(token) > 30
    text = file.read_text()
    assert token not in text and f"{hash_token(token)} acme" in text
    assert file.stat().st_mode & 0o077 == 0  # readable by its owner only
    assert TokenTable.load(file).tenant(token) == "acme"
    assert TokenTable.load(file).tenant(token + "x") is None


def test_token_refuses_a_bad_tenant(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["token", "not a tenant", "--file", str(tmp_path / "t")])
    assert result.exit_code == 1 and "TenantRequired" in result.output


def test_serve_without_tokens_says_how_to_make_one(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["serve", "--data-dir", str(tmp_path)])
    assert result.exit_code == 1
    assert "voxmem token" in result.output


def test_token_files_are_checked(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("# tokens\nsecret-token-in-clear acme\n")
    with pytest.raises(TokenFileError, match=r"bad\.txt:2"):
        TokenTable.load(bad)
    bad.write_text(f"{'a' * 64} acme extra\n")
    with pytest.raises(TokenFileError, match="expected"):
        TokenTable.load(bad)
    result = CliRunner().invoke(app, ["serve", "--token-file", str(bad)])
    assert result.exit_code == 1 and "TokenFileError" in result.output


def test_tokens_from_settings_and_how_requests_carry_them() -> None:
    table = TokenTable({f"sha256:{hash_token('abc')}": "acme"})
    assert table.tenant("abc") == "acme" and table.tenant(None) is None
    assert bearer("Bearer abc", None) == "abc"
    assert bearer("bearer  abc ", None) == "abc"
    assert bearer("Basic abc", None) is None
    assert bearer(None, "realtime, openai-insecure-api-key.abc") == "abc"
    assert bearer(None, "realtime") is None


@pytest.mark.models
def test_voxmem_serve_process_answers_and_stops_cleanly(tmp_path: Path) -> None:
    """The real command: a text turn through a real server process, then SIGTERM."""
    file = tmp_path / "tokens.txt"
    token = CliRunner().invoke(app, ["token", "acme", "--file", str(file)]).stdout.split()[0]
    env = {k: v for k, v in os.environ.items() if not k.startswith("VOXMEM_")}
    data = str(tmp_path / "data")
    command = [str(VENV_BIN / "voxmem"), "serve", "--port", "0", "--token-file", str(file)]
    proc = subprocess.Popen(
        [*command, "--data-dir", data, "--no-warm-up"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        port = None
        for line in proc.stdout:
            if "listening on http://" in line:
                port = int(line.split("http://", 1)[1].split()[0].rsplit(":", 1)[1])
                break
        assert port, "the server did not say where it listens"

        async def talk() -> dict[str, object]:
            from websockets.asyncio.client import connect

            url = f"ws://127.0.0.1:{port}/v1/realtime?model=anything"
            headers = {"Authorization": f"Bearer {token}"}
            async with connect(url, additional_headers=headers) as ws:
                item = {"type": "message", "role": "user"}
                item["content"] = [{"type": "input_text", "text": "My name is Dana."}]  # type: ignore[assignment]
                await ws.send(json.dumps({"type": "conversation.item.create", "item": item}))
                await ws.send(json.dumps({"type": "response.create"}))
                while True:
                    event = json.loads(await asyncio.wait_for(ws.recv(), 300))
                    if event["type"] == "response.done":
                        return event  # type: ignore[no-any-return]

        done = asyncio.run(talk())
        assert done["response"]["status"] == "completed"  # type: ignore[index]
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, out
        assert "stopped" in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
