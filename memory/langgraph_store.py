"""A LangGraph ``BaseStore`` over the audio memory, bound to one tenant.

LangGraph and LangMem apps keep their memories as JSON items under namespaces;
this store keeps them in the same catalog (and, when they have text, the same
index) as the audio, so forgetting a tenant forgets both. The read-only
namespace ``("voxmem", "segments")`` exposes the spoken turns themselves:
``store.search(("voxmem", "segments"), query="the budget")`` returns turns by
meaning, with speaker, session, times and labels.

    store = VoxmemStore(AudioMemory.open("/data/mem"), tenant="acme")
    graph = builder.compile(store=store)
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import numpy as np
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from voxmem.memory.records import check_tenant
from voxmem.memory.store import AudioMemory

SEGMENTS = ("voxmem", "segments")
ITEMS_SPACE = "items"
_SEP = "\x1f"


def _ns(namespace: tuple[str, ...]) -> str:
    return _SEP.join(namespace)


def _when(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=UTC)


def _text(value: Mapping[str, Any], fields: list[str] | None) -> str:
    if fields:
        return " ".join(str(value[f]) for f in fields if f in value)
    for key in ("text", "content", "memory", "transcript"):
        if isinstance(value.get(key), str):
            return str(value[key])
    return json.dumps(value, sort_keys=True)


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
            with self.memory.catalog.write() as tx:
                tx.execute(
                    "DELETE FROM items WHERE tenant = ? AND namespace = ? AND key = ?",
                    (self.tenant, ns, op.key),
                )
            self.memory.index.delete(self.tenant, ITEMS_SPACE, [f"{ns}{_SEP}{op.key}"])
            self.memory.catalog.scrub()
            return
        vector = None
        if op.index is not False:
            fields = list(op.index) if isinstance(op.index, list) else None
            vector = self.memory.perception.text.passages([_text(op.value, fields)])[0]
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

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        if prefix[:2] == SEGMENTS or prefix in (("voxmem",),):
            return self._search_segments(op)
        rows = (
            self.memory.catalog.read()
            .execute(
                "SELECT * FROM items WHERE tenant = ? AND (namespace = ? OR namespace LIKE ?) "
                "ORDER BY updated_at DESC",
                (self.tenant, _ns(prefix), _ns(prefix) + _SEP + "%" if prefix else "%"),
            )
            .fetchall()
        )
        rows = [r for r in rows if _matches(json.loads(r["value"]), op.filter)]
        if op.query:
            q = self.memory.perception.text.queries([op.query])[0]
            scored = []
            for r in rows:
                score = (
                    float(np.frombuffer(r["vector"], np.float32) @ q)
                    if r["vector"] is not None
                    else None
                )
                scored.append((score, r))
            scored.sort(key=lambda sr: -(sr[0] if sr[0] is not None else -2.0))
        else:
            scored = [(None, r) for r in rows]
        page = scored[op.offset : op.offset + op.limit]
        return [self._search_item(r, s) for s, r in page]

    def _search_segments(self, op: SearchOp) -> list[SearchItem]:
        if self.tenant not in self.memory.tenants():
            return []
        where = dict(op.filter) if op.filter else None
        if op.query:
            hits = self.memory.search(
                self.tenant, "text", self.memory.embed_query(op.query), op.limit + op.offset, where
            )[op.offset :]
            return [self._segment_search_item(h.segment, h.score) for h in hits]
        segs = self.memory.list(self.tenant, limit=op.limit, offset=op.offset)
        return [self._segment_search_item(s, None) for s in segs]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        rows = (
            self.memory.catalog.read()
            .execute("SELECT DISTINCT namespace FROM items WHERE tenant = ?", (self.tenant,))
            .fetchall()
        )
        spaces = {tuple(r["namespace"].split(_SEP)) for r in rows} | {SEGMENTS}
        out = []
        for ns in sorted(spaces):
            if all(_condition(ns, c) for c in (op.match_conditions or ())):
                out.append(ns[: op.max_depth] if op.max_depth else ns)
        out = sorted(set(out))
        return out[op.offset : op.offset + op.limit]

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


def _matches(value: dict[str, Any], conditions: dict[str, Any] | None) -> bool:
    return all(value.get(k) == v for k, v in (conditions or {}).items())


def _condition(ns: tuple[str, ...], cond: Any) -> bool:
    path = tuple(cond.path)
    part = ns[: len(path)] if cond.match_type == "prefix" else ns[-len(path) :]
    return len(part) == len(path) and all(p in ("*", n) for p, n in zip(path, part, strict=True))
