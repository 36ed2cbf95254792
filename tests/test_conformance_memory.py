"""The memory on every back-end pair: SQLite + embedded Chroma, and the in-memory fakes.

The same calls, the same answers; the fake pair also makes the index fail on demand,
so the forget job and the pending-index path are checked in milliseconds, and on the
real pair against the same expectations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.store_helpers import open_fake, tone, vectors
from voxmem.memory import SPACES, AudioMemory
from voxmem.memory.encoders.fake import fake_perception
from voxmem.memory.fakes import MemoryCatalog, MemoryIndex
from voxmem.memory.records import ForgetPending, IndexPending, IndexUnavailable
from voxmem.settings import Settings


@pytest.fixture(params=["sqlite+chroma", "fakes"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[AudioMemory]:
    if request.param == "fakes":
        made = AudioMemory(
            Settings(data_dir=tmp_path / "mem", cache_dir=tmp_path / "cache"),
            perception=fake_perception(),
            catalog=MemoryCatalog(),
            index=MemoryIndex(),
        )
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
