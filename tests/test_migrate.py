"""voxmem migrate: a memory copied from the embedded engines to PostgreSQL and a Chroma
server (real, on loopback) and back, whole and checked; the command line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tests.pg_server import PgServer, chroma_server, fresh_database
from tests.store_helpers import open_fake, tone, vectors
from voxmem.cli import app
from voxmem.memory import AudioMemory
from voxmem.memory.langgraph_store import VoxmemStore
from voxmem.memory.migrate import MigrationError, migrate


def _fill(memory: AudioMemory) -> dict[str, str]:
    ids = {}
    for i, (tenant, session) in enumerate([("acme", "mon"), ("acme", "tue"), ("globex", "x")]):
        seg = memory.add_segment(
            tone(300 + 200 * i),
            tenant=tenant,
            session=session,
            transcript=f"turn {i} about the budget",
            vectors=vectors(memory, i),
            style_labels={"sad": 0.7},
        )
        ids[f"{tenant}/{session}"] = seg.id
    memory.name_speaker("acme", memory.get("acme", ids["acme/mon"]).speaker_id or "", "dana")
    VoxmemStore(memory, "acme").put(("notes",), "n1", {"text": "the offsite is in May"})
    return ids


def _same(a: AudioMemory, b: AudioMemory, tenant: str) -> None:
    """Every turn of ``tenant`` alike in both: row, vectors, audio, speaker names, items;
    and the copy searchable by its own index."""
    left, right = a.list(tenant, limit=100, vectors=True), b.list(tenant, limit=100, vectors=True)
    assert [s.id for s in left] == [s.id for s in right]
    for x, y in zip(left, right, strict=True):
        assert (x.transcript, x.session, x.speaker_id, x.style_labels) == (
            y.transcript,
            y.session,
            y.speaker_id,
            y.style_labels,
        )
        assert all(np.array_equal(x.vectors[s], y.vectors[s]) for s in x.vectors)
        np.testing.assert_array_equal(a.audio(tenant, x.id).samples, b.audio(tenant, y.id).samples)
        hit = b.search(tenant, "text", x.vectors["text"], k=1)[0]
        assert hit.segment.id == x.id
    assert a.speaker_names(tenant) == b.speaker_names(tenant)
    got = VoxmemStore(b, tenant).search(("notes",), query="when is the offsite")
    want = VoxmemStore(a, tenant).search(("notes",), query="when is the offsite")
    assert [i.value for i in got] == [i.value for i in want]


def test_embedded_to_servers_and_back(tmp_path: Path, pg: PgServer) -> None:
    source = open_fake(tmp_path / "embedded")
    _fill(source)
    with chroma_server(tmp_path / "chroma") as chroma:
        servers = open_fake(tmp_path / "scaled", url=chroma, catalog=fresh_database(pg))
        copies = migrate(source, servers)
        assert {c.tenant for c in copies} == {"acme", "globex"} and all(c.ok for c in copies)
        assert next(c for c in copies if c.tenant == "acme").counts == {
            "segments": 2,
            "speakers": 2,
            "recordings": 2,
            "items": 1,
        }
        for tenant in ("acme", "globex"):
            _same(source, servers, tenant)
        assert not (tmp_path / "scaled" / "audio").exists()  # the audio is in PostgreSQL
        with pytest.raises(MigrationError, match="already holds 'acme'"):
            migrate(source, servers, ["acme"])
        # and back, one tenant
        back = open_fake(tmp_path / "back")
        (copy,) = migrate(servers, back, ["acme"])
        assert copy.ok and copy.sampled == 2
        _same(servers, back, "acme")
        assert back.tenants() == ["acme"] and back.verify(repair=False).ok
        servers.close()
    with pytest.raises(MigrationError, match="no tenant 'nobody'"):
        migrate(source, back, ["nobody"])


def test_the_command_copies_and_checks(tmp_path: Path) -> None:
    source = open_fake(tmp_path / "a")
    ids = _fill(source)
    source.close()
    # the environment names the source's engines: the target must use none of them
    env = {
        "VOXMEM_CHROMA__PATH": str(tmp_path / "a" / "chroma"),
        "VOXMEM_CATALOG__AUDIO_DIR": str(tmp_path / "a" / "audio"),
    }
    before = sorted((tmp_path / "a" / "audio").rglob("*.flac"))
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    run = CliRunner().invoke(
        app, ["migrate", "--data-dir", a, "--to-data-dir", b, "-t", "acme"], env=env
    )
    assert run.exit_code == 0, run.output
    assert (
        "copied acme: 2 segments, 2 speakers, 2 recordings, 1 items; 2 turns checked" in run.output
    )
    assert sorted((tmp_path / "a" / "audio").rglob("*.flac")) == before
    assert len(list((tmp_path / "b" / "audio").rglob("*.flac"))) == 2
    assert (tmp_path / "b" / "chroma" / "chroma.sqlite3").exists()
    target = open_fake(tmp_path / "b")
    assert target.tenants() == ["acme"] and target.get("acme", ids["acme/tue"]).transcript
    again = CliRunner().invoke(app, ["migrate", "--data-dir", a, "--to-data-dir", b])
    assert again.exit_code == 1 and again.output.startswith("MigrationError:"), again.output
    same = CliRunner().invoke(app, ["migrate", "--data-dir", a, "--to-data-dir", a])
    assert same.exit_code == 1 and "the source's own data folder" in same.output, same.output


def test_a_failed_copy_leaves_nothing_behind(tmp_path: Path) -> None:
    source = open_fake(tmp_path / "a")
    ids = _fill(source)
    source.files.path("acme", ids["acme/tue"]).unlink()  # one turn's audio is lost
    target = open_fake(tmp_path / "b")
    with pytest.raises(MigrationError, match="nothing of it was kept"):
        migrate(source, target, ["acme"])
    assert target.tenants() == []
    (copy,) = migrate(source, target, ["globex"])  # the others still copy
    assert copy.ok
