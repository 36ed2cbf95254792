"""One contract, every catalog: the same tests on SQLite, on PostgreSQL (a real server,
started on loopback) and on the in-memory fake.

A new catalog back end is one more ``param`` of the ``catalog`` fixture."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.pg_server import fresh_database
from voxmem.memory.catalog import SUMMED_SPACES, SQLiteCatalog
from voxmem.memory.fakes import MemoryCatalog
from voxmem.memory.protocols import CatalogBackend, ForgetJob, SegmentFilter
from voxmem.memory.records import (
    MemoryClosed,
    Recording,
    Segment,
    Speaker,
    UnknownSpeaker,
    Word,
    WrongDimension,
)

DIMS = {"text": 8, "speaker": 4, "style_raw": 3}


@pytest.fixture(params=["sqlite", "postgresql", "memory"])
def catalog(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[CatalogBackend]:
    made: CatalogBackend
    if request.param == "sqlite":
        made = SQLiteCatalog(tmp_path / "catalog.sqlite3")
    elif request.param == "postgresql":
        from voxmem.memory.catalog_pg import PostgresCatalog

        made = PostgresCatalog(fresh_database(request.getfixturevalue("pg")))
    else:
        made = MemoryCatalog()
    yield made
    made.close()


def _vec(seed: int, dim: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def _segment(i: int, tenant: str = "t", session: str = "s1", **kw: object) -> Segment:
    fields: dict[str, object] = {
        "role": "user" if i % 2 else "agent",
        "transcript": f"turn {i}",
        "words": [Word("turn", 0.0, 0.2, 0.9)],
        "style_labels": {"happy": 0.1 * i},
        "environment_labels": {"rain": 0.5},
        "vectors": {s: _vec(i * 10 + k, d) for k, (s, d) in enumerate(DIMS.items())},
        "created_at": 1000.0 + i,
        **kw,
    }
    return Segment(
        f"seg_{tenant}_{i}", tenant, session, f"rec_{tenant}", 0.5 * i, 0.5 * i + 0.4, **fields
    )  # type: ignore[arg-type]


def _store(catalog: CatalogBackend, segs: list[Segment], speaker: Speaker | None = None) -> None:
    with catalog.write() as tx:
        tx.register_spaces(DIMS, {"text": "fake"})
        for seg in {s.recording_id: s for s in segs}.values():
            tx.ensure_tenant(seg.tenant, 1.0)
            tx.add_recording(Recording(seg.recording_id, seg.tenant, seg.session, "x", 9.0, 1.0))
        if speaker is not None:
            tx.put_speaker(speaker)
        for seg in segs:
            tx.add_segment(seg, f"audio/{seg.tenant}/{seg.id}.flac")


def test_segments_round_trip_with_filters_and_order(catalog: CatalogBackend) -> None:
    spk = Speaker("spk_a", "t", "ann", _vec(1, 4), 0, 1.0, 1.0)
    segs = [_segment(i, speaker_id="spk_a" if i < 2 else None) for i in range(4)]
    segs[3].session = "s2"
    _store(catalog, [*segs, _segment(9, tenant="other")], spk)
    assert catalog.tenants() == ["other", "t"] and catalog.has_tenant("t")
    assert not catalog.has_tenant("nobody")
    got = catalog.segments("t")
    assert [s.id for s in got] == [s.id for s in segs]
    first = got[0]
    assert (first.transcript, first.words, first.style_labels) == (
        "turn 0",
        [Word("turn", 0.0, 0.2, 0.9)],
        {"happy": 0.0},
    )
    np.testing.assert_allclose(first.vectors["text"], segs[0].vectors["text"])
    assert catalog.segments("t", vectors=False)[0].vectors == {}
    assert [s.id for s in catalog.segments("t", newest_first=True)] == [
        s.id for s in reversed(segs)
    ]
    assert [s.id for s in catalog.segments("t", limit=2, offset=1)] == [segs[1].id, segs[2].id]
    assert [s.id for s in catalog.segments("t", SegmentFilter(session="s2"))] == [segs[3].id]
    assert [s.id for s in catalog.segments("t", SegmentFilter(role="user"))] == [
        segs[1].id,
        segs[3].id,
    ]
    assert len(catalog.segments("t", SegmentFilter(speaker_id="spk_a"))) == 2
    for where, n in (
        (SegmentFilter(session="s1"), 3),
        (SegmentFilter(session="s1", role="user"), 1),
        (SegmentFilter(speaker_id="spk_a"), 2),
        (SegmentFilter(session="nope"), 0),
    ):
        assert catalog.count_segments("t", where, 10) == n, where
    assert catalog.count_segments("t", SegmentFilter(session="s1"), 2) == 2  # counted up to
    assert catalog.count_segments("other", SegmentFilter(session="s1"), 10) == 1
    ids = [segs[2].id, "seg_other_9", "nope"]
    assert [s.id for s in catalog.segments("t", SegmentFilter(ids=ids))] == [segs[2].id]
    assert [s.id for s in catalog.with_labels("t", "style", ["happy"], 2)] == [
        segs[3].id,
        segs[2].id,
    ]
    assert catalog.sessions("t") == [("s1", 1000.0, 1002.0, 3), ("s2", 1003.0, 1003.0, 1)]
    ids_, speakers, blobs = catalog.vectors("t", "speaker", 10)
    assert len(ids_) == 4 and speakers.count("spk_a") == 2
    assert np.frombuffer(blobs[0], np.float32).shape == (4,)
    assert len(catalog.vector_bytes([segs[0].id])) == len(DIMS)
    text = segs[0].vectors["text"].tobytes()
    held = [(0, text[:16]), (8, text[8:24])]
    asked = [*held, (0, b"\x01" * 16), (4, text[8:24]), (8, text[:16])]
    assert catalog.shared_windows(asked) == set(held)  # each at its own offset only
    assert catalog.space_dims() == DIMS
    assert catalog.live_ids()["t"] == {s.id for s in segs}
    counts = catalog.counts("t")
    assert (counts["segments"], counts["sessions"], counts["speakers"]) == (4, 2, 1)
    assert catalog.counts(None)["segments"] == 5


def test_a_failed_write_changes_nothing(catalog: CatalogBackend) -> None:
    _store(catalog, [_segment(0)])
    version = catalog.version()
    with pytest.raises(WrongDimension), catalog.write() as tx:
        tx.add_segment(_segment(1), "a.flac")
        tx.register_spaces({"text": 3}, {})
    with pytest.raises(RuntimeError), catalog.write() as tx:
        tx.ensure_tenant("ghost", 1.0)
        raise RuntimeError("boom")
    assert [s.id for s in catalog.segments("t")] == ["seg_t_0"]
    assert catalog.tenants() == ["t"]
    _store(catalog, [_segment(2, tenant="u")])  # a commit always moves the version
    assert catalog.version() != version
    with pytest.raises(Exception, match=r"(?i)unique|already"):  # ids are unique
        _store(catalog, [_segment(2, tenant="u")])
    assert len(catalog.segments("u")) == 1


def test_speakers_by_id_or_name_and_their_voiceprints(catalog: CatalogBackend) -> None:
    a = Speaker("spk_a", "t", "spk_b", _vec(1, 4), 0, 1.0, 1.0)  # named like b's id
    b = Speaker("spk_b", "t", None, _vec(2, 4), 0, 2.0, 2.0)
    _store(catalog, [_segment(i, speaker_id="spk_a") for i in range(3)], a)
    with catalog.write() as tx:
        tx.put_speaker(b)
        assert tx.speaker("t", "spk_b").id == "spk_b"  # an id wins over a name
        assert len(tx.voiceprints("spk_a")) == 3
        tx.set_speaker(["seg_t_0"], "spk_b")
        assert len(tx.voiceprints("spk_b")) == 1
        # several speakers at once: the same voiceprints, every id asked a key
        many = tx.voiceprints_of(["spk_a", "spk_b", "nobody"])
        assert {k: len(v) for k, v in many.items()} == {"spk_a": 2, "spk_b": 1, "nobody": 0}
        for spk in ("spk_a", "spk_b"):
            assert sorted(v.tobytes() for v in many[spk]) == sorted(
                v.tobytes() for v in tx.voiceprints(spk)
            )
        a.name, a.n_segments = "ann", 2
        tx.put_speaker(a)
    assert [s.id for s in catalog.speakers("t")] == ["spk_a", "spk_b"]
    assert catalog.speaker("t", "ann").n_segments == 2
    assert catalog.speaker_names("t") == ["ann"]
    with pytest.raises(UnknownSpeaker):
        catalog.speaker("t", "nobody")
    with pytest.raises(UnknownSpeaker):
        catalog.speaker("other", "spk_a")  # another tenant's speaker is unknown here
    with catalog.write() as tx:
        tx.delete_speaker("spk_b")
    assert [s.id for s in catalog.speakers("t")] == ["spk_a"]


def _check_sums(tx: object, speakers: list[str]) -> None:
    """The running sums (voiceprints, raw style) equal the vectors summed afresh."""
    assert tx.print_sums(speakers) is not None  # type: ignore[attr-defined]
    for space in SUMMED_SPACES:
        sums = tx.space_sums(space, speakers)  # type: ignore[attr-defined]
        rows = tx.space_vectors_of(space, speakers)  # type: ignore[attr-defined]
        for spk in speakers:
            if space == "speaker":
                assert [r.tobytes() for r in rows[spk]] == [
                    r.tobytes()
                    for r in tx.voiceprints(spk)  # type: ignore[attr-defined]
                ]
            total, n = sums[spk]
            assert total is not None and n == len(rows[spk]), (space, spk)
            want = np.sum(np.asarray(rows[spk], np.float64), axis=0) if rows[spk] else np.zeros(0)
            assert total.shape == want.shape, (space, spk)
            assert np.allclose(total, want, atol=1e-9), (space, spk)


def test_speakers_running_sums_follow_every_change(catalog: CatalogBackend) -> None:
    """Each speaker's sums of live voiceprints and raw style vectors are kept as turns are
    stored, moved, hidden by a forget and deleted, so a forget reads sums, not every
    voiceprint, and a style query's baselines are a row per speaker. The catalog's own
    read of a tenant's sums agrees once the writes are committed."""
    a = Speaker("spk_a", "t", None, _vec(1, 4), 0, 1.0, 1.0)
    b = Speaker("spk_b", "t", None, _vec(2, 4), 0, 2.0, 2.0)
    segs = [_segment(i, speaker_id="spk_a" if i < 6 else "spk_b") for i in range(9)]
    segs.append(_segment(9))  # no speaker
    no_voice = _segment(10, speaker_id="spk_a")
    no_voice.vectors.pop("speaker")
    segs.append(no_voice)  # a speaker but no voiceprint
    with catalog.write() as tx:
        tx.put_speaker(b)
    _store(catalog, segs, a)
    with catalog.write() as tx:
        tx.put_speaker(b)  # putting a known speaker again keeps its sum
        _check_sums(tx, ["spk_a", "spk_b"])
        assert tx.print_sums(["spk_a"])["spk_a"][1] == 6
        assert tx.space_sums("style_raw", ["spk_a"])["spk_a"][1] == 7  # no_voice has one
        assert tx.print_sums(["nobody"]) == {"nobody": (None, 0)}
        assert tx.space_sums("style_raw", ["nobody"]) == {"nobody": (None, 0)}
        tx.set_speaker(["seg_t_0", "seg_t_1", "seg_t_9"], "spk_b")
        _check_sums(tx, ["spk_a", "spk_b"])
    job = ForgetJob(
        "fgt_1", "t", "{}", "erase", ("seg_t_2", "seg_t_6"), None, False, "h:1", time.time()
    )
    with catalog.write() as tx:
        tx.add_forget_job(job)  # hidden: out of the sums at once
        _check_sums(tx, ["spk_a", "spk_b"])
        tx.delete_segments(["seg_t_2", "seg_t_6", "seg_t_3"])  # two hidden, one live
        _check_sums(tx, ["spk_a", "spk_b"])
        tx.set_speaker(["seg_t_4", "seg_t_5"], "spk_b")  # spk_a has no live print left
        _check_sums(tx, ["spk_a", "spk_b"])
        assert tx.print_sums(["spk_a"])["spk_a"][1] == 0
        assert tx.space_sums("style_raw", ["spk_a"])["spk_a"][1] == 1  # no_voice
        tx.set_speaker(["seg_t_4"], "spk_a")  # and one again
        _check_sums(tx, ["spk_a", "spk_b"])
    read = catalog.speaker_sums("t", "style_raw")
    assert sorted(read) == ["spk_a", "spk_b"]
    with catalog.write() as tx:
        for spk, (total, n) in tx.space_sums("style_raw", ["spk_a", "spk_b"]).items():
            assert total is not None and read[spk][1] == n
            assert np.array_equal(read[spk][0], total)  # type: ignore[arg-type]
        tx.delete_speaker("spk_b")
        assert tx.print_sums(["spk_b"])["spk_b"] == (None, 0)
        assert tx.space_sums("style_raw", ["spk_b"])["spk_b"] == (None, 0)
        # a turn of another tenant naming this tenant's speaker is not in its sum
        tx.ensure_tenant("u", 1.0)
        tx.add_recording(Recording("rec_u", "u", "s1", "x", 9.0, 1.0))
        tx.add_segment(_segment(20, tenant="u", speaker_id="spk_a"), "audio/u/x.flac")
        tx.set_speaker(["seg_u_20"], "spk_a")
        _check_sums(tx, ["spk_a"])
    assert catalog.speaker_sums("u", "style_raw") == {}  # no speaker of its own
    assert list(catalog.speaker_sums("t", "style_raw")) == ["spk_a"]


def _back_to(catalog: CatalogBackend, engine: str, schema: int) -> None:
    """Undo the migrations after ``schema`` (3: before any sum, 4: voiceprint sums
    only), as a catalog an older voxmem made would be."""
    with catalog.write() as tx:
        tx.execute("DROP TABLE style_sums")
        if schema < 4:
            tx.execute("DROP TABLE speaker_sums")
        if engine == "sqlite":
            for v in range(schema + 1, 6):
                for name in ("insert", "delete", "update"):
                    tx.execute(f"DROP TRIGGER segments_schema{v}_{name}")
            tx.execute(f"PRAGMA user_version = {schema}")
        else:
            from voxmem.memory.catalog_pg import writer_check

            if schema < 4:
                tx.execute("DROP TRIGGER segments_writer_check ON segments")
                tx.execute("DROP FUNCTION voxmem_writer_check()")
            else:
                tx.execute(writer_check(schema))
            tx.execute(f"UPDATE catalog_meta SET value = {schema} WHERE key = 'schema_version'")


def _migrated_from(
    schema: int, engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> tuple[Speaker, CatalogBackend]:
    """A catalog of one speaker with four turns, made at ``schema`` and opened (so
    migrated) by this version."""
    url = fresh_database(request.getfixturevalue("pg")) if engine == "postgresql" else ""

    def open_catalog() -> CatalogBackend:
        if engine == "sqlite":
            return SQLiteCatalog(tmp_path / "catalog.sqlite3")
        from voxmem.memory.catalog_pg import PostgresCatalog

        return PostgresCatalog(url)

    catalog = open_catalog()
    a = Speaker("spk_a", "t", None, _vec(1, 4), 0, 1.0, 1.0)
    _store(catalog, [_segment(i, speaker_id="spk_a") for i in range(4)], a)
    _back_to(catalog, engine, schema)
    catalog.close()
    catalog = open_catalog()
    assert catalog.schema_version == 5  # type: ignore[attr-defined]
    return a, catalog


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_a_speaker_from_before_the_style_sums_is_summed_once(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A schema 4 catalog (voiceprint sums only) opens migrated, each speaker's style sum
    unknown; the first need sums its turns' raw style vectors once and keeps the sum
    (the voiceprint sums are kept as they were)."""
    from voxmem.memory.speakers import space_sums

    a, catalog = _migrated_from(4, engine, tmp_path, request)
    assert catalog.speaker_sums("t", "style_raw") == {"spk_a": (None, 0)}
    with catalog.write() as tx:
        # a stored speaker with no sum row at all (an older writer's) put again: unknown,
        # not an empty sum, as it has turns
        tx.execute("DELETE FROM style_sums WHERE speaker_id = 'spk_a'")
        tx.put_speaker(a)
        tx.add_segment(_segment(4, speaker_id="spk_a"), "audio/t/x.flac")  # stays unknown
        assert tx.space_sums("style_raw", ["spk_a"]) == {"spk_a": (None, 0)}
        assert tx.print_sums(["spk_a"])["spk_a"][1] == 5  # the voiceprint sum was kept
        _, n = space_sums(tx, "style_raw", ["spk_a"])["spk_a"]
        assert n == 5
        _check_sums(tx, ["spk_a"])  # kept: known from now on
        tx.delete_segments(["seg_t_0"])
        _check_sums(tx, ["spk_a"])
    assert catalog.speaker_sums("t", "style_raw")["spk_a"][1] == 4
    catalog.close()


def test_a_postgresql_migration_waits_for_an_older_writers_transaction(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A schema 4 voxmem in the middle of a write (a new speaker and its turns) when a
    newer one opens the catalog: the migration waits for that write, so its speaker's
    style sum counts its turns (or is unknown, and summed when needed), never an empty
    sum that later turns are added to."""
    import threading

    import psycopg

    from voxmem.memory.catalog_pg import WRITE_LOCK, WRITER_SETTING, PostgresCatalog
    from voxmem.memory.speakers import space_sums

    url = fresh_database(request.getfixturevalue("pg"))
    catalog = PostgresCatalog(url)
    _store(catalog, [_segment(0)], None)
    _back_to(catalog, "postgresql", 4)
    catalog.close()
    old = psycopg.connect(url)
    old.execute(f"SET {WRITER_SETTING} = '4'")
    old.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
    old.execute(
        "INSERT INTO speakers (id, tenant, name, centroid, n_segments, created_at, updated_at) "
        "VALUES ('spk_a', 't', NULL, %s, 2, 1.0, 1.0)",
        (_vec(1, 4).tobytes(),),
    )
    old.execute("INSERT INTO speaker_sums (speaker_id, total, n) VALUES ('spk_a', NULL, 0)")
    for i in (1, 2):
        seg = _segment(i, speaker_id="spk_a")
        old.execute(
            "INSERT INTO segments (id, tenant, session, recording_id, start_s, end_s, role, "
            "speaker_id, transcript, words, language, style_labels, environment_labels, "
            "audio_path, created_at) VALUES (%s, 't', 's1', 'rec_t', 0, 1, 'user', 'spk_a', "
            "'x', '[]', NULL, '{}', '{}', 'a.flac', %s)",
            (seg.id, seg.created_at),
        )
        for space, v in seg.vectors.items():
            old.execute(
                "INSERT INTO vectors (segment_id, space, data) VALUES (%s, %s, %s)",
                (seg.id, space, np.asarray(v, np.float32).tobytes()),
            )
    opened: list[CatalogBackend] = []
    opener = threading.Thread(target=lambda: opened.append(PostgresCatalog(url)))
    opener.start()
    opener.join(timeout=1.0)
    assert opener.is_alive()  # the migration waits for the older write
    old.commit()
    old.close()
    opener.join(timeout=30)
    (catalog,) = opened
    assert catalog.schema_version == 5  # type: ignore[attr-defined]
    with catalog.write() as tx:
        tx.put_speaker(Speaker("spk_a", "t", None, _vec(1, 4), 3, 1.0, 2.0))
        tx.add_segment(_segment(3, speaker_id="spk_a"), "audio/t/x.flac")
        for space in SUMMED_SPACES:
            assert space_sums(tx, space, ["spk_a"])["spk_a"][1] == 3, space
        _check_sums(tx, ["spk_a"])
    catalog.close()


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_a_speaker_from_before_the_sums_is_summed_once(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A catalog from before the running sums (schema 3) opens migrated, with each
    speaker's sum unknown; the first need sums its voiceprints once and keeps the sum
    from then on."""
    from voxmem.memory.speakers import print_sums, space_sums

    _, catalog = _migrated_from(3, engine, tmp_path, request)
    with catalog.write() as tx:
        assert tx.print_sums(["spk_a"]) == {"spk_a": (None, 0)}
        tx.add_segment(_segment(4, speaker_id="spk_a"), "audio/t/x.flac")  # stays unknown
        assert tx.print_sums(["spk_a"]) == {"spk_a": (None, 0)}
        _, n = print_sums(tx, ["spk_a"])["spk_a"]
        assert n == 5
        assert space_sums(tx, "style_raw", ["spk_a"])["spk_a"][1] == 5
        _check_sums(tx, ["spk_a"])  # kept: known from now on
        tx.delete_segments(["seg_t_0"])
        _check_sums(tx, ["spk_a"])
    catalog.close()


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_a_voxmem_older_than_the_sums_cannot_change_turns(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A connection that is not this version's (an older voxmem still running after the
    upgrade: one from before any sum, or of schema 4, which keeps the voiceprint sums but
    not the style sums) cannot store, move or delete turns behind the sums; this version
    can."""
    a = Speaker("spk_a", "t", None, _vec(1, 4), 0, 1.0, 1.0)
    olds: list[Any] = []
    if engine == "sqlite":
        import sqlite3

        catalog: CatalogBackend = SQLiteCatalog(tmp_path / "catalog.sqlite3")
        _store(catalog, [_segment(0, speaker_id="spk_a")], a)
        for checks in ((), ("voxmem_writer_schema_4",)):
            old = sqlite3.connect(tmp_path / "catalog.sqlite3", isolation_level=None)
            for check in checks:
                old.create_function(check, 0, lambda: 1)
            olds.append(old)
        refused: type[Exception] = sqlite3.OperationalError
    else:
        import psycopg

        from voxmem.memory.catalog_pg import WRITER_SETTING, PostgresCatalog

        url = fresh_database(request.getfixturevalue("pg"))
        catalog = PostgresCatalog(url)
        _store(catalog, [_segment(0, speaker_id="spk_a")], a)
        for version in (None, 4):
            old = psycopg.connect(url, autocommit=True)  # type: ignore[assignment]
            if version is not None:
                old.execute(f"SET {WRITER_SETTING} = '{version}'")
            olds.append(old)
        refused = psycopg.errors.RaiseException
    for k, old in enumerate(olds):
        for statement in (
            "UPDATE segments SET state = 'forgetting' WHERE id = 'seg_t_0'",
            "UPDATE segments SET speaker_id = NULL WHERE id = 'seg_t_0'",
            "DELETE FROM segments WHERE id = 'seg_t_0'",
        ):
            # the schema 4 writer is told what to do (SQLite can only name a function)
            said = "upgrade" if engine == "postgresql" else "stop_and_upgrade" if k else None
            with pytest.raises(refused, match=said):
                old.execute(statement)
        old.execute("UPDATE segments SET transcript = 'fixed' WHERE id = 'seg_t_0'")  # unguarded
        old.close()
    with catalog.write() as tx:
        tx.add_segment(_segment(1, speaker_id="spk_a"), "audio/t/seg_t_1.flac")
        tx.delete_segments(["seg_t_0"])
        _check_sums(tx, ["spk_a"])
    catalog.close()


def test_a_catalog_from_the_first_schema_5_triggers_still_takes_writes(tmp_path: Path) -> None:
    """The first catalogs made at schema 5 had their writer triggers call
    ``voxmem_writer_schema_5``: this version still defines that name."""
    catalog = SQLiteCatalog(tmp_path / "catalog.sqlite3")
    _store(catalog, [_segment(i, speaker_id=None) for i in range(2)])
    with catalog.write() as tx:
        for name, event in (("insert", "INSERT"), ("delete", "DELETE")):
            tx.execute(f"DROP TRIGGER segments_schema5_{name}")
            tx.execute(
                f"CREATE TRIGGER segments_schema5_{name} BEFORE {event} ON segments "
                "BEGIN SELECT voxmem_writer_schema_5(); END"
            )
    catalog.close()
    catalog = SQLiteCatalog(tmp_path / "catalog.sqlite3")
    with catalog.write() as tx:
        tx.delete_segments(["seg_t_0"])
        tx.add_segment(_segment(5), "audio/t/seg_t_5.flac")
    assert [s.id for s in catalog.segments("t")] == ["seg_t_1", "seg_t_5"]
    catalog.close()


def test_forget_jobs_hide_then_erase(catalog: CatalogBackend) -> None:
    spk = Speaker("spk_a", "t", None, _vec(1, 4), 3, 1.0, 1.0)
    _store(catalog, [_segment(i, speaker_id="spk_a") for i in range(3)], spk)
    job = ForgetJob(
        "fgt_1",
        "t",
        '{"session": "s1"}',
        "erase",
        ("seg_t_0", "seg_t_1"),
        None,
        False,
        "h:1",
        time.time(),
    )
    with catalog.write() as tx:
        tx.add_forget_job(job)
    # hidden from every read at once
    assert [s.id for s in catalog.segments("t")] == ["seg_t_2"]
    assert catalog.live_ids()["t"] == {"seg_t_2"}
    assert catalog.counts("t")["segments"] == 1
    assert catalog.count_segments("t", SegmentFilter(session="s1"), 10) == 1
    assert catalog.count_segments("t", SegmentFilter(speaker_id="spk_a"), 10) == 1
    (stored,) = catalog.forget_jobs()
    assert (stored.id, stored.state, set(stored.segments), stored.owner) == (
        "fgt_1",
        "erase",
        {"seg_t_0", "seg_t_1"},
        "h:1",
    )
    with catalog.write() as tx:
        assert tx.segment_ids("t", SegmentFilter()) == ["seg_t_2"]
        assert len(tx.voiceprints("spk_a")) == 1  # hidden turns do not shape a centroid
        assert tx.segment_speakers(list(job.segments)) == {"spk_a"}
        tx.delete_segments(list(job.segments))
        tx.drop_empty_recordings("t")
        assert not tx.drop_tenant_if_empty("t")  # a turn and a speaker are left
        tx.set_forget_job("fgt_1", state="index", owner=None)
        assert tx.forget_job("fgt_1").state == "index"  # type: ignore[union-attr]
    assert catalog.vector_bytes(list(job.segments)) == []
    with catalog.write() as tx:
        tx.delete_segments(["seg_t_2"])
        tx.delete_speaker("spk_a")
        tx.delete_forget_job("fgt_1")
        tx.drop_empty_recordings("t")
        assert tx.drop_tenant_if_empty("t")
    assert catalog.forget_jobs() == [] and catalog.tenants() == []
    assert catalog.counts(None) == {
        "segments": 0,
        "seconds": 0.0,
        "sessions": 0,
        "speakers": 0,
        "recordings": 0,
    }


def test_turns_waiting_for_the_index_are_remembered(catalog: CatalogBackend) -> None:
    _store(catalog, [_segment(0), _segment(1)])
    with catalog.write() as tx:
        tx.mark_unindexed("t", ["seg_t_0", "seg_t_1"])
    assert {t: sorted(ids) for t, ids in catalog.unindexed().items()} == {
        "t": ["seg_t_0", "seg_t_1"]
    }
    with catalog.write() as tx:
        tx.clear_unindexed(["seg_t_0"])
        tx.delete_segments(["seg_t_1"])  # an erased turn waits for nothing
    assert catalog.unindexed() == {}


def test_a_closed_catalog_says_so(catalog: CatalogBackend) -> None:
    _store(catalog, [_segment(0)])
    catalog.close()
    with pytest.raises(MemoryClosed):
        catalog.tenants()
    with pytest.raises(MemoryClosed), catalog.write():
        pass


def test_sqlite_finds_a_sessions_or_speakers_turns_by_the_tenants_indexes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catalog's reads of a session's or a speaker's turns (the exact filtered
    search's) use the tenant's session or speaker index, not the state's, which would
    read every live turn of every tenant."""
    catalog = SQLiteCatalog(tmp_path / "catalog.sqlite3")
    conn = catalog.read()
    plans: list[str] = []

    class Explaining:
        def execute(self, sql: str, args: Sequence[object] = ()) -> object:
            if "FROM segments WHERE" in sql:
                rows = conn.execute("EXPLAIN QUERY PLAN " + sql, args).fetchall()
                plans.append(" ".join(str(r[-1]) for r in rows))
            return conn.execute(sql, args)

    monkeypatch.setattr(catalog, "read", Explaining)
    for where in (
        SegmentFilter(session="s1", role="user"),
        SegmentFilter(speaker_id="spk_a"),
        SegmentFilter(speaker_id="spk_a", role="user"),
    ):
        plans.clear()
        catalog.count_segments("t", where, 10)
        catalog.segments("t", where, limit=10)
        index = "segments_speaker" if where.speaker_id else "segments_tenant"
        assert len(plans) == 2 and all(index in p for p in plans), plans
        assert not any("segments_state" in p for p in plans), plans
    catalog.close()


def test_postgresql_reads_and_deletes_vectors_by_key(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL, with no column statistics, took a session's 100 turns for half of the
    vectors table and read it whole (110 ms at 100k turns): the statements that read or
    delete given turns' vectors (a session's or some turns' with their vectors, their
    bytes, a speaker's voiceprints, a move to another speaker, a delete), with the
    table's size known (as after autovacuum's ANALYZE), are planned through its key,
    never a sequential scan."""
    from voxmem.memory import catalog_pg
    from voxmem.memory.catalog_pg import PostgresCatalog

    catalog = PostgresCatalog(fresh_database(request.getfixturevalue("pg")))
    segs = [_segment(i, session=f"s{i // 100}") for i in range(600)]
    _store(catalog, segs, Speaker("spk_a", "t", None, _vec(1, 4), 0, 1.0, 1.0))
    with catalog.write() as tx:
        tx.set_speaker([s.id for s in segs[:150]], "spk_a")
    catalog.read().execute("ANALYZE")
    statements: list[tuple[str, tuple[object, ...]]] = []

    def spying(cls: type) -> None:
        original = cls.execute

        def execute(self: object, sql: str, args: Sequence[object] = ()) -> object:
            if "vectors" in sql and not sql.lstrip().startswith("EXPLAIN"):
                statements.append((sql, tuple(args)))
            return original(self, sql, args)

        monkeypatch.setattr(cls, "execute", execute)

    spying(catalog_pg.PgReader)
    spying(catalog_pg.PgConnection)
    session = [s.id for s in segs if s.session == "s2"]
    assert len(catalog.segments("t", SegmentFilter(session="s2"), vectors=True)) == 100
    assert len(catalog.segments("t", SegmentFilter(ids=session), vectors=True)) == 100
    assert len(catalog.vector_bytes(session)) == 100 * len(DIMS)
    with catalog.write() as tx:
        assert len(tx.voiceprints_of(["spk_a"])["spk_a"]) == 150
        tx.set_speaker(session[:10], "spk_a")
        tx.delete_segments(session[10:])
    kinds = {sql.split()[0] for sql, _ in statements}
    assert {"SELECT", "DELETE"} <= kinds, statements
    for sql, args in statements:
        plan = " ".join(r[0] for r in catalog.read().execute("EXPLAIN " + sql, args))
        assert "Seq Scan on vectors" not in plan, (sql, plan)
        assert "vectors_pkey" in plan, (sql, plan)
    catalog.close()
