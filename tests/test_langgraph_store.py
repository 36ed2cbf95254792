from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TypedDict

import numpy as np
import pytest
from langgraph.store.base import BaseStore, InvalidNamespaceError

from tests.store_helpers import marker, open_fake, scan, tone, vectors
from voxmem.memory import AudioMemory
from voxmem.memory.catalog import MIGRATIONS, SCHEMA_VERSION
from voxmem.memory.langgraph_store import ITEMS_SPACE, SEGMENTS, VoxmemStore


@pytest.fixture
def memory(tmp_path: Path) -> AudioMemory:
    return open_fake(tmp_path / "mem")


def test_items_put_get_search_delete(memory: AudioMemory) -> None:
    store = VoxmemStore(memory, "acme")
    store.put(("users", "u1", "notes"), "n1", {"text": "the budget was cut by ten percent"})
    store.put(("users", "u1", "notes"), "n2", {"text": "rain all weekend", "kind": "weather"})
    store.put(("users", "u2"), "x", {"text": "something else"}, index=False)
    assert store.get(("users", "u1", "notes"), "n1").value["text"].startswith("the budget")
    hits = store.search(("users", "u1"), query="budget percent")
    assert [h.key for h in hits][:1] == ["n1"] and hits[0].score is not None
    assert [h.key for h in store.search(("users",), filter={"kind": "weather"})] == ["n2"]
    assert store.list_namespaces(prefix=("users",)) == [("users", "u1", "notes"), ("users", "u2")]
    assert store.list_namespaces(max_depth=1) == [("users",), ("voxmem",)]
    store.put(("users", "u1", "notes"), "n1", {"text": "updated"})
    assert store.get(("users", "u1", "notes"), "n1").value == {"text": "updated"}
    store.delete(("users", "u1", "notes"), "n1")
    assert store.get(("users", "u1", "notes"), "n1") is None
    assert memory.verify(repair=False).ok


def test_spoken_turns_are_searchable_items(tmp_path: Path) -> None:
    memory = open_fake(tmp_path / "mem")
    seg = memory.add_segment(
        tone(300),
        tenant="acme",
        session="s",
        transcript="budget talk",
        vectors={**vectors(memory, 1), "text": memory.perception.text.passages(["budget talk"])[0]},
    )
    store = VoxmemStore(memory, "acme")
    hits = store.search(SEGMENTS, query="budget")
    assert hits[0].key == seg.id and hits[0].value["transcript"] == "budget talk"
    assert store.get(SEGMENTS, seg.id).value["session"] == "s"
    with pytest.raises(ValueError, match="read-only"):
        store.put(SEGMENTS, "x", {"text": "no"})


def test_tenants_do_not_share_items_and_forget_erases_them(tmp_path: Path) -> None:
    memory = open_fake(tmp_path / "mem")
    secret = marker()
    a, b = VoxmemStore(memory, "alpha"), VoxmemStore(memory, "beta")
    a.put(("notes",), "k", {"text": secret})
    b.put(("notes",), "k", {"text": "beta's own"})
    assert b.get(("notes",), "k").value["text"] == "beta's own"
    assert all(secret not in h.value["text"] for h in b.search(("notes",), query=secret))
    assert scan(tmp_path / "mem", [secret.encode()])
    memory.forget("alpha", everything=True)
    assert scan(tmp_path / "mem", [secret.encode()]) == []
    assert b.get(("notes",), "k") is not None


async def test_async_and_inside_a_real_graph(memory: AudioMemory) -> None:
    from langgraph.graph import END, START, StateGraph

    store = VoxmemStore(memory, "acme")

    class State(TypedDict):
        fact: str

    def remember(state: State, *, store: BaseStore) -> State:
        store.put(("facts",), "latest", {"text": state["fact"]})
        return state

    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", END)
    graph = builder.compile(store=store)
    await graph.ainvoke({"fact": "the launch moved to May"})
    item = await store.aget(("facts",), "latest")
    assert item is not None and item.value["text"] == "the launch moved to May"
    assert (await store.asearch(("facts",), query="launch"))[0].key == "latest"


def test_a_version_1_catalog_is_migrated_in_place(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    root.mkdir()
    conn = sqlite3.connect(root / "catalog.sqlite3")
    for statement in MIGRATIONS[1]:
        conn.execute(statement)
    conn.execute("INSERT INTO tenants VALUES ('old', 1.0)")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    memory = open_fake(root)
    assert memory.catalog.schema_version == SCHEMA_VERSION  # every later migration ran
    assert memory.tenants() == ["old"]
    VoxmemStore(memory, "old").put(("n",), "k", {"text": "fine"})


def test_semantic_search_ranks_by_the_index(memory: AudioMemory) -> None:
    """The items' collection answers queries: an item the index does not hold is not found
    by meaning, though its row and vector are in the catalog."""
    store = VoxmemStore(memory, "acme")
    store.put(("notes",), "a", {"text": "budget cut"})
    store.put(("notes",), "b", {"text": "budget rise"})
    assert {h.key for h in store.search(("notes",), query="budget")} == {"a", "b"}
    memory.index.delete("acme", ITEMS_SPACE, ["notes\x1fa"])
    assert [h.key for h in store.search(("notes",), query="budget")] == ["b"]
    assert memory.verify(repair=True).ok is False  # verify notices and puts it back
    assert {h.key for h in store.search(("notes",), query="budget")} == {"a", "b"}


def test_deleting_an_item_erases_its_bytes(tmp_path: Path) -> None:
    memory = open_fake(tmp_path / "mem")
    store = VoxmemStore(memory, "acme")
    secret, key = marker(), f"k-{marker()}"
    store.put(("notes", "private"), key, {"text": f"{secret} budget"})
    store.put(("notes", "private"), "kept", {"text": "rain all weekend"})
    vector = memory.perception.text.passages([f"{secret} budget"])[0].astype(np.float32)
    nonzero = np.flatnonzero(vector)  # the fake text vector is sparse: skip its zero ends
    needles = [
        secret.encode(),
        key.encode(),
        vector[nonzero[0] : nonzero[-1] + 1].tobytes(),
    ]
    assert {n for _, n in scan(tmp_path / "mem", needles)} == set(needles)
    store.delete(("notes", "private"), key)
    assert scan(tmp_path / "mem", needles) == []
    assert store.get(("notes", "private"), key) is None
    assert [h.key for h in store.search(("notes",), query="rain")] == ["kept"]
    assert memory.verify(repair=False).ok


def test_one_tenant_never_sees_anothers_items(memory: AudioMemory) -> None:
    a, b = VoxmemStore(memory, "alpha"), VoxmemStore(memory, "beta")
    for ns in [("users",), ("Users", "x"), ("u%",)]:
        a.put(ns, "k", {"text": "alpha budget", "n": 1})
    b.put(("other",), "k", {"text": "beta rain", "n": 1})
    for prefix in [(), ("users",), ("u%",), ("other",)]:
        for query in (None, "budget"):
            got = b.search(prefix, query=query, filter={"n": {"$gte": 0}})
            assert all(h.value["text"] == "beta rain" for h in got)
    assert b.get(("users",), "k") is None
    assert b.list_namespaces() == [("other",), SEGMENTS]


def test_bad_labels_and_filters_are_refused_and_lose_nothing(memory: AudioMemory) -> None:
    store = VoxmemStore(memory, "acme")
    store.put(("notes",), "k", {"text": "kept", "n": 2})
    with pytest.raises(InvalidNamespaceError, match="x1f"):
        store.put(("a\x1fb",), "k", {"text": "no"})
    with pytest.raises(ValueError, match="unknown filter operator"):
        store.search(("notes",), filter={"n": {"$regex": "2"}})
    with pytest.raises(ValueError, match="compares numbers"):
        store.search(("notes",), filter={"n": {"$gt": "1"}})
    assert [h.key for h in store.search(("notes",), filter={"n": {"$gt": 1}})] == ["k"]
    assert store.list_namespaces() == [("notes",), SEGMENTS]


def test_spoken_turns_filter_with_and_without_a_query(tmp_path: Path) -> None:
    memory = open_fake(tmp_path / "mem")
    for i, session in enumerate(["s1", "s2", "s1"]):
        memory.add_segment(
            tone(300 + 100 * i),
            tenant="acme",
            session=session,
            transcript=f"budget talk {i}",
            vectors={
                **vectors(memory, i),
                "text": memory.perception.text.passages([f"budget talk {i}"])[0],
            },
        )
    store = VoxmemStore(memory, "acme")
    for query in (None, "budget"):
        got = store.search(SEGMENTS, query=query, filter={"session": "s1"})
        assert len(got) == 2 and all(h.value["session"] == "s1" for h in got)
        assert len(store.search(SEGMENTS, query=query, filter={"end": {"$gt": 100}})) == 0
