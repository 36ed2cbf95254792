"""Scale-out on PostgreSQL: the catalog and the audio in a real server (erased from its
table files by a forget), the agent's dialogue checkpoints in the same database (any
voxmem process resumes any session)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import psycopg
import pytest

from tests.agent_helpers import HummingSynthesizer, fake_memory, said
from tests.pg_server import PgServer, fresh_database
from tests.store_helpers import marker, open_fake, scan, tone, vectors
from voxmem.agent import VoiceAgent
from voxmem.memory.records import ForgetPending

DANA = 1


def _agent(root: Path, url: str) -> tuple[VoiceAgent, object]:
    memory, asr = fake_memory(root)
    settings = memory.settings.model_copy(deep=True)
    settings.catalog = settings.catalog.model_validate({"url": url})
    return VoiceAgent(memory, settings=settings, synthesizer_=HummingSynthesizer()), asr


async def test_agents_started_together_set_up_the_checkpoints_once(
    tmp_path: Path, pg: PgServer
) -> None:
    """Replicas that start at once on an empty database: each runs the checkpoint
    tables' migrations in turn, and none stops on a migration another just ran."""
    url = fresh_database(pg, "agent_start_together")
    agents = [_agent(tmp_path / f"r{i}", url)[0] for i in range(4)]
    try:
        await asyncio.gather(*(a.__aenter__() for a in agents))
    finally:
        await asyncio.gather(*(a.__aexit__(None, None, None) for a in agents))
    with psycopg.connect(url) as conn:
        versions = [r[0] for r in conn.execute("SELECT v FROM checkpoint_migrations").fetchall()]
    assert versions and len(versions) == len(set(versions))
    # and they work: a session one wrote, another reads
    one, two = (_agent(tmp_path / f"r{i}", url)[0] for i in range(2))
    async with one, two:
        await one.turn("acme", "call", text="The kettle is broken.")
        assert [h["role"] for h in await two.dialogue("acme", "call")] == ["user", "agent"]


async def test_checkpoints_in_postgres_resume_and_forget(tmp_path: Path, pg: PgServer) -> None:
    url = fresh_database(pg, "agent_checkpoints")
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


def _checkpoint(url: str) -> None:
    """Write the server's dirty pages to its files, so that a scan sees what is stored."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")


@pytest.mark.parametrize("selector", ["segment", "speaker", "everything"])
def test_forget_erases_the_bytes_from_the_postgresql_tables(
    tmp_path: Path, pg: PgServer, selector: str
) -> None:
    """Rows, vectors, the FLAC bytes, the speaker's name, the tenant's id and the forget's
    own record leave the cluster's table files (``base/``); the write-ahead log keeps them
    until it is recycled (README)."""
    url = fresh_database(pg)
    memory = open_fake(tmp_path / "mem", catalog=url)
    tenant = "t" + marker()[:20]
    keep_mark, gone_mark, name = marker(), marker(), "N" + marker()[:16]
    keep = memory.add_segment(
        tone(300), tenant="acme", session="keep", transcript=keep_mark, vectors=vectors(memory, 1)
    )
    gone_vectors = vectors(memory, 77)
    gone = memory.add_segment(
        tone(3000), tenant=tenant, session="gone", transcript=gone_mark, vectors=gone_vectors
    )
    memory.name_speaker(tenant, gone.speaker_id or "", name)
    gone_audio = memory.catalog.audio(tenant, gone.id)
    assert gone_audio and not (tmp_path / "mem" / "audio").exists()  # the bytes are in the db
    needles = [
        gone_mark.encode(),
        gone_vectors["text"].tobytes()[:32],
        gone_vectors["environment"].tobytes()[:32],
        gone_audio[-64:],
        # the forgotten voiceprint in its speaker's running sum (float64)
        np.asarray(gone_vectors["speaker"], np.float64).tobytes()[:32],
    ]
    if selector != "segment":  # a named speaker outlives a forgotten turn, not these
        needles.append(name.encode())
    if selector == "everything":
        needles.append(tenant.encode())
    _checkpoint(url)
    assert {n for _, n in scan(pg.data / "base", needles)} == set(needles)  # seen while stored
    forget = {
        "segment": {"segment": gone.id},
        "speaker": {"speaker": name},
        "everything": {"everything": True},
    }[selector]
    if selector == "speaker":
        # another session's open snapshot can still see the rows, so PostgreSQL keeps
        # them: the forget says so, and finishes when asked again after that ends
        reader = psycopg.connect(url)
        reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        reader.execute("SELECT value FROM catalog_meta").fetchall()
        with pytest.raises(ForgetPending):
            memory.forget(tenant, **forget)  # type: ignore[arg-type]
        reader.rollback()
        reader.close()
    memory.forget(tenant, **forget)  # type: ignore[arg-type]
    assert memory.catalog.forget_jobs() == []
    _checkpoint(url)
    assert scan(pg.data / "base", needles) == []
    assert scan(tmp_path / "mem", needles) == []  # nor in the index's files
    assert memory.get("acme", keep.id).transcript == keep_mark
    assert memory.audio("acme", keep.id).duration > 1.0
    assert memory.verify(repair=False).ok
    memory.close()
