"""One contract, every vector index: the same tests on embedded Chroma, a real
`chroma run` server on loopback, and the in-memory fake.

A new index back end is one more ``param`` of the ``index`` fixture."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.store_helpers import chroma_server  # noqa: F401 (fixture)
from voxmem.memory.fakes import MemoryIndex
from voxmem.memory.index import ChromaIndex
from voxmem.memory.protocols import IndexBackend
from voxmem.memory.records import MemoryClosed
from voxmem.settings import ChromaSettings


@pytest.fixture(params=["chroma-embedded", "chroma-server", "memory"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[IndexBackend]:
    made: IndexBackend
    if request.param == "chroma-embedded":
        made = ChromaIndex(ChromaSettings(path=tmp_path / "chroma"), tmp_path / "chroma")
    elif request.param == "chroma-server":
        url = request.getfixturevalue("chroma_server")
        made = ChromaIndex(ChromaSettings(url=url), tmp_path / "unused")
    else:
        made = MemoryIndex()
    yield made
    made.close()


@pytest.fixture
def tenant() -> str:
    """A fresh tenant id per test: the server is shared by the whole run."""
    return f"t-{uuid.uuid4().hex[:8]}"


def _unit(seed: int, dim: int = 16) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def _fill(index: IndexBackend, tenant: str, n: int = 6, space: str = "text") -> list[str]:
    ids = [f"seg_{i}" for i in range(n)]
    index.upsert(
        tenant,
        space,
        ids,
        [_unit(i) for i in range(n)],
        [
            {"session": f"s{i % 2}", "role": "user" if i < 3 else "agent", "start": float(i)}
            for i in range(n)
        ],
    )
    return ids


def test_upsert_query_delete(index: IndexBackend, tenant: str) -> None:
    ids = _fill(index, tenant)
    assert index.ids(tenant, "text") == set(ids) and index.count(tenant, "text") == 6
    hits = index.query(tenant, "text", _unit(2), k=3)
    assert hits[0].id == "seg_2" and hits[0].score == pytest.approx(1.0, abs=1e-4)
    assert len(hits) == 3 and hits[0].score >= hits[1].score >= hits[2].score
    assert hits[0].metadata == {}  # not fetched unless asked
    hits = index.query(tenant, "text", _unit(2), k=3, metadata=True)
    assert hits[0].metadata["session"] == "s0"
    assert index.query(tenant, "text", _unit(2), k=0) == []
    index.upsert(tenant, "text", ["seg_2"], [_unit(99)], [{"session": "s9"}])  # replaces
    assert index.count(tenant, "text") == 6
    assert index.query(tenant, "text", _unit(99), k=1, metadata=True)[0].metadata["session"] == "s9"
    index.delete(tenant, "text", ["seg_2", "seg_nope"])
    assert index.ids(tenant, "text") == set(ids) - {"seg_2"}
    index.delete(tenant, "text", [])


def test_filters(index: IndexBackend, tenant: str) -> None:
    _fill(index, tenant)
    q = _unit(0)

    def found(where: dict[str, object]) -> set[str]:
        return {h.id for h in index.query(tenant, "text", q, k=10, where=where)}

    assert found({"session": "s1"}) == {"seg_1", "seg_3", "seg_5"}
    assert found({"$and": [{"session": "s1"}, {"role": "user"}]}) == {"seg_1"}
    assert found({"$or": [{"session": "s1"}, {"role": "user"}]}) == {
        "seg_0",
        "seg_1",
        "seg_2",
        "seg_3",
        "seg_5",
    }
    assert found({"start": {"$gte": 4.0}}) == {"seg_4", "seg_5"}
    assert found({"role": {"$in": ["agent"]}}) == {"seg_3", "seg_4", "seg_5"}
    assert found({"role": {"$ne": "agent"}}) == {"seg_0", "seg_1", "seg_2"}
    index.update_metadata(tenant, "text", ["seg_0"], [{"session": "s1", "role": "user"}])
    assert "seg_0" in found({"session": "s1"})


def test_tenants_and_spaces_are_separate(index: IndexBackend, tenant: str) -> None:
    other = tenant + "-b"
    _fill(index, tenant)
    index.upsert(other, "text", ["seg_x"], [_unit(2)], [{"session": "s0"}])
    assert {h.id for h in index.query(other, "text", _unit(2), k=10)} == {"seg_x"}
    assert index.ids(tenant, "speaker") == set()
    assert index.query(tenant, "speaker", _unit(2), k=5) == []  # no collection: nothing
    assert {tenant, other} <= index.tenants()


def test_drop_then_nothing_is_there(index: IndexBackend, tenant: str) -> None:
    _fill(index, tenant)
    index.drop(tenant, "text")
    index.drop(tenant, "text")  # already gone is fine
    assert index.ids(tenant, "text") == set() and index.count(tenant, "text") == 0
    assert index.query(tenant, "text", _unit(0), k=3) == []
    _fill(index, tenant, 2)  # and it can be written again
    assert index.count(tenant, "text") == 2
    index.purge()
    assert index.count(tenant, "text") == 2


def test_erase_removes_the_entries_from_every_space_given(index: IndexBackend, tenant: str) -> None:
    ids = _fill(index, tenant, space="text")
    _fill(index, tenant, space="speaker")
    _fill(index, tenant, space="style")
    index.erase(tenant, ["text", "speaker"], ids[:2])
    for space in ("text", "speaker"):
        assert index.ids(tenant, space) == set(ids[2:])
    assert index.ids(tenant, "style") == set(ids)  # a space not named keeps them
    hits = index.query(tenant, "text", _unit(3), 6)
    assert [h.id for h in hits][:1] == ["seg_3"] and {h.id for h in hits} == set(ids[2:])
    # unknown ids and tenants are nothing to erase; one space's name alone is refused
    index.erase(tenant, ["text"], ["seg_none"])
    index.erase(f"{tenant}-other", ["text"], ids)
    with pytest.raises(TypeError, match="sequence of spaces"):
        index.erase(tenant, "text", ids[2:3])  # type: ignore[arg-type]
    assert index.ids(tenant, "text") == set(ids[2:])
    index.erase(tenant, ["style"], ids[:2])
    assert index.ids(tenant, "style") == set(ids[2:])
    # what the index's own files hold (embedded; a server's are out of reach): after a
    # purge, none of the erased vectors in any form Chroma stores them
    from voxmem.memory.index import stored_forms

    index.purge()
    needles = [n for i in range(2) for n in stored_forms(_unit(i).tobytes(), 32)]
    assert index.holds(needles) == set()
    if isinstance(index, ChromaIndex) and index.mode == "embedded":
        kept = [n for n in stored_forms(_unit(4).tobytes(), 32)]
        assert index.holds(kept) == {tenant}  # the search finds what is there


def test_clearing_unused_room_keeps_every_entry(index: IndexBackend, tenant: str) -> None:
    """What the files hold beyond their entries is zeroed, and nothing an entry holds:
    the same ids and the same hits after. Embedded, bytes planted in a graph file's
    room past its entries (as a write-out of memory the process had used leaves them)
    are found by the search of the files, and gone after."""
    ids = _fill(index, tenant, n=8)
    index.erase(tenant, ["text"], ids[:2])  # a graph written out with room to spare
    before = [(h.id, round(h.score, 5)) for h in index.query(tenant, "text", _unit(5), 6)]
    planted = b"\x5a\xa5" * 16
    graphs: list[Path] = []
    if isinstance(index, ChromaIndex) and index.mode == "embedded":
        index.release(settle=True)
        graphs = [p for p in index.path.glob("*/data_level0.bin") if p.stat().st_size]
        assert graphs, "the erase wrote no graph file"
        for path in graphs:
            data = bytearray(path.read_bytes())
            data[-64:-32] = planted  # the last element's room: past the 8 in use
            path.write_bytes(bytes(data))
        assert index.holds([planted]) != set()
        assert index.clear_unused() == len(graphs)
        assert index.holds([planted]) == set()
    else:
        assert index.clear_unused() == 0
    assert index.clear_unused() == 0  # nothing left to clear
    assert index.ids(tenant, "text") == set(ids[2:])
    after = [(h.id, round(h.score, 5)) for h in index.query(tenant, "text", _unit(5), 6)]
    assert after == before


def test_new_graph_files_hold_none_of_what_the_process_forgot(tmp_path: Path) -> None:
    """Embedded: a graph file made after a forget gets room written out as it lay in
    memory; that memory is filled with a fixed byte when handed out, so no erased
    vector reaches a new tenant's graph files (without it, 3 rounds in 10 did)."""
    from voxmem.memory.index import _fill_new_memory, stored_forms

    index = ChromaIndex(ChromaSettings(path=tmp_path / "chroma"), tmp_path / "chroma")
    assert _fill_new_memory()  # glibc, as on every machine this runs on
    rng = np.random.default_rng(1)
    try:
        for k in range(6):
            vs = rng.standard_normal((20, 16)).astype(np.float32)
            vs /= np.linalg.norm(vs, axis=1, keepdims=True)
            needles = [n for v in vs for n in stored_forms(v.tobytes(), 32)]
            ids = [f"s{i}" for i in range(20)]
            index.upsert(f"a{k}", "text", ids, list(vs), [{"session": "a"}] * 20)
            index.erase(f"a{k}", ["text"], ids)
            index.purge()
            assert index.holds(needles) == set()
            for j in range(3):  # new tenants' first turns: new graph files
                index.upsert(f"b{k}{j}", "text", ["x"], [_unit(k * 3 + j)], [{"session": "a"}])
            index.release(settle=True)
            graphs = [f for f in index.path.glob("*/*") if f.is_file()]
            assert graphs and scan_files(graphs, needles) == [], f"round {k}"
    finally:
        index.close()


def scan_files(files: list[Path], needles: list[bytes]) -> list[tuple[Path, bytes]]:
    return [(f, n) for f in files for n in needles if n in f.read_bytes()]


def test_a_graph_file_of_another_layout_is_left_alone(tmp_path: Path) -> None:
    """Only the room past the elements in use, and only in a header this reads."""
    import struct

    from voxmem.memory.index import _clear_graph_room

    folder = tmp_path / "g"
    folder.mkdir()
    data = bytes(range(1, 65)) * 4  # 4 elements of 64 bytes
    (folder / "data_level0.bin").write_bytes(data)
    (folder / "header.bin").write_bytes(struct.pack("<iQQQQ", 1, 0, 4, 2, 64) + b"rest")
    assert _clear_graph_room(folder) == 1
    assert (folder / "data_level0.bin").read_bytes() == data[:128] + bytes(128)
    assert _clear_graph_room(folder) == 0  # already clear
    # grown since it was made: the file holds only its elements, and that is no error
    (folder / "data_level0.bin").write_bytes(data)
    (folder / "header.bin").write_bytes(struct.pack("<iQQQQ", 1, 0, 8, 4, 64))
    assert _clear_graph_room(folder) == 0
    assert (folder / "data_level0.bin").read_bytes() == data
    for header in (
        struct.pack("<iQQQQ", 2, 0, 4, 2, 64),  # another version
        struct.pack("<iQQQQ", 1, 0, 4, 5, 64),  # more in use than room
        struct.pack("<iQQQQ", 1, 0, 3, 2, 64),  # a file larger than its room
        struct.pack("<iQQQQ", 1, 0, 8, 5, 64),  # fewer bytes than its elements in use
        b"short",
    ):
        (folder / "data_level0.bin").write_bytes(data)
        (folder / "header.bin").write_bytes(header)
        assert _clear_graph_room(folder) == 0
        assert (folder / "data_level0.bin").read_bytes() == data


def test_a_closed_index_says_so(index: IndexBackend, tenant: str) -> None:
    _fill(index, tenant, 1)
    index.close()
    with pytest.raises(MemoryClosed):
        index.ids(tenant, "text")
