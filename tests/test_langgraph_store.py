from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TypedDict

import pytest
from langgraph.store.base import BaseStore

from tests.store_helpers import marker, open_fake, scan, tone, vectors
from voxmem.memory import AudioMemory
from voxmem.memory.catalog import MIGRATIONS
from voxmem.memory.langgraph_store import SEGMENTS, VoxmemStore


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
    assert memory.catalog.schema_version == 2
    assert memory.tenants() == ["old"]
    VoxmemStore(memory, "old").put(("n",), "k", {"text": "fine"})
