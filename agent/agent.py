"""``VoiceAgent``: the spoken dialogue agent whose memory is made of sound.

    from voxmem.agent import VoiceAgent

    async with VoiceAgent.open("/var/lib/voxmem") as agent:
        result = await agent.turn("acme", "monday", audio="question.wav")
        print(result.transcript, result.reply, result.timings)
        async for event in agent.stream("acme", "monday", text="what did Dana say?"):
            ...  # Heard, Recalled, TextDelta, AudioChunk, TurnDone

One turn is one run of the LangGraph graph (``voxmem.agent.graph``), checkpointed
per (tenant, session) in SQLite, so a session resumes after a restart. Models load
once per agent and are shared by every session; turns of one session run one at a
time, turns of different sessions concurrently.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from voxmem.agent.events import (
    AgentEvent,
    Heard,
    TurnControl,
    TurnDone,
    TurnResult,
)
from voxmem.agent.graph import TurnContext, build_graph, load_turn_audio
from voxmem.agent.listen import Listener
from voxmem.agent.remember import MemoryWriter, MetaLedger, WriteJob
from voxmem.agent.respond import RecalledTurn, Responder
from voxmem.agent.respond import responder as make_responder
from voxmem.agent.route import Router
from voxmem.agent.speak import OUTPUT_RATE, Synthesizer, synthesizer
from voxmem.audio import Audio, AudioSource, load_audio
from voxmem.memory.encoders.asr import Transcript
from voxmem.memory.perception import PerceivedTurn
from voxmem.memory.records import UnknownTenant, Word, check_tenant
from voxmem.memory.store import AudioMemory
from voxmem.retrievers.instruction import InstructionParser
from voxmem.retrievers.recall import RetrievedTurn
from voxmem.settings import Settings

#: the advisory lock the checkpoint tables' migrations run under ("vxm2"; the catalog's
#: schema lock is "vxm0", ``memory.catalog_pg.SCHEMA_LOCK``)
CHECKPOINT_SCHEMA_LOCK = 0x76786D32
#: how long a process waits for another's checkpoint migrations before it gives up
CHECKPOINT_SETUP_WAIT_S = 120.0


class PerceptionGate:
    """One model user at a time, and the reply path first: a live turn's perception
    (``urgent``) never queues behind the writer's embedding of an earlier reply
    (``background``), which waits while any urgent work is running or waiting."""

    def __init__(self, patience_s: float = 10.0) -> None:
        self._lock = threading.Lock()
        self._cond = threading.Condition()
        self._urgent = 0
        self.patience_s = patience_s

    @contextmanager
    def urgent(self) -> Iterator[None]:
        with self._cond:
            self._urgent += 1
        try:
            with self._lock:
                yield
        finally:
            with self._cond:
                self._urgent -= 1
                self._cond.notify_all()

    @contextmanager
    def background(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: self._urgent == 0, timeout=self.patience_s)
        with self._lock:
            yield


class VoiceAgent:
    """Hears a turn, recalls who said what, answers in its own voice, and remembers."""

    def __init__(
        self,
        memory: AudioMemory,
        *,
        settings: Settings | None = None,
        responder: Responder | None = None,
        synthesizer_: Synthesizer | None = None,
        router: Router | None = None,
    ) -> None:
        self.memory = memory
        self.settings = settings or memory.settings
        self.name = self.settings.agent.name
        self.router = router or Router(
            InstructionParser(planner=self.settings.planner), agent_name=self.name
        )
        self._responder = responder
        self._synthesizer = synthesizer_
        self.writer = MemoryWriter()
        self._perception = PerceptionGate()
        self._session_locks: dict[tuple[str, str], asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._graph: Any = None
        self._saver: Any = None
        self._conn: Any = None
        self._agent_voice: dict[str, str] = {}
        self._instructions: dict[tuple[str, str], str | None] = {}
        self._ledger = MetaLedger(self.settings.data_dir / "agent" / "meta.sqlite3")
        self._start_lock = asyncio.Lock()
        #: each tenant's latest queued user-turn write (what the next recall must see)
        self._last_user_job: dict[str, WriteJob] = {}

    @classmethod
    def open(
        cls,
        data_dir: str | os.PathLike[str] | None = None,
        *,
        settings: Settings | None = None,
        **kwargs: Any,
    ) -> VoiceAgent:
        """An agent over the memory in ``data_dir`` (default: the settings' data dir)."""
        memory = AudioMemory.open(data_dir, settings=settings)
        return cls(memory, settings=memory.settings, **kwargs)

    # -- parts, loaded on first use --------------------------------------------------

    @property
    def responder(self) -> Responder:
        if self._responder is None:
            self._responder = make_responder(self.settings)
        return self._responder

    @property
    def synthesizer(self) -> Synthesizer:
        if self._synthesizer is None:
            self._synthesizer = synthesizer(self.settings)
        return self._synthesizer

    def warm_up(self) -> None:
        """Load every model now rather than on the first turn."""
        p = self.memory.perception
        silence = Audio(np.zeros(16_000, np.float32))
        p.text.queries(["warm up"])
        # the planner's word encoder: loading it on a first turn stalls every session
        self.router.route("What did I say about the budget yesterday?")
        p.speaker.embed([silence])
        _ = self.synthesizer.synthesize("Hello.")
        self.perceive_audio(
            load_audio(self.synthesizer.synthesize("Hello there."), sample_rate=None)
        )

    # -- lifecycle --------------------------------------------------------------------

    async def start(self) -> VoiceAgent:
        """Open the session checkpoints and compile the graph (idempotent)."""
        async with self._start_lock:
            if self._graph is not None:
                return self
            if self.settings.catalog.backend == "postgresql":
                await self._open_postgres_checkpoints()
                await self._set_up_postgres_checkpoints()
            else:
                await self._open_sqlite_checkpoints()
                await self._saver.setup()
            self._graph = build_graph().compile(checkpointer=self._saver)
            return self

    async def _open_sqlite_checkpoints(self) -> None:
        import aiosqlite
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        path = self.settings.agent.checkpoints or (
            self.settings.data_dir / "agent" / "checkpoints.sqlite3"
        )
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = await aiosqlite.connect(str(path))
        # deleted checkpoints (a forget's scrub) are overwritten, not left in free pages
        await self._conn.execute("PRAGMA secure_delete = ON")
        self._saver = AsyncSqliteSaver(self._conn)

    async def _open_postgres_checkpoints(self) -> None:
        """Checkpoints in the catalog's PostgreSQL database, so that every voxmem
        process serving a tenant resumes the same sessions."""
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg.rows import dict_row
        from psycopg_pool import AsyncConnectionPool

        url = self.settings.catalog.url
        assert url is not None
        self._conn = AsyncConnectionPool(
            url.get_secret_value(),
            min_size=1,
            max_size=self.settings.catalog.pool_size,
            kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
            open=False,
        )
        await self._conn.open(wait=True)
        self._saver = AsyncPostgresSaver(self._conn)

    async def _set_up_postgres_checkpoints(self) -> None:
        """The checkpoint tables' migrations, one process at a time: processes started
        together (replicas of one deployment) would otherwise run the same migration at
        once, and all but one stop on its duplicate key. The lock is a session-level
        advisory lock on a connection of its own (the saver's migrations take the
        pool's), released when the connection closes whatever happens. It is tried,
        not waited for: a process waiting inside ``pg_advisory_lock`` holds a running
        statement, which the migrations' ``CREATE INDEX CONCURRENTLY`` waits for in
        turn (a deadlock no timeout of the server's ends)."""
        import psycopg

        url = self.settings.catalog.url
        assert url is not None
        async with await psycopg.AsyncConnection.connect(
            url.get_secret_value(), autocommit=True
        ) as lock:
            waited = 0.0
            while not (
                await (
                    await lock.execute("SELECT pg_try_advisory_lock(%s)", (CHECKPOINT_SCHEMA_LOCK,))
                ).fetchone()
            )[0]:
                if waited > CHECKPOINT_SETUP_WAIT_S:
                    raise TimeoutError(
                        f"another process has been setting up the dialogue checkpoint "
                        f"tables for {CHECKPOINT_SETUP_WAIT_S:.0f} s; if none is, end the "
                        "session holding advisory lock "
                        f"{CHECKPOINT_SCHEMA_LOCK} (pg_locks) and start again"
                    )
                await asyncio.sleep(0.1)
                waited += 0.1
            await self._saver.setup()
            await self._postgres_without_statistics()

    async def _postgres_without_statistics(self) -> None:
        """No planner statistics on the checkpoint tables' columns: ANALYZE would copy
        sample values of the dialogue into ``pg_statistic``, out of a forget's reach (the
        catalog's tables are kept the same way, ``catalog_pg.no_statistics``)."""
        tables = ["checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations"]
        async with self._conn.connection() as conn:
            cur = await conn.execute(
                "SELECT c.table_name, c.column_name FROM information_schema.columns c "
                "JOIN pg_attribute a ON a.attrelid = quote_ident(c.table_name)::regclass "
                "AND a.attname = c.column_name WHERE c.table_schema = current_schema() "
                "AND c.table_name = ANY(%s) AND a.attstattarget IS DISTINCT FROM 0",
                (tables,),
            )
            for r in await cur.fetchall():
                await conn.execute(
                    f'ALTER TABLE "{r["table_name"]}" ALTER COLUMN "{r["column_name"]}" '
                    "SET STATISTICS 0"
                )

    async def _erase_deleted_checkpoints(self) -> None:
        """Deleted checkpoint rows leave no bytes behind in the database files:
        SQLite overwrites them (secure_delete) and truncates its WAL; PostgreSQL
        rewrites the checkpoint tables without them (VACUUM FULL)."""
        if self.settings.catalog.backend == "postgresql":
            async with self._conn.connection() as conn:
                for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes"):
                    await conn.execute(f"VACUUM FULL {table}")
        else:
            await self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    async def __aenter__(self) -> VoiceAgent:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Finish queued memory writes, then close the checkpoints and the memory."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await asyncio.to_thread(self.writer.close, self.settings.agent.flush_timeout_s)
        if self._conn is not None:
            await self._conn.close()
            self._conn = None
        self._graph = None
        self._ledger.close()
        self.memory.close()

    def flush(self, tenant: str | None = None, timeout: float | None = None) -> bool:
        """Wait for queued memory writes (of ``tenant``); False on timeout."""
        return self.writer.flush(tenant, timeout)

    def track(self, task: asyncio.Task[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- one turn --------------------------------------------------------------------

    async def stream(
        self,
        tenant: str,
        session: str,
        *,
        audio: AudioSource | Audio | Listener | None = None,
        text: str | None = None,
        sample_rate: int | None = None,
        control: TurnControl | None = None,
    ) -> AsyncIterator[AgentEvent]:
        """Run one turn, yielding events as they happen; the last is ``TurnDone``.

        Give ``audio`` (any format ``voxmem.audio`` reads; raw arrays need
        ``sample_rate``) or ``text``. Bad audio does not raise: the turn answers with
        what was wrong and stores nothing. Drain the stream to the end even after
        ``control.cancel()``: the turn still remembers what was heard and played."""
        tenant = check_tenant(tenant)
        if not isinstance(session, str) or not session.strip():
            raise ValueError("a turn names its session (a conversation id): pass session='...'")
        if (audio is None) == (text is None):
            raise ValueError("a turn is audio or text: pass exactly one of audio= or text=")
        await self.start()
        control = control or TurnControl()
        began = time.perf_counter()
        clip: Audio | None = None
        problem: str | None = None
        listener = audio if isinstance(audio, Listener) else None
        if listener is not None:
            if listener.seconds > self.settings.agent.max_turn_seconds:
                problem = (
                    f"I couldn't use that audio: the turn is {listener.seconds:.0f} s long; the "
                    f"agent takes turns up to {self.settings.agent.max_turn_seconds:.0f} s"
                )
        elif audio is not None:
            try:
                clip = await asyncio.to_thread(
                    load_turn_audio, audio, sample_rate, self.settings.agent.max_turn_seconds
                )
            except ValueError as exc:  # InvalidAudio is a ValueError
                problem = f"I couldn't use that audio: {exc}"
        lock = self._session_locks.setdefault((tenant, session), asyncio.Lock())
        async with lock:
            config = {"configurable": {"thread_id": f"{tenant}/{session}"}}
            previous = await self._graph.aget_state(config)
            turn_no = int((previous.values or {}).get("turn", 0)) + 1
            context = TurnContext(self, clip, control, began)
            context.listener = listener if problem is None else None
            context.barrier = self._last_user_job.get(tenant)
            inputs: dict[str, Any] = {
                "tenant": tenant,
                "session": session,
                "turn": turn_no,
                "input_text": text,
                "transcript": "",
                "heard": {},
                "route": {},
                "hits": [],
                "reply": "",
                "replayed": [],
                "timings": {},
                "notes": [],
                "interrupted": False,
            }
            if problem is not None:
                inputs["input_text"] = ""
                context.problem = problem
            final: dict[str, Any] = {}
            heard: Heard | None = None
            try:
                async for mode, chunk in self._graph.astream(
                    inputs, config, context=context, stream_mode=["custom", "values"]
                ):
                    if mode == "custom":
                        if isinstance(chunk, Heard):
                            heard = chunk
                        yield chunk
                    else:
                        final = chunk
            finally:
                route = context.route
                if (
                    not context.remembered
                    and context.perceived
                    and (route is None or route.intent not in ("forget", "confirm", "deny"))
                ):
                    # the caller stopped listening before the turn was remembered: what
                    # was heard is kept all the same
                    # a tentative route not yet answered from the memory is a chat turn
                    meta = route is not None and route.needs_memory and not route.tentative
                    self.remember_user(tenant, session, turn_no, context.perceived, None, meta)
            if context.erased:
                final = await self._scrub(config, final, context.erased)
            result = self._result(final, context, heard)
        yield TurnDone(result)

    async def turn(
        self,
        tenant: str,
        session: str,
        *,
        audio: AudioSource | Audio | Listener | None = None,
        text: str | None = None,
        sample_rate: int | None = None,
        control: TurnControl | None = None,
    ) -> TurnResult:
        """Run one turn to the end and return what it did."""
        result: TurnResult | None = None
        async for event in self.stream(
            tenant, session, audio=audio, text=text, sample_rate=sample_rate, control=control
        ):
            if isinstance(event, TurnDone):
                result = event.result
        assert result is not None
        return result

    async def observe(
        self,
        tenant: str,
        session: str,
        *,
        audio: AudioSource | Audio | None = None,
        text: str | None = None,
        role: str = "user",
        sample_rate: int | None = None,
    ) -> Heard | None:
        """Take in a turn without answering it: a user's ``audio`` is perceived and
        remembered exactly as in a live turn; an agent's ``text`` is spoken in the
        agent's voice and remembered as its turn. Both join the session's dialogue.
        This is how a past conversation (a benchmark's history) enters the agent."""
        tenant = check_tenant(tenant)
        await self.start()
        lock = self._session_locks.setdefault((tenant, session), asyncio.Lock())
        config = {"configurable": {"thread_id": f"{tenant}/{session}"}}
        async with lock:
            snap = await self._graph.aget_state(config)
            turn_no = int((snap.values or {}).get("turn", 0)) + 1
            entry: dict[str, Any]
            heard: Heard | None = None
            if role == "agent":
                if not text:
                    raise ValueError("an agent turn to observe is text: pass text='...'")
                from voxmem.agent.speak import speakable, split_sentences, to_pcm16

                sentences, _ = split_sentences(text, final=True)
                pcm = b"".join(
                    [
                        to_pcm16(await asyncio.to_thread(self.synthesizer.synthesize, speakable(s)))
                        for s in sentences
                        if speakable(s)
                    ]
                )
                if pcm:
                    history = (snap.values or {}).get("dialogue") or []
                    last = history[-1] if history else None
                    asked = last["text"] if last and last.get("role") == "user" else None
                    self.remember_agent(tenant, session, turn_no, pcm, text, replying_to=asked)
                entry = {"role": "agent", "speaker": self.name, "text": text}
            elif role == "user" and audio is None:
                if not text:
                    raise ValueError("a user turn to observe is audio or text")
                # typed words join the dialogue; the memory keeps only what was heard
                entry = {"role": "user", "speaker": None, "text": text}
            elif role == "user":
                clip = await asyncio.to_thread(
                    load_turn_audio, audio, sample_rate, self.settings.agent.max_turn_seconds
                )
                turns = [
                    t
                    for t in await asyncio.to_thread(self.perceive_audio, clip, tenant)
                    if t.transcript.strip()
                ]
                transcript = " ".join(t.transcript.strip() for t in turns)
                if turns:
                    self.remember_user(tenant, session, turn_no, turns, None)
                heard = Heard(
                    transcript,
                    None,
                    None,
                    spans=[(float(t.start), float(t.end)) for t in turns],
                    problem=None if turns else "no speech",
                )
                entry = {"role": "user", "speaker": None, "text": transcript}
            else:
                raise ValueError(f"role must be user or agent, got {role!r}")
            entry.update({"turn": turn_no, "at": time.time()})
            await self._graph.aupdate_state(
                config,
                {"tenant": tenant, "session": session, "turn": turn_no, "dialogue": [entry]},
                as_node="remember",
            )
        return heard

    async def _scrub(
        self, config: dict[str, Any], final: dict[str, Any], erased: Sequence[str]
    ) -> dict[str, Any]:
        """After a confirmed forget: rewrite the session's checkpoints without the erased
        words (LangGraph keeps every step's state), so they live nowhere but in what the
        user still hears."""
        needles = [t.strip().lower() for t in erased if t.strip()]
        dialogue = [
            h
            for h in final.get("dialogue", [])
            if not any(n in str(h.get("text", "")).lower() for n in needles)
            and not str(h.get("text", "")).startswith("I found ")
        ]
        kept = {
            k: v
            for k, v in final.items()
            if k not in ("dialogue", "hits", "transcript", "reply", "route")
        }
        kept.update({"dialogue": dialogue, "hits": [], "transcript": "", "reply": ""})
        await self._saver.adelete_thread(config["configurable"]["thread_id"])
        await self._graph.aupdate_state(config, kept, as_node="remember")
        await self._erase_deleted_checkpoints()
        return {**final, "dialogue": dialogue}

    async def dialogue(self, tenant: str, session: str) -> list[dict[str, Any]]:
        """The session's running dialogue, as the checkpoint holds it."""
        await self.start()
        snap = await self._graph.aget_state({"configurable": {"thread_id": f"{tenant}/{session}"}})
        return list((snap.values or {}).get("dialogue", []))

    def _result(self, final: dict[str, Any], ctx: TurnContext, heard: Heard | None) -> TurnResult:
        return TurnResult(
            tenant=final.get("tenant", ""),
            session=final.get("session", ""),
            turn=int(final.get("turn", 0)),
            transcript=final.get("transcript", ""),
            speaker_id=final.get("speaker_id"),
            speaker_name=final.get("speaker_name"),
            intent=final.get("route", {}).get("intent", "chat"),
            plan=final.get("route", {}).get("plan") or "",
            hits=list(ctx.hits),
            reply=final.get("reply", ""),
            audio=bytes(ctx.pcm) + (ctx.replay_pcm if final.get("replayed") else b""),
            replayed=list(final.get("replayed", [])),
            timings=dict(final.get("timings", {})),
            notes=list(final.get("notes", [])),
            interrupted=bool(final.get("interrupted")),
            heard=heard,
            route=dict(final.get("route", {})),
        )

    # -- what the nodes ask of the agent ------------------------------------------------

    def perceive_audio(self, audio: Audio, tenant: str | None = None) -> list[PerceivedTurn]:
        """VAD, diarization, ASR with word times and the four embeddings, once. The
        tenant's known names (and the agent's) go to the ASR as hot words, which
        spells them as given: "what did Marco say" is not written "Marcos"."""
        names = [*self.speaker_names(tenant), self.name] if tenant else [self.name]
        with self._perception.urgent():
            return self.memory.perception.perceive(audio, hotwords=", ".join(names))

    def meta_turns(self, tenant: str) -> set[str]:
        """Stored turns that asked the memory something, and the agent's answers."""
        return self._ledger.ids(tenant)

    def unanswered_replies(self, tenant: str) -> set[str]:
        """Stored replies to questions about someone's life that the memory held no
        answer to: no answer to a later asking of the same question."""
        return self._ledger.unanswered(tenant)

    def listener(self, tenant: str | None = None, sample_rate: int = 16_000) -> Listener:
        """A turn heard while it is spoken: ``feed`` it audio as it arrives, then pass it
        as ``audio=`` to :meth:`stream` or :meth:`turn` when the turn ends."""
        return Listener(self, tenant, sample_rate)

    def transcribe(self, audio: Audio, tenant: str | None = None) -> Transcript:
        """ASR alone, with the tenant's names as hot words (a listener's passes)."""
        names = [*self.speaker_names(tenant), self.name] if tenant else [self.name]
        with self._perception.urgent():
            return self.memory.perception.transcribe(audio, ", ".join(names))

    def embed_turn(self, clip: Audio, transcript: str, words: Sequence[Word]) -> PerceivedTurn:
        """The four embeddings and labels of a turn whose words are already known."""
        with self._perception.urgent():
            turn = self.memory.perception.perceive_segment(clip, transcript=transcript)
        turn.words = list(words)
        return turn

    def speaker_names(self, tenant: str) -> list[str]:
        try:
            return [n for n in self.memory.speaker_names(tenant) if n != self.name]
        except UnknownTenant:
            return []

    def session_times(self, tenant: str, session: str) -> list[float]:
        segs = self.memory.list(tenant, session=session, limit=10_000)
        return sorted({s.created_at for s in segs})

    def describe_hits(self, tenant: str, turns: Sequence[RetrievedTurn]) -> list[RecalledTurn]:
        names = {s.id: s.name for s in self.memory.speakers(tenant)} if turns else {}
        return [
            RecalledTurn(
                t.segment.id,
                t.segment.session,
                t.segment.speaker_id,
                names.get(t.segment.speaker_id or ""),
                t.segment.role,
                t.segment.transcript,
                float(t.segment.start),
                float(t.segment.end),
                float(t.segment.created_at),
                round(float(t.score), 4),
                {
                    a: {
                        "how": e.how,
                        "raw": round(float(e.raw), 4),
                        "z": round(float(e.z), 3),
                        "matched": bool(e.matched),
                    }
                    for a, e in t.evidence.items()
                },
            )
            for t in turns
        ]

    def replay_pcm(self, tenant: str, segment_id: str) -> bytes:
        """A stored turn's original audio as reply audio (PCM16, 24 kHz)."""
        from voxmem.agent.speak import to_pcm16

        return to_pcm16(self.memory.audio(tenant, segment_id), OUTPUT_RATE)

    async def erase(
        self, tenant: str, segment_ids: Sequence[str]
    ) -> tuple[int, list[str], str | None]:
        """Erase turns (and the stored answers that quoted them) through the memory's
        erasing ``forget``, in one erasure, in the write queue's order. Returns how many
        of ``segment_ids`` were erased, their transcripts, and what failed (None)."""
        ids = list(dict.fromkeys(segment_ids))

        def run() -> tuple[int, list[str]]:
            live = self.memory.get_many(tenant, ids, vectors=False)
            texts = [s.transcript for s in live if s.transcript.strip()]
            quoting = sorted(self._ledger.citing(tenant, [s.id for s in live]) - set(ids))
            n = self.memory.forget(tenant, segments=[s.id for s in live] + quoting)
            return min(n, len(live)), texts

        job = self.writer.submit(tenant, f"forget {len(ids)} turns", run)
        await self.writer.wait(job)
        if job.error is not None:
            return 0, [], f"{type(job.error).__name__}: {job.error}"
        erased, texts = job.result
        return erased, texts, None

    def memory_speakers(self, tenant: str) -> list[Any]:
        """The tenant's known voices ([] for a tenant with nothing stored)."""
        try:
            return self.memory.speakers(tenant)
        except UnknownTenant:
            return []

    def instructions(self, tenant: str, session: str) -> str | None:
        """Extra system instructions for LLM responders (a server's ``session.update``)."""
        return self._instructions.get((tenant, session))

    def set_instructions(self, tenant: str, session: str, text: str | None) -> None:
        self._instructions[(tenant, session)] = text

    def remember_user(
        self,
        tenant: str,
        session: str,
        turn: int,
        perceived: Sequence[PerceivedTurn],
        name: str | None,
        meta: bool = False,
    ) -> None:
        """Queue the user's turn (what perceive computed) and a self-introduction.
        ``meta``: the turn asks something of the memory (recall skips such turns)."""
        turns = list(perceived)

        def write() -> Any:
            stored = self.memory.add_perceived(
                turns, tenant=tenant, session=session, role="user", source=f"agent:{session}:{turn}"
            )
            if meta:
                self._ledger.add(tenant, [s.id for s in stored])
            if name and stored:
                main = max(stored, key=lambda s: s.duration)
                self._name_voice(tenant, main.speaker_id or "", name)
            return [s.id for s in stored]

        self._last_user_job[tenant] = self.writer.submit(
            tenant, f"user turn {turn} of {session}", write
        )

    def _name_voice(self, tenant: str, speaker_id: str, name: str) -> None:
        """Name a voice that has no name yet; a named voice or a name already taken is
        left for a person to decide (``voxmem speakers name / merge``)."""
        voice = next((s for s in self.memory.speakers(tenant) if s.id == speaker_id), None)
        taken = any(s.name == name and s.id != speaker_id for s in self.memory.speakers(tenant))
        if voice is not None and voice.name is None and not taken:
            self.memory.name_speaker(tenant, speaker_id, name)

    def remember_agent(
        self,
        tenant: str,
        session: str,
        turn: int,
        pcm: bytes,
        text: str,
        meta: bool = False,
        replying_to: str | None = None,
        cites: Sequence[str] = (),
        unanswered: bool = False,
    ) -> None:
        """Queue the agent's own turn: its audio (as spoken), text and role ``agent``.
        ``cites``: the recalled turns it quotes (erased with them). ``unanswered``: it
        replies to a question the memory held no answer to (a tentative route made chat),
        so a later asking of that question does not take it for the answer.

        A reply means what it answers: its text vector is taken over the user's words it
        replies to (``replying_to``) and its own, so "what did you tell me to bring
        camping?" finds "pack bug spray" said in answer to a camping question. The
        stored transcript is the reply alone."""
        samples = np.frombuffer(pcm, "<i2").astype(np.float32) / 32767.0

        def write() -> Any:
            clip = load_audio(samples, sample_rate=OUTPUT_RATE)
            speaker = self._agent_speaker(tenant)
            if not any(s.id == speaker for s in self.memory_speakers(tenant)):
                # the agent's voice was forgotten (forget --everything): enroll it again
                self._agent_voice.pop(tenant, None)
                speaker = self._agent_speaker(tenant)
            with self._perception.background():
                perceived = self.memory.perception.perceive_segment(clip, transcript=text)
                if replying_to and replying_to.strip():
                    both = f"{replying_to.strip()} {text}"
                    perceived.vectors["text"] = self.memory.perception.text.passages([both])[0]
            stored = self.memory.add_perceived(
                [perceived],
                tenant=tenant,
                session=session,
                role="agent",
                source=f"agent:{session}:{turn}:reply",
                speaker_id=speaker,
            )
            if meta:
                self._ledger.add(tenant, [s.id for s in stored], list(cites))
            if unanswered:
                self._ledger.add_unanswered(tenant, [s.id for s in stored])
            return [s.id for s in stored]

        self.writer.submit(tenant, f"agent turn {turn} of {session}", write)

    def _agent_speaker(self, tenant: str) -> str:
        """The agent's own voice, a known speaker named after the agent, enrolled once
        per tenant from a fixed sentence in its voice."""
        known = self._agent_voice.get(tenant)
        if known is not None:
            return known
        try:
            found = next((s for s in self.memory.speakers(tenant) if s.name == self.name), None)
        except UnknownTenant:
            found = None
        if found is None:
            clip = self.synthesizer.synthesize(
                f"Hello, I'm {self.name}. I remember what we say, and who said it."
            )
            with self._perception.background():
                found = self.memory.enroll_speaker(tenant, self.name, clip)
        self._agent_voice[tenant] = found.id
        return found.id


__all__ = ["VoiceAgent"]
