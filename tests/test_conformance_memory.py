"""The memory on every back-end pair: SQLite or PostgreSQL (audio in the database or in a
shared folder) with embedded Chroma, and the in-memory fakes (with and without audio in
the catalog).

The same calls, the same answers; the fake pair also makes the index fail on demand,
so the forget job and the pending-index path are checked in milliseconds, and on the
real pair against the same expectations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.pg_server import fresh_database
from tests.store_helpers import open_fake, tone, vectors
from voxmem.memory import SPACES, AudioMemory
from voxmem.memory.encoders.fake import fake_perception
from voxmem.memory.fakes import MemoryCatalog, MemoryIndex
from voxmem.memory.protocols import ForgetJob
from voxmem.memory.records import ForgetPending, IndexPending, IndexUnavailable
from voxmem.settings import Settings


@pytest.fixture(
    params=[
        "sqlite+chroma",
        "postgresql+chroma",
        "postgresql(folder)+chroma",
        "fakes",
        "fakes(audio)",
    ]
)
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[AudioMemory]:
    if request.param.startswith("fakes"):
        made = AudioMemory(
            Settings(data_dir=tmp_path / "mem", cache_dir=tmp_path / "cache"),
            perception=fake_perception(),
            catalog=MemoryCatalog(audio=request.param == "fakes(audio)"),
            index=MemoryIndex(),
        )
    elif request.param.startswith("postgresql"):
        url = fresh_database(request.getfixturevalue("pg"))
        shared = tmp_path / "shared-audio" if "folder" in request.param else None
        made = open_fake(tmp_path / "mem", catalog=url, audio_dir=shared)
    else:
        made = open_fake(tmp_path / "mem")
    yield made
    made.close()


def _add(memory: AudioMemory, session: str, seed: int, **kw: object) -> str:
    return memory.add_segment(
        tone(200 + 37 * seed),
        tenant="t",
        session=session,
        transcript=f"turn {seed}",
        vectors=vectors(memory, seed),
        **kw,  # type: ignore[arg-type]
    ).id


def test_store_search_speakers_forget(memory: AudioMemory) -> None:
    a, b = _add(memory, "s1", 1, role="user"), _add(memory, "s2", 2, role="agent")
    assert [s.id for s in memory.list("t")] == [a, b]
    for space in SPACES:
        hit = memory.search("t", space, memory.get("t", b).vectors[space], k=1)[0]
        assert hit.segment.id == b and hit.score == pytest.approx(1.0, abs=1e-4)
    only = memory.search("t", "text", vectors(memory, 2)["text"], 5, where={"session": "s1"})
    assert [h.segment.id for h in only] == [a]
    spk = memory.get("t", a).speaker_id or ""
    assert memory.name_speaker("t", spk, "ann").name == "ann"
    assert [s.id for s in memory.list("t", speaker="ann")] == [a]
    means = memory.speaker_means("t", "text")
    np.testing.assert_allclose(means[spk], memory.get("t", a).vectors["text"], atol=1e-6)
    assert memory.forget("t", session="s1") == 1
    assert [s.id for s in memory.list("t")] == [b]
    assert a not in memory.index.ids("t", "text")
    assert memory.speaker_names("t") == ["ann"]  # a named speaker outlives their turns
    assert memory.forget("t", speaker="ann") == 0
    assert memory.speaker_names("t") == []
    assert memory.verify(repair=False).ok
    assert memory.forget("t", everything=True) == 1
    assert memory.tenants() == []


def test_an_index_failure_never_loses_or_duplicates_a_turn(tmp_path: Path) -> None:
    index = MemoryIndex()
    catalog = MemoryCatalog()
    settings = Settings(data_dir=tmp_path / "mem", cache_dir=tmp_path / "cache")
    memory = AudioMemory(settings, fake_perception(), catalog=catalog, index=index)
    keep, gone = _add(memory, "keep", 1), _add(memory, "gone", 2)
    index.failing = IndexUnavailable("the engine is away")
    with pytest.raises(IndexUnavailable):
        memory.search("t", "text", vectors(memory, 1)["text"])
    with pytest.raises(IndexPending) as pending:
        _add(memory, "late", 3)
    late = pending.value.segments[0].id
    with pytest.raises(ForgetPending) as left:
        memory.forget("t", session="gone")
    assert left.value.segments == 1
    assert [s.id for s in memory.list("t")] == [keep, late]  # hidden at once, kept, stored
    assert len(catalog.forget_jobs()) == 1
    index.failing = None
    report = memory.verify(repair=False)
    assert report.unfinished_forgets == 1 and not report.ok
    assert memory.forget("t", session="gone") == 1  # the retry finishes the same forget
    assert catalog.forget_jobs() == []
    assert gone not in memory.index.ids("t", "speaker")
    # opening again indexes the turn stored while the index was away, once
    again = AudioMemory(settings, fake_perception(), catalog=catalog, index=index)
    assert again.search("t", "text", vectors(again, 3)["text"], 1)[0].segment.id == late
    assert again.verify(repair=False).ok
    assert len(again.list("t")) == 2


def _fake_memory(tmp_path: Path) -> tuple[AudioMemory, MemoryCatalog, MemoryIndex]:
    index, catalog = MemoryIndex(), MemoryCatalog()
    settings = Settings(data_dir=tmp_path / "mem", cache_dir=tmp_path / "cache")
    return AudioMemory(settings, fake_perception(), catalog=catalog, index=index), catalog, index


@pytest.mark.parametrize("selector", ["segment", "speaker", "everything"])
def test_asking_again_finishes_a_forget_whatever_its_first_step_erased(
    tmp_path: Path, selector: str
) -> None:
    memory, catalog, index = _fake_memory(tmp_path)
    gone = _add(memory, "s", 1)
    spk = memory.get("t", gone).speaker_id or ""
    memory.name_speaker("t", spk, "ann")
    ask = {
        "segment": {"segment": gone},
        "speaker": {"speaker": "ann"},
        "everything": {"everything": True},
    }[selector]
    index.failing = IndexUnavailable("the engine is away")
    with pytest.raises(ForgetPending):
        memory.forget("t", **ask)  # type: ignore[arg-type]
    index.failing = None
    # the segment, the speaker or the tenant row are already gone from the catalog
    assert memory.forget("t", **ask) == 1  # type: ignore[arg-type]
    assert catalog.forget_jobs() == []
    assert all(gone not in index.ids("t", space) for space in SPACES)


def test_asking_a_session_forget_again_also_forgets_what_was_stored_since(
    tmp_path: Path,
) -> None:
    memory, catalog, index = _fake_memory(tmp_path)
    first = _add(memory, "s1", 1)
    keep = _add(memory, "s2", 2)
    index.failing = IndexUnavailable("the engine is away")
    with pytest.raises(ForgetPending):
        memory.forget("t", session="s1")
    index.failing = None
    later = _add(memory, "s1", 3)  # stored in the session while its forget was pending
    assert memory.forget("t", session="s1") == 2
    assert [s.id for s in memory.list("t")] == [keep]
    assert not {first, later} & index.ids("t", "text") and catalog.forget_jobs() == []


def test_a_forget_that_keeps_failing_never_keeps_the_memory_from_opening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from voxmem.memory.maintenance import Maintenance
    from voxmem.memory.records import StoreError

    def broken(self: Maintenance, *args: object) -> None:
        raise StoreError("clearing the index failed")

    # a session's forget erases its entries; forgetting everything rebuilds the tenant
    monkeypatch.setattr(Maintenance, "erase_clean", broken)
    monkeypatch.setattr(Maintenance, "rebuild_clean", broken)
    memory, catalog, index = _fake_memory(tmp_path)
    keep, _ = _add(memory, "keep", 1), _add(memory, "gone", 2)
    with pytest.raises(StoreError):
        memory.forget("t", session="gone")
    # opening again tries the compact again, fails again, and opens all the same
    again = AudioMemory(memory.settings, fake_perception(), catalog=catalog, index=index)
    assert [s.id for s in again.list("t")] == [keep] and len(catalog.forget_jobs()) == 1
    assert again.rebuild() == 1  # what the error tells the user to run
    monkeypatch.undo()
    fixed = AudioMemory(memory.settings, fake_perception(), catalog=catalog, index=index)
    assert catalog.forget_jobs() == [] and fixed.verify(repair=False).ok


def test_forget_everything_keeps_a_speaker_enrolled_after_it_was_asked(tmp_path: Path) -> None:
    from voxmem.memory.forget import Forgetting

    memory, _, _ = _fake_memory(tmp_path)
    _add(memory, "s", 1)
    real_erase = Forgetting._erase

    def erase_after_an_enrollment(self: Forgetting, tx: object, job: object) -> None:
        # another writer enrolls a voice between the forget being asked and its erasure
        spk = memory.enroll_speaker("t", "zoe", tone(900, 2.0))
        assert spk.created_at > job.created_at  # type: ignore[attr-defined]
        real_erase(self, tx, job)  # type: ignore[arg-type]

    Forgetting._erase = erase_after_an_enrollment  # type: ignore[method-assign]
    try:
        memory.forget("t", everything=True)
    finally:
        Forgetting._erase = real_erase  # type: ignore[method-assign]
    assert memory.speaker_names("t") == ["zoe"] and memory.tenants() == ["t"]


def test_a_rebuild_indexes_every_live_turn_while_another_forget_hides_some(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from voxmem.memory import entries

    memory, catalog, index = _fake_memory(tmp_path)
    ids = [_add(memory, f"s{i}", i) for i in range(7)]
    monkeypatch.setattr(entries, "BATCH", 2)
    real = catalog.segments
    calls = 0

    def hide_one_midway(*args: object, **kw: object) -> list[object]:
        nonlocal calls
        calls += 1
        if calls == 2:  # between the first page and the second, a forget hides s0
            job = ForgetJob("fgt_x", "t", "{}", "erase", (ids[0],), None, False, None, 0.0)
            with catalog.write() as tx:
                tx.add_forget_job(job)
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(catalog, "segments", hide_one_midway)
    memory.rebuild("t")
    monkeypatch.undo()
    assert index.ids("t", "text") >= set(ids[1:])


def test_a_search_filtered_to_a_session_or_speaker_scores_its_turns_exactly(
    memory: AudioMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A filter naming a session (or a speaker) is answered from the catalog's vectors,
    with the index's order and cosine scores, without asking the index; wider filters
    and bigger sessions go to the index, and both answers agree."""
    from voxmem.memory import store

    queries = {space: vectors(memory, 40 + n)[space] for n, space in enumerate(SPACES)}
    ids = []
    for i in range(18):
        vecs = vectors(memory, i)
        # stored at different lengths: the score is the cosine, not the dot product
        if i % 4 == 0:  # one voice: a speaker of several turns
            vecs["speaker"] = vectors(memory, 99)["speaker"] + 0.05 * vecs["speaker"]
        vecs = {space: v * np.float32(1 + i % 4) for space, v in vecs.items()}
        ids.append(
            memory.add_segment(
                tone(200 + 37 * i),
                tenant="t",
                session=f"s{i % 3}",
                role="user" if i % 2 else "agent",
                transcript=f"turn {i}",
                vectors=vecs,
            ).id
        )
    # what must never be found: the query itself, forgotten, and in another tenant
    gone = memory.add_segment(
        tone(150), tenant="t", session="s1", role="user", vectors=dict(queries)
    ).id
    assert memory.forget("t", segment=gone) == 1
    memory.add_segment(tone(150), tenant="u", session="s1", role="user", vectors=dict(queries))
    spk = memory.get("t", ids[0]).speaker_id or ""
    cases = [
        {"$and": [{"session": "s1"}, {"role": "user"}]},
        {"session": {"$eq": "s2"}},
        {"speaker": spk},
    ]
    wanted = [
        {ids[i] for i in range(18) if i % 3 == 1 and i % 2},
        {ids[i] for i in range(18) if i % 3 == 2},
        {s.id for s in memory.list("t", speaker=spk)},
    ]
    assert len(wanted[2]) >= 4  # a speaker of several turns

    def no_index(*args: object, **kw: object) -> None:
        raise AssertionError("the index was asked")

    with monkeypatch.context() as m:
        m.setattr(memory.index, "query", no_index)
        via_catalog = [memory.search_spaces("t", queries, 4, where) for where in cases]
        single = memory.search("t", "text", queries["text"], 4, cases[0])
        with pytest.raises(AssertionError, match="the index was asked"):
            memory.search("t", "text", queries["text"], 4, {"role": "user"})
    for got, want in zip(via_catalog, wanted, strict=True):
        for space, hits in got.items():
            assert {h.segment.id for h in hits} <= want, space
            assert len(hits) == min(4, len(want))
            assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
            assert all(h.score < 0.999 and not h.segment.vectors for h in hits)
            for h in hits:
                v = memory.get("t", h.segment.id).vectors[space]
                cosine = v @ queries[space] / np.linalg.norm(v) / np.linalg.norm(queries[space])
                assert h.score == pytest.approx(float(cosine), abs=1e-4)
    assert [h.segment.id for h in single] == [h.segment.id for h in via_catalog[0]["text"]]

    # the same searches through the index (bigger than the exact path takes)
    monkeypatch.setattr(store, "EXACT_MAX", 0)
    via_index = [memory.search_spaces("t", queries, 4, where) for where in cases]
    for exact, indexed in zip(via_catalog, via_index, strict=True):
        for space in SPACES:
            assert [h.segment.id for h in exact[space]] == [h.segment.id for h in indexed[space]]
            for e, i in zip(exact[space], indexed[space], strict=True):
                assert e.score == pytest.approx(i.score, abs=1e-4)


def test_which_filters_the_catalog_answers() -> None:
    from voxmem.memory.protocols import SegmentFilter
    from voxmem.memory.store import narrow_filter

    assert narrow_filter({"session": "a"}) == SegmentFilter(session="a")
    assert narrow_filter({"$and": [{"speaker": "p"}, {"role": {"$eq": "user"}}]}) == (
        SegmentFilter(speaker_id="p", role="user")
    )
    for other in (
        None,
        {},
        {"role": "user"},  # half the turns: the index's wider search is quicker
        {"speaker": ""},  # no speaker, which the catalog stores as NULL
        {"session": {"$in": ["a", "b"]}},
        {"$and": [{"session": "a"}, {"created_at": {"$gte": 1.0}}]},
        {"$or": [{"session": "a"}, {"session": "b"}]},
        {"$and": [{"session": "a"}, {"session": "b"}]},
        {"$and": [{"session": "a"}]},  # Chroma refuses an "$and" of one
        {"session": "a\x00"},  # PostgreSQL refuses a NUL; the index answers it
        {"session": "a", "role": "user"},
    ):
        assert narrow_filter(other) is None, other
