"""Scale-out on PostgreSQL: the agent's dialogue checkpoints in the catalog's
database (any voxmem process resumes any session), erased there by a forget."""

from __future__ import annotations

from pathlib import Path

import psycopg

from tests.agent_helpers import HummingSynthesizer, fake_memory, said
from tests.pg_server import PgServer
from voxmem.agent import VoiceAgent

DANA = 1


def _agent(root: Path, url: str) -> tuple[VoiceAgent, object]:
    memory, asr = fake_memory(root)
    settings = memory.settings.model_copy(deep=True)
    settings.catalog = settings.catalog.model_validate({"url": url})
    return VoiceAgent(memory, settings=settings, synthesizer_=HummingSynthesizer()), asr


def _fresh_database(pg: PgServer, name: str) -> str:
    with psycopg.connect(pg.url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return pg.url.rsplit("/", 1)[0] + "/" + name


async def test_checkpoints_in_postgres_resume_and_forget(tmp_path: Path, pg: PgServer) -> None:
    url = _fresh_database(pg, "agent_checkpoints")
    secret = "My locker code is 4471 banana."
    agent, asr = _agent(tmp_path / "a", url)
    async with agent:
        await agent.turn("acme", "call", audio=said(asr, DANA, secret))  # type: ignore[arg-type]
        await agent.turn("acme", "call", text="The kettle is broken.")
    # another process (another agent, another data folder) resumes the same session
    other, _ = _agent(tmp_path / "b", url)
    async with other:
        history = await other.dialogue("acme", "call")
        assert [h["role"] for h in history] == ["user", "agent", "user", "agent"]
        assert "4471 banana" in history[0]["text"]
    assert not (tmp_path / "b" / "agent" / "checkpoints.sqlite3").exists()
    # a confirmed forget rewrites the session's checkpoints without the words
    agent, asr = _agent(tmp_path / "a", url)
    async with agent:
        r = await agent.turn(
            "acme",
            "call",
            audio=said(asr, DANA, "Forget what I said about my locker code."),  # type: ignore[arg-type]
        )
        assert r.intent == "forget", r
        r = await agent.turn("acme", "call", audio=said(asr, DANA, "yes"))  # type: ignore[arg-type]
        assert r.intent == "confirm", r.reply
        assert not any("4471" in h["text"] for h in await agent.dialogue("acme", "call"))
    with psycopg.connect(url) as conn:
        for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes"):
            rows = conn.execute(f"SELECT * FROM {table}").fetchall()
            assert rows or table == "checkpoint_writes", table
            assert b"4471 banana" not in repr(rows).encode(), table
    # and the bytes are gone from the database's files, not only from its rows
    conn = psycopg.connect(url, autocommit=True)
    conn.execute("CHECKPOINT")
    conn.close()
    leftovers = [
        f for f in (pg.data / "base").rglob("*") if f.is_file() and b"4471 banana" in f.read_bytes()
    ]
    assert leftovers == []
