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

from tests.conftest import ROOT, VENV_BIN
from tests.pg_server import PgServer, chroma_server, free_port, fresh_database
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


def test_a_token_file_changed_while_serving_counts_from_the_next_request(
    tmp_path: Path,
) -> None:
    """``voxmem token`` run beside a running server: the new token is accepted without
    a restart, a removed line is refused, and a file that no longer reads keeps the
    tokens it last gave."""
    file = tmp_path / "tokens.txt"

    def make(tenant: str) -> str:
        result = CliRunner().invoke(app, ["token", tenant, "--file", str(file)])
        return str(result.stdout.strip().splitlines()[0])

    first = make("acme")
    table = TokenTable.load(file)
    assert table.tenant(first) == "acme"
    second = make("globex")
    assert table.tenant(second) == "globex" and len(table) == 2
    file.write_text(file.read_text().splitlines()[1] + "\n")  # the first token revoked
    assert table.tenant(first) is None and table.tenant(second) == "globex"
    file.write_text("not a token line at all\n")
    assert table.tenant(second) == "globex"  # unreadable: the last good tokens stay
    # a line still being written (no newline yet) is not read: "acme-eu" cut to "acme"
    # must not give the token another tenant
    digest = hash_token(first)
    file.write_text(f"{digest} acme")
    assert table.tenant(first) is None and table.tenant(second) == "globex"
    file.write_text(f"{digest} acme-eu\n")
    assert table.tenant(first) == "acme-eu"
    # the same size, the modification time put back: still seen
    import os

    before = file.stat()
    file.write_text(f"{hash_token(second)} acme-eu\n")
    os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert table.tenant(second) == "acme-eu" and table.tenant(first) is None
    file.unlink()  # deleted: none of its tokens counts
    assert table.tenant(second) is None


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


def _compose_service() -> tuple[list[str], dict[str, str]]:
    """The voxmem service of docker/compose.yaml: its command and environment, over the
    Dockerfile's ENV lines (what the container would run)."""
    import shlex

    import yaml

    env: dict[str, str] = {}
    for line in (ROOT / "docker" / "Dockerfile").read_text().replace("\\\n", " ").splitlines():
        if line.startswith("ENV "):
            for pair in shlex.split(line[4:]):
                key, _, value = pair.partition("=")
                env[key] = value
    service = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())["services"]["voxmem"]
    env.update({k: str(v) for k, v in service["environment"].items()})
    return list(service["command"]), env


def test_the_image_runs_voxmem_serve_with_the_compose_settings() -> None:
    command, env = _compose_service()
    assert command[:2] == ["voxmem", "serve"]
    assert '"voxmem", "serve"' in (ROOT / "docker" / "Dockerfile").read_text()  # the CMD
    assert env["VOXMEM_CATALOG__URL"].startswith("postgresql://")
    assert env["VOXMEM_CHROMA__URL"].startswith("http://")
    assert env["HF_HUB_OFFLINE"] == "1"


@pytest.mark.models
def test_voxmem_serve_process_with_the_compose_settings(tmp_path: Path, pg: PgServer) -> None:
    """The image's command and the compose file's settings as plain processes (no Docker
    engine here): its PostgreSQL and Chroma server become real ones on loopback; a text
    turn through the real server process, stored in them; then SIGTERM."""
    from urllib.parse import urlparse

    file = tmp_path / "tokens.txt"
    token = CliRunner().invoke(app, ["token", "acme", "--file", str(file)]).stdout.split()[0]
    command, compose_env = _compose_service()
    with chroma_server(tmp_path / "chroma") as chroma:
        catalog = fresh_database(pg)
        port = free_port()
        settings = {
            **compose_env,
            # the compose file's host names, as this machine reaches the same engines
            "VOXMEM_CHROMA__URL": chroma,
            "VOXMEM_CATALOG__URL": catalog,
            "VOXMEM_DATA_DIR": str(tmp_path / "data"),
            "VOXMEM_SERVER__PORT": str(port),
            "VOXMEM_SERVER__WARM_UP": "false",
        }
        assert urlparse(compose_env["VOXMEM_CHROMA__URL"]).hostname == "chroma"
        env = {k: v for k, v in os.environ.items() if not k.startswith("VOXMEM_")} | settings
        args = [str(VENV_BIN / command[0]), *command[1:]]
        args[args.index("--token-file") + 1] = str(file)
        proc = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                if "listening on http://" in line:
                    break
            else:
                raise AssertionError("the server stopped before listening")

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
        # the agent's spoken reply is in the PostgreSQL catalog (a typed turn has no audio
        # to keep), nothing of the memory in the data folder
        from voxmem.memory.catalog_pg import PostgresCatalog

        stored = PostgresCatalog(catalog)
        turns = stored.segments("acme", vectors=False)
        stored.close()
        assert [t.role for t in turns] == ["agent"] and "Nice to meet you" in turns[0].transcript
        assert not (tmp_path / "data" / "catalog.sqlite3").exists()
        assert not (tmp_path / "data" / "chroma").exists()
