"""The LangGraph adapter against LangGraph's own ``InMemoryStore`` as the oracle.

Random sequences of put / get / search / delete / list_namespaces run on two
tenants of one memory (real Chroma on disk), each tenant mirrored by its own
``InMemoryStore`` that embeds with the same text encoder. Namespaces share
labels across tenants and differ only by case, ``%`` or ``_``; filters use
every operator the oracle knows.

Where the oracle leaves something unspecified, the test states the rule the
adapter keeps: without a query, the most recently written items come first;
with a query, scored items by score, then unscored ones in that order; a
namespace is listed while it holds an item; ``("voxmem", "segments")`` is
always listed; ties in score may come in any order.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Literal

import pytest
from langchain_core.embeddings import Embeddings
from langgraph.store.base import Item, SearchItem
from langgraph.store.memory import InMemoryStore

from tests.pg_server import fresh_database
from tests.store_helpers import open_fake
from voxmem.memory import AudioMemory
from voxmem.memory.langgraph_store import SEGMENTS, VoxmemStore

SEEDS = range(12)
OPS_PER_SEQUENCE = 45
TOLERANCE = 1e-4
EVERYTHING = 10_000

WORDS = ["budget", "rain", "launch", "coffee", "meeting", "zebra", "piano", "river", "tax"]
# labels that an unescaped, case-insensitive LIKE confuses with one another
SPACES: list[tuple[str, ...]] = [
    ("users",),
    ("Users", "u_1"),
    ("USERS", "uX1", "notes"),
    ("users", "u_1", "notes"),
    ("users", "u%1"),
    ("users", "uz1", "Notes"),
    ("a%",),
    ("aB", "c"),
    ("a%", "b_", "c"),
]
PREFIXES: list[tuple[str, ...]] = sorted(
    {ns[:n] for ns in SPACES for n in range(len(ns) + 1)} | {("u",), ("a",), ("users", "u")}
)
KEYS = ["k1", "k2", "K1", "k%", "k_"]
#: how a put asks to be indexed: by default, not at all, or by fields (one absent)
INDEXING: list[Literal[False] | list[str] | None] = [
    None,
    None,
    False,
    ["text"],
    ["meta.tag"],
    ["absent"],
]


class SharedEmbeddings(Embeddings):
    """The memory's own text encoder, as LangChain embeddings for the oracle."""

    def __init__(self, memory: AudioMemory) -> None:
        self.text = memory.perception.text

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [v.tolist() for v in self.text.passages(texts)]

    def embed_query(self, text: str) -> list[float]:
        return self.text.queries([text])[0].tolist()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def memory(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AudioMemory:
    """The adapter on each catalog: its items are raw SQL that both must answer alike."""
    catalog = fresh_database(request.getfixturevalue("pg")) if request.param != "sqlite" else None
    return open_fake(tmp_path_factory.mktemp("oracle") / "mem", catalog=catalog)


class Mirror:
    """One tenant: the adapter, the oracle, and the order in which items were written."""

    def __init__(self, memory: AudioMemory, tenant: str) -> None:
        self.store = VoxmemStore(memory, tenant)
        self.oracle = InMemoryStore(
            index={
                "dims": memory.perception.text.dim,
                "embed": SharedEmbeddings(memory),
                "fields": ["text"],
            }
        )
        self.written: dict[tuple[tuple[str, ...], str], int] = {}
        self.clock = 0

    def recency(self, item: Item) -> int:
        return -self.written[(item.namespace, item.key)]


def random_value(rng: random.Random) -> dict[str, Any]:
    value: dict[str, Any] = {
        "text": " ".join(rng.sample(WORDS, rng.randint(1, 3))),
        "n": rng.choice([rng.randint(-3, 3), round(rng.uniform(-3, 3), 2)]),
        "meta": {"level": rng.randint(0, 3), "tag": rng.choice(["x", "y"])},
    }
    if rng.random() < 0.7:
        value["kind"] = rng.choice(["a", "b", "A"])
    return value


def random_filter(rng: random.Random) -> dict[str, Any] | None:
    choices: list[dict[str, Any]] = [
        {"kind": rng.choice(["a", "b", "A"])},
        {"kind": {"$eq": rng.choice(["a", "b"])}},
        {"kind": {"$ne": rng.choice(["a", "b"])}},
        {"n": {rng.choice(["$gt", "$gte", "$lt", "$lte"]): rng.choice([-1, 0, 1.5, 2])}},
        {"n": {"$gt": -2, "$lte": rng.choice([0, 1, 2.5])}},
        {"n": {"$eq": rng.randint(-3, 3)}},
        {"meta": {"level": {rng.choice(["$gt", "$gte", "$lt", "$lte"]): rng.randint(0, 3)}}},
        {"meta": {"tag": rng.choice(["x", "y"])}},
        {"meta": {"level": rng.randint(0, 3), "tag": rng.choice(["x", "y"])}},
        {"meta": {"level": {"$ne": rng.randint(0, 3)}}},
    ]
    if rng.random() < 0.35:
        return None
    picked = rng.sample(choices, rng.randint(1, 2))
    out: dict[str, Any] = {}
    for f in picked:
        out.update(f)
    return out


def random_path(rng: random.Random, kind: str) -> tuple[str, ...] | None:
    """A prefix or suffix of a namespace in use, sometimes with a ``*``, or a case variant."""
    if rng.random() < 0.5:
        return None
    ns = rng.choice(SPACES)
    n = rng.randint(1, len(ns))
    path = list(ns[:n] if kind == "prefix" else ns[-n:])
    if rng.random() < 0.3:
        path[rng.randrange(n)] = "*"
    elif rng.random() < 0.2:
        path[0] = path[0].swapcase()
    return tuple(path)


async def call(rng: random.Random, store: VoxmemStore, name: str, *args: Any, **kw: Any) -> Any:
    """The sync or the async form of a store method, at random."""
    if rng.random() < 0.5:
        return getattr(store, name)(*args, **kw)
    return await getattr(store, "a" + name)(*args, **kw)


def expected_search(
    mirror: Mirror, prefix: tuple[str, ...], query: str | None, filt: Any, limit: int, offset: int
) -> list[SearchItem]:
    full = mirror.oracle.search(prefix, query=query, filter=filt, limit=EVERYTHING)
    scored = [r for r in full if r.score is not None]
    unscored = sorted((r for r in full if r.score is None), key=mirror.recency)
    return (scored + unscored)[offset : offset + limit]


def check_search(
    got: Sequence[SearchItem], want: Sequence[SearchItem], all_scores: dict[Any, float | None]
) -> None:
    what = f"got {[(g.namespace, g.key, g.score) for g in got]}, want " + str(
        [(w.namespace, w.key, w.score) for w in want]
    )
    assert len(got) == len(want), what
    assert len({(g.namespace, g.key) for g in got}) == len(got), what
    for g, w in zip(got, want, strict=True):
        if w.score is None:  # unscored items keep a stated order
            assert (g.namespace, g.key, g.score) == (w.namespace, w.key, None), what
            assert g.value == w.value, what
        else:  # equal scores may come in any order: compare scores, and each item's own
            assert g.score is not None and g.score == pytest.approx(w.score, abs=TOLERANCE), what
            truth = all_scores.get((g.namespace, g.key))
            assert truth is not None and g.score == pytest.approx(truth, abs=TOLERANCE), what
        assert g.created_at <= g.updated_at


async def step(rng: random.Random, mirror: Mirror) -> None:
    store, oracle = mirror.store, mirror.oracle
    roll = rng.random()
    ns, key = rng.choice(SPACES), rng.choice(KEYS)
    if roll < 0.35:
        value = random_value(rng)
        index = rng.choice(INDEXING)
        await call(rng, store, "put", ns, key, value, index=index)
        oracle.put(ns, key, value, index=index)
        mirror.clock += 1
        mirror.written[(ns, key)] = mirror.clock
    elif roll < 0.45:
        await call(rng, store, "delete", ns, key)
        oracle.delete(ns, key)
        mirror.written.pop((ns, key), None)
    elif roll < 0.55:
        got, want = await call(rng, store, "get", ns, key), oracle.get(ns, key)
        assert (got and (got.namespace, got.key, got.value)) == (
            want and (want.namespace, want.key, want.value)
        )
    elif roll < 0.9:
        await check_a_search(rng, mirror)
    else:
        await check_a_listing(rng, mirror)


async def check_a_search(rng: random.Random, mirror: Mirror) -> None:
    prefix = rng.choice(PREFIXES)
    query = " ".join(rng.sample(WORDS, rng.randint(1, 2))) if rng.random() < 0.6 else None
    filt = random_filter(rng)
    limit, offset = rng.choice([1, 2, 3, 5, 10, 50]), rng.choice([0, 0, 0, 1, 2, 5])
    got = await call(
        rng, mirror.store, "search", prefix, query=query, filter=filt, limit=limit, offset=offset
    )
    want = expected_search(mirror, prefix, query, filt, limit, offset)
    scores = {
        (r.namespace, r.key): r.score
        for r in mirror.oracle.search(prefix, query=query, filter=filt, limit=EVERYTHING)
    }
    check_search(got, want, scores)
    for g in got:  # the value written last, whatever the order
        truth = mirror.oracle.get(g.namespace, g.key)
        assert truth is not None and g.value == truth.value


async def check_a_listing(rng: random.Random, mirror: Mirror) -> None:
    prefix, suffix = random_path(rng, "prefix"), random_path(rng, "suffix")
    max_depth = rng.choice([None, None, 1, 2, 3])
    limit, offset = rng.choice([2, 5, 100]), rng.choice([0, 0, 1, 3])
    got = await call(
        rng,
        mirror.store,
        "list_namespaces",
        prefix=prefix,
        suffix=suffix,
        max_depth=max_depth,
        limit=limit,
        offset=offset,
    )
    # listed while holding an item, and the spoken turns always
    live = InMemoryStore()
    for space, k in [*mirror.written, (SEGMENTS, "turns")]:
        live.put(space, k, {})
    want = live.list_namespaces(
        prefix=prefix, suffix=suffix, max_depth=max_depth, limit=limit, offset=offset
    )
    assert got == want, (prefix, suffix, max_depth, limit, offset)


@pytest.mark.parametrize("seed", SEEDS)
async def test_the_adapter_answers_as_langgraphs_in_memory_store(
    memory: AudioMemory, seed: int
) -> None:
    rng = random.Random(seed)
    mirrors = [Mirror(memory, f"oracle-{seed}-a"), Mirror(memory, f"oracle-{seed}-b")]
    for _ in range(OPS_PER_SEQUENCE):
        await step(rng, rng.choice(mirrors))


def test_oracle_texts_have_nonzero_vectors(memory: AudioMemory) -> None:
    """Cosine similarity needs a direction: every text the sequences write has one."""
    import itertools

    import numpy as np

    texts = [" ".join(c) for n in (1, 2, 3) for c in itertools.permutations(WORDS, n)]
    texts += ["x", "y"]
    norms = np.linalg.norm(memory.perception.text.passages(texts), axis=1)
    assert norms.min() > 0.5
