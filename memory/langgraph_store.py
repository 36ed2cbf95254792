"""A LangGraph ``BaseStore`` over the audio memory, bound to one tenant.

LangGraph and LangMem apps keep their memories as JSON items under namespaces;
this store keeps them in the same catalog (and, when they have text, the same
index) as the audio, so forgetting a tenant forgets both. The read-only
namespace ``("voxmem", "segments")`` exposes the spoken turns themselves:
``store.search(("voxmem", "segments"), query="the budget")`` returns turns by
meaning, with speaker, session, times and labels.

Searches answer as LangGraph's own stores do (filters with ``$eq``, ``$ne``, ``$gt``,
``$gte``, ``$lt``, ``$lte`` and nested keys; namespace prefixes label by label). A
query ranks items by the index, then lists unscored ones; without a query, the most
recently written come first. Deleting an item erases its bytes from the files.

    store = VoxmemStore(AudioMemory.open("/data/mem"), tenant="acme")
    graph = builder.compile(store=store)
"""

from __future__ import annotations

import asyncio
import json
import operator
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from itertools import islice
from typing import Any

import numpy as np
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    get_text_at_path,
)

from voxmem.memory.records import check_tenant
from voxmem.memory.store import AudioMemory

SEGMENTS = ("voxmem", "segments")
ITEMS_SPACE = "items"
_SEP = "\x1f"
#: the character after the separator: every namespace under ``p`` sorts below ``p + _AFTER``
_AFTER = chr(ord(_SEP) + 1)
_ORDER: dict[str, Callable[[float, float], bool]] = {
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}


def _ns(namespace: Sequence[str]) -> str:
    for label in namespace:
        if _SEP in label:
            raise InvalidNamespaceError(
                f"namespace label {label!r} holds the character \\x1f, which the store uses "
                "to join labels; remove it from the label"
            )
    return _SEP.join(namespace)


def _when(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=UTC)


def _text(value: Mapping[str, Any], fields: Sequence[str] | None) -> str:
    """What an item is searched by: the given fields (LangGraph paths such as
    ``"meta.note"``, joined), or else its first text field, or else its JSON."""
    if fields is not None:
        return " ".join(t for f in fields for t in get_text_at_path(value, f))
    for key in ("text", "content", "memory", "transcript"):
        if isinstance(value.get(key), str):
            return str(value[key])
    return json.dumps(value, sort_keys=True)


def _under(prefix: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    """SQL matching the namespaces that start with ``prefix`` label by label: exact and
    case-sensitive, whatever the labels hold (a range, not a pattern)."""
    if not prefix:
        return "1 = 1", ()
    ns = _ns(prefix)
    return "(namespace = ? OR (namespace > ? AND namespace < ?))", (ns, ns + _SEP, ns + _AFTER)


class VoxmemStore(BaseStore):
    """LangGraph store whose items live in one tenant's audio memory."""

    supports_ttl = False

    def __init__(self, memory: AudioMemory, tenant: str) -> None:
        self.memory = memory
        self.tenant = check_tenant(tenant)

    # -- the two methods LangGraph asks for ------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _one(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise TypeError(f"unknown store operation {type(op).__name__}")

    # -- operations ----------------------------------------------------------------------------

    def _get(self, op: GetOp) -> Item | None:
        if tuple(op.namespace) == SEGMENTS:
            try:
                return self._segment_item(self.memory.get(self.tenant, op.key, vectors=False))
            except KeyError:
                return None
        row = (
            self.memory.catalog.read()
            .execute(
                "SELECT * FROM items WHERE tenant = ? AND namespace = ? AND key = ?",
                (self.tenant, _ns(op.namespace), op.key),
            )
            .fetchone()
        )
        return None if row is None else self._item(row)

    def _put(self, op: PutOp) -> None:
        if tuple(op.namespace[:2]) == SEGMENTS:
            raise ValueError(
                "('voxmem', 'segments') is read-only: ingest audio through "
                "AudioMemory to add turns, forget them with AudioMemory.forget"
            )
        ns = _ns(op.namespace)
        if op.value is None:
            self._delete(ns, op.key)
            return
        text = "" if op.index is False else _text(op.value, op.index)
        vector = self.memory.perception.text.passages([text])[0] if text else None
        now = time.time()
        with self.memory.catalog.write() as tx:
            tx.execute(
                "INSERT OR IGNORE INTO tenants (id, created_at) VALUES (?, ?)", (self.tenant, now)
            )
            tx.execute(
                "INSERT INTO items (tenant, namespace, key, value, vector, created_at, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, namespace, key) "
                "DO UPDATE SET value = excluded.value, vector = excluded.vector, "
                "updated_at = excluded.updated_at",
                (
                    self.tenant,
                    ns,
                    op.key,
                    json.dumps(op.value),
                    None if vector is None else np.asarray(vector, np.float32).tobytes(),
                    now,
                    now,
                ),
            )
        item_id = f"{ns}{_SEP}{op.key}"
        if vector is None:
            self.memory.index.delete(self.tenant, ITEMS_SPACE, [item_id])
        else:
            self.memory.index.upsert(
                self.tenant, ITEMS_SPACE, [item_id], [vector], [{"namespace": ns}]
            )

    def _delete(self, ns: str, key: str) -> None:
        """Erase an item: its row (overwritten in place), and, when it had a vector, the
        vector's bytes in the index files too. The tenant's item collection is rebuilt
        from the catalog under the catalog's write lock, so that no concurrent delete
        brings the vector back."""
        with self.memory.catalog.write() as tx:
            row = tx.execute(
                "DELETE FROM items WHERE tenant = ? AND namespace = ? AND key = ? RETURNING vector",
                (self.tenant, ns, key),
            ).fetchone()
            if row is not None and row["vector"] is not None:
                self._reindex_items(tx)
        if row is not None:
            self.memory.catalog.scrub()

    def _reindex_items(self, conn: Any) -> None:
        index = self.memory.index
        index.drop(self.tenant, ITEMS_SPACE)
        rows = conn.execute(
            "SELECT namespace, key, vector FROM items WHERE tenant = ? AND vector IS NOT NULL",
            (self.tenant,),
        ).fetchall()
        if rows:
            index.upsert(
                self.tenant,
                ITEMS_SPACE,
                [f"{r['namespace']}{_SEP}{r['key']}" for r in rows],
                [np.frombuffer(r["vector"], np.float32) for r in rows],
                [{"namespace": r["namespace"]} for r in rows],
            )
        index.compact()  # the dropped collection's files and freed pages

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        if prefix[:2] == SEGMENTS or prefix == ("voxmem",):
            return self._search_segments(op)
        want = op.offset + op.limit
        ranked: list[tuple[Any, float | None]] = []
        if op.query:
            ranked += self._ranked(prefix, op.query, op.filter, want)
        # without a query, and after the scored items: most recently written first
        if len(ranked) < want:
            rest = self._rows(prefix, "vector IS NULL" if op.query else "1 = 1", op.filter)
            ranked += [(r, None) for r in islice(rest, want - len(ranked))]
        return [self._search_item(r, s) for r, s in ranked[op.offset : want]]

    def _rows(self, prefix: Sequence[str], extra: str, conditions: Any) -> Iterator[Any]:
        """The tenant's items under ``prefix`` that pass ``conditions``, newest first."""
        under, args = _under(prefix)
        cursor = self.memory.catalog.read().execute(
            f"SELECT * FROM items WHERE tenant = ? AND {under} AND {extra} "
            "ORDER BY updated_at DESC, rowid DESC",
            (self.tenant, *args),
        )
        return (r for r in cursor if _matches(json.loads(r["value"]), conditions))

    def _ranked(
        self, prefix: Sequence[str], query: str, conditions: Any, want: int
    ) -> list[tuple[Any, float]]:
        """The ``want`` items nearest to ``query`` that pass ``conditions``, by the index:
        asked for more neighbours while the conditions leave too few."""
        under, args = _under(prefix)
        conn = self.memory.catalog.read()
        spaces = [
            r[0]
            for r in conn.execute(
                f"SELECT DISTINCT namespace FROM items WHERE tenant = ? AND {under} "
                "AND vector IS NOT NULL",
                (self.tenant, *args),
            )
        ]
        total = conn.execute(
            f"SELECT COUNT(*) FROM items WHERE tenant = ? AND {under} AND vector IS NOT NULL",
            (self.tenant, *args),
        ).fetchone()[0]
        if not total:
            return []
        vector = self.memory.embed_query(query)
        where = {"namespace": {"$in": spaces}} if prefix else None
        k = want
        while True:
            k = min(k, total)
            hits = self.memory.index.query(
                self.tenant, ITEMS_SPACE, vector, k, where, metadata=True
            )
            rows = self._rows_at([(h.metadata.get("namespace", ""), h.id) for h in hits])
            ranked = [
                (rows[h.id], h.score)
                for h in hits
                if h.id in rows and _matches(json.loads(rows[h.id]["value"]), conditions)
            ]
            if len(ranked) >= want or k >= total:
                return ranked
            k *= 4

    def _rows_at(self, places: Sequence[tuple[str, str]]) -> dict[str, Any]:
        """Catalog rows by index id (the index may briefly hold what the catalog dropped)."""
        pairs = [(ns, item_id[len(ns) + 1 :]) for ns, item_id in places]
        if not pairs:
            return {}
        values = ",".join("(?, ?)" for _ in pairs)
        rows = self.memory.catalog.read().execute(
            f"SELECT * FROM items WHERE tenant = ? AND (namespace, key) IN (VALUES {values})",
            (self.tenant, *(x for pair in pairs for x in pair)),
        )
        return {f"{r['namespace']}{_SEP}{r['key']}": r for r in rows}

    def _search_segments(self, op: SearchOp) -> list[SearchItem]:
        if self.tenant not in self.memory.tenants():
            return []
        want = op.offset + op.limit
        found: list[SearchItem] = []
        if op.query:
            vector = self.memory.embed_query(op.query)
            k = want
            while True:
                hits = self.memory.search(self.tenant, "text", vector, k)
                found = [
                    self._segment_search_item(h.segment, h.score)
                    for h in hits
                    if _matches(self._segment_value(h.segment), op.filter)
                ]
                if len(found) >= want or len(hits) < k:
                    break
                k *= 4
        else:
            page, offset = 500, 0
            while len(found) < want:
                segs = self.memory.list(self.tenant, limit=page, offset=offset)
                found += [
                    self._segment_search_item(s, None)
                    for s in segs
                    if _matches(self._segment_value(s), op.filter)
                ]
                if len(segs) < page:
                    break
                offset += page
        return found[op.offset : want]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        rows = (
            self.memory.catalog.read()
            .execute("SELECT DISTINCT namespace FROM items WHERE tenant = ?", (self.tenant,))
            .fetchall()
        )
        spaces = {tuple(r["namespace"].split(_SEP)) for r in rows} | {SEGMENTS}
        kept = [ns for ns in spaces if all(_condition(ns, c) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            kept = [ns[: op.max_depth] for ns in kept]
        return sorted(set(kept))[op.offset : op.offset + op.limit]

    # -- conversions --------------------------------------------------------------------------

    def _item(self, row: Any) -> Item:
        return Item(
            value=json.loads(row["value"]),
            key=row["key"],
            namespace=tuple(row["namespace"].split(_SEP)),
            created_at=_when(row["created_at"]),
            updated_at=_when(row["updated_at"]),
        )

    def _search_item(self, row: Any, score: float | None) -> SearchItem:
        return SearchItem(
            namespace=tuple(row["namespace"].split(_SEP)),
            key=row["key"],
            value=json.loads(row["value"]),
            created_at=_when(row["created_at"]),
            updated_at=_when(row["updated_at"]),
            score=score,
        )

    @staticmethod
    def _segment_value(seg: Any) -> dict[str, Any]:
        return {
            "transcript": seg.transcript,
            "speaker": seg.speaker_id,
            "session": seg.session,
            "role": seg.role,
            "start": seg.start,
            "end": seg.end,
            "style": seg.style_labels,
            "environment": seg.environment_labels,
        }

    def _segment_item(self, seg: Any) -> Item:
        return Item(
            value=self._segment_value(seg),
            key=seg.id,
            namespace=SEGMENTS,
            created_at=_when(seg.created_at),
            updated_at=_when(seg.created_at),
        )

    def _segment_search_item(self, seg: Any, score: float | None) -> SearchItem:
        return SearchItem(
            namespace=SEGMENTS,
            key=seg.id,
            value=self._segment_value(seg),
            created_at=_when(seg.created_at),
            updated_at=_when(seg.created_at),
            score=score,
        )


def _matches(value: Mapping[str, Any], conditions: Mapping[str, Any] | None) -> bool:
    """LangGraph's filter: keys of the value compared with values, nested mappings
    compared key by key, and ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``."""
    return all(_compare(value.get(k), v) for k, v in (conditions or {}).items())


def _compare(actual: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping):
        if any(str(k).startswith("$") for k in wanted):
            return all(_operator(actual, k, v) for k, v in wanted.items())
        return isinstance(actual, Mapping) and all(
            _compare(actual.get(k), v) for k, v in wanted.items()
        )
    if isinstance(wanted, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(wanted)
            and all(_compare(a, w) for a, w in zip(actual, wanted, strict=True))
        )
    return bool(actual == wanted)


def _operator(actual: Any, op: str, wanted: Any) -> bool:
    if op == "$eq":
        return bool(actual == wanted)
    if op == "$ne":
        return bool(actual != wanted)
    if op not in _ORDER:
        raise ValueError(
            f"unknown filter operator {op!r}: use $eq, $ne, $gt, $gte, $lt or $lte "
            "(and no plain keys beside them)"
        )
    if isinstance(wanted, bool) or not isinstance(wanted, int | float):
        raise ValueError(f"{op} compares numbers: got {wanted!r}; pass a number")
    try:
        return _ORDER[op](float(actual), float(wanted))
    except (TypeError, ValueError):  # a missing key or a value that is not a number
        return False


def _condition(ns: tuple[str, ...], cond: MatchCondition) -> bool:
    path = tuple(cond.path)
    if len(path) > len(ns):
        return False
    part = ns[: len(path)] if cond.match_type == "prefix" else ns[len(ns) - len(path) :]
    return all(p in ("*", n) for p, n in zip(path, part, strict=True))
