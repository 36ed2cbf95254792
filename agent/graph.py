"""One turn of a voice conversation as a LangGraph graph.

    perceive -> route -> (recall) -> respond -> speak -> remember

The state (``AgentState``) is what the checkpointer keeps per session: the running
dialogue, the current speaker, a forget awaiting confirmation, and the last turn's
results (transcript, route, recalled turns, reply, timings). Audio, vectors and the
reply's text stream are per-turn and live in the run's context (``TurnContext``),
never in the checkpoint. Every node records its wall time in ``timings``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

import numpy as np
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from voxmem.agent.events import AudioChunk, Heard, Recalled, TextDelta, TurnControl
from voxmem.agent.listen import Listener
from voxmem.agent.remember import WriteJob
from voxmem.agent.respond import (
    ExtractiveResponder,
    Prompt,
    RecalledTurn,
    attribution,
    when,
)
from voxmem.agent.route import Route, memory_holds, resolve_time
from voxmem.agent.speak import OUTPUT_RATE, chunks, speakable, split_sentences, to_pcm16
from voxmem.audio import Audio, load_audio
from voxmem.errors import InvalidAudio, SynthesisError
from voxmem.memory.perception import PerceivedTurn
from voxmem.memory.records import UnknownTenant
from voxmem.retrievers.plan import Constraint
from voxmem.retrievers.recall import FusionParams, Reference, recall

if TYPE_CHECKING:
    from voxmem.agent.agent import VoiceAgent

#: dialogue entries kept in a session's checkpoint
DIALOGUE_KEEP = 200
#: most turns one forget request offers to erase
FORGET_MAX = 200
#: how many recalled turns a tentative route (a question no rule of the past matched)
#: searches for statements that hold its words before it answers as chat
TENTATIVE_CANDIDATES = 10
#: room a recall makes among its candidates for turns it skips (requests to the memory
#: and the agent's answers to them); with more skipped turns than this, it searches
#: again with room for all of them only when too few turns are left
META_ROOM = 50
#: a turn offered for erasure matches the content at least this share of the best match
FORGET_CONTENT_SHARE = 0.8


def _recent(old: list[dict[str, Any]] | None, new: list[dict[str, Any]] | None) -> list[Any]:
    return ((old or []) + (new or []))[-DIALOGUE_KEEP:]


class AgentState(TypedDict, total=False):
    tenant: str
    session: str
    turn: int
    dialogue: Annotated[list[dict[str, Any]], _recent]
    speaker_id: str | None
    speaker_name: str | None
    greeted: list[str]
    pending_forget: list[str]
    # this turn
    input_text: str | None
    transcript: str
    heard: dict[str, Any]
    route: dict[str, Any]
    hits: list[dict[str, Any]]
    reply: str
    replayed: list[str]
    timings: dict[str, float]
    notes: list[str]
    interrupted: bool


@dataclass
class TurnContext:
    """Per-turn objects that never enter the checkpoint."""

    agent: VoiceAgent
    audio: Audio | None
    control: TurnControl
    began: float
    #: why the turn's audio could not be used (it never reached perceive)
    problem: str | None = None
    #: a turn heard while it was spoken (most of its ASR already done)
    listener: Listener | None = None
    perceived: list[PerceivedTurn] = field(default_factory=list)
    voice: np.ndarray | None = None
    route: Route | None = None
    hits: list[RecalledTurn] = field(default_factory=list)
    text: asyncio.Queue[str | None] | None = None
    pcm: bytearray = field(default_factory=bytearray)
    #: (byte offset in pcm, sentence) for every sentence spoken
    sentences: list[tuple[int, str]] = field(default_factory=list)
    replay_pcm: bytes = b""
    notes: list[str] = field(default_factory=list)
    #: the writes this turn's recall must see (the tenant's user turns queued before it)
    barrier: WriteJob | None = None
    #: what the agent answers without a model (an action, or why it cannot look)
    action: str | None = None
    #: transcripts erased by a confirmed forget (scrubbed from the checkpoints too)
    erased: list[str] = field(default_factory=list)
    #: the remember node ran (else the agent stores the heard turn itself)
    remembered: bool = False
    #: a self-introduction that names this voice when its turn is stored
    name_voice: str | None = None
    #: a question about someone's life the memory held no answer to (made chat)
    unanswered: bool = False
    #: a question about someone's life answered by a statement that holds only some of
    #: its words
    partial: bool = False


def _since(ctx: TurnContext) -> float:
    return round(time.perf_counter() - ctx.began, 4)


def _emit(event: Any) -> None:
    with contextlib.suppress(RuntimeError):  # not streaming (plain invoke)
        get_stream_writer()(event)


# -- perceive ------------------------------------------------------------------------


async def perceive(state: AgentState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    ctx, agent = runtime.context, runtime.context.agent
    t0 = time.perf_counter()
    tenant = state["tenant"]
    speaker_id, speaker_name = state.get("speaker_id"), state.get("speaker_name")
    problem = ctx.problem
    transcript = state.get("input_text") or ""
    style: dict[str, float] = {}
    environment: dict[str, float] = {}
    if ctx.listener is not None:
        ctx.audio = ctx.listener.audio()
    if ctx.audio is None and problem is None:
        # typed words carry no voice, not even the voice that spoke last in the session
        speaker_id, speaker_name = None, None
    if ctx.audio is not None:
        try:
            if ctx.listener is not None:
                turns = await ctx.listener.finish()
            else:
                turns = await asyncio.to_thread(agent.perceive_audio, ctx.audio, tenant)
        except (InvalidAudio, RuntimeError) as exc:
            turns, problem = [], f"I couldn't use that audio: {exc}"
        turns = [t for t in turns if t.transcript.strip()]
        if not turns and problem is None:
            problem = "I didn't hear any speech in that. Could you say it again?"
        ctx.perceived = turns
        transcript = " ".join(t.transcript.strip() for t in turns)
        if turns:
            main = max(turns, key=lambda t: t.end - t.start)
            ctx.voice = main.vectors["speaker"]
            style = {k: float(v) for k, v in main.style_labels.items()}
            environment = {k: float(v) for k, v in main.environment_labels.items()}
            known = await asyncio.to_thread(agent.memory.identify_speaker, tenant, ctx.voice)
            if known is not None and known.name != agent.name:
                speaker_id, speaker_name = known.id, known.name
            else:
                speaker_id, speaker_name = None, None
    if problem:
        ctx.notes.append(problem)
    heard = Heard(
        transcript,
        speaker_id,
        speaker_name,
        style,
        environment,
        [(round(float(t.start), 3), round(float(t.end), 3)) for t in ctx.perceived],
        problem,
    )
    _emit(heard)
    return {
        "transcript": transcript,
        "speaker_id": speaker_id,
        "speaker_name": speaker_name,
        "heard": {
            "speaker_id": speaker_id,
            "speaker_name": speaker_name,
            "style": style,
            "environment": environment,
            "spans": heard.spans,
            "problem": problem,
        },
        "timings": {"perceive": round(time.perf_counter() - t0, 4)},
    }


# -- route -----------------------------------------------------------------------------


async def route(state: AgentState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    ctx, agent = runtime.context, runtime.context.agent
    t0 = time.perf_counter()
    if state.get("heard", {}).get("problem"):
        r = Route("chat", why="nothing heard")
    else:
        names = await asyncio.to_thread(agent.speaker_names, state["tenant"])
        # off the event loop: a question runs the planner (tens of milliseconds)
        r = await asyncio.to_thread(
            agent.router.route,
            state.get("transcript", ""),
            names,
            bool(state.get("pending_forget")),
        )
    ctx.route = r
    return {
        "route": {
            "intent": r.intent,
            "needs_memory": r.needs_memory,
            "speaker": r.speaker,
            "time": r.time,
            "name": r.name,
            "introduces": r.introduces,
            "plan": r.plan.describe() if r.plan else None,
            "why": r.why,
            "tentative": r.tentative,
        },
        "timings": {**state.get("timings", {}), "route": round(time.perf_counter() - t0, 4)},
    }


def after_route(state: AgentState) -> str:
    return "recall" if state.get("route", {}).get("needs_memory") else "respond"


# -- recall ----------------------------------------------------------------------------


async def recall_node(state: AgentState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    ctx, agent = runtime.context, runtime.context.agent
    t0 = time.perf_counter()
    r = ctx.route
    assert r is not None and r.plan is not None
    tenant, session = state["tenant"], state["session"]
    voiced = state.get("speaker_id") or (ctx.voice is not None and ctx.audio is not None)
    if r.tentative and r.speaker == "self" and not voiced:
        # typed words carry no voice: "my train" could be anyone's, and another
        # person's turn must not come back as "you said"
        return _as_chat(state, ctx, r, "typed words name no one", t0, searched=False)
    # a fact said a moment ago may still be queued for writing: wait for the user turns
    # queued before this one (not for embeddings of the agent's own replies)
    await agent.writer.wait(ctx.barrier)
    waited = round(time.perf_counter() - t0, 4)
    plan, reference = r.plan, None
    if r.intent == "forget" and r.unknown_speaker is not None:
        # a name no voice has must not widen an erasure to everyone's turns
        known = await asyncio.to_thread(agent.speaker_names, tenant)
        name = r.unknown_speaker
        who = f"a voice called {name.title()}" if name else "the voice you named"
        ctx.action = f"I don't know {who}, so I've erased nothing. " + (
            f"The voices I know are {', '.join(known)}; say whose words to forget by one of "
            "those names, or ask me to forget what you said."
            if known
            else "Ask me to forget what you said."
        )
        _emit(Recalled(r.intent, plan.describe(), []))
        timings = {**state.get("timings", {}), "recall": 0.0}
        return {"hits": [], "timings": timings, "pending_forget": []}
    if r.speaker == "self":
        if state.get("speaker_id"):
            plan = _replace(plan, speaker=Constraint("target", state["speaker_id"]))
        elif ctx.voice is not None and ctx.audio is not None:
            plan = _replace(plan, speaker=Constraint("same"))
            reference = Reference(ctx.audio, {"speaker": ctx.voice}, "")
        else:
            # typed words carry no voice: "I" could be anyone
            ctx.action = (
                "I can't tell who is speaking from typed words. Say it aloud, or ask by name."
            )
            _emit(Recalled(r.intent, plan.describe(), []))
            return {"hits": [], "timings": {**state.get("timings", {}), "recall": 0.0}}
    if r.speaker == "agent" and r.time == "latest" and not plan.content and r.intent == "recall":
        # "what did you just say?": the dialogue knows, even when it was a memory answer
        said = next(
            (h["text"] for h in reversed(state.get("dialogue") or []) if h.get("role") == "agent"),
            None,
        )
        if said:
            ctx.action = f'I said: "{said.strip()}"'
            _emit(Recalled(r.intent, plan.describe(), []))
            return {"hits": [], "timings": {**state.get("timings", {}), "recall": 0.0}}
    hits: list[RecalledTurn] = []
    try:
        sessions = await asyncio.to_thread(agent.memory.sessions, tenant)
        times = await asyncio.to_thread(agent.session_times, tenant, session)
        window = resolve_time(
            r.time,
            session=session,
            sessions=[(s.session, s.first, s.last) for s in sessions],
            session_times=times,
        )
        if (
            window.order is None
            and not plan.content
            and all(plan.constraint(a).mode == "any" for a in ("style", "environment"))
        ):
            # nothing to rank by ("what did you tell me?"): the most recent first
            window = _replace(window, order="latest")
        plan = _replace(plan, time=window)
        k = FORGET_MAX if r.intent == "forget" else agent.settings.agent.recall_k
        # a tentative route looks further down for statements that hold its words
        look = max(k, TENTATIVE_CANDIDATES) if r.tentative else k
        # requests to the memory and the agent's answers to them are not what anyone
        # asks for: they are skipped (the memory keeps them as the conversation)
        meta = await asyncio.to_thread(agent.meta_turns, tenant)
        if r.tentative:
            # the agent's replies to earlier askings it could not answer hold the
            # question's words, and are no answer either
            meta |= await asyncio.to_thread(agent.unanswered_replies, tenant)

        async def search(extra: int) -> tuple[list[Any], int]:
            # ``extra`` more candidates and results, for the skipped turns among them;
            # the turns kept, and how many skipped turns the results held
            params = FusionParams(candidates=FusionParams().candidates + extra)
            result = await asyncio.to_thread(
                recall,
                agent.memory,
                tenant,
                state.get("transcript", ""),
                plan=plan,
                reference=reference,
                k=look + extra,
                params=params,
            )
            kept = [t for t in result.turns if t.segment.id not in meta]
            return kept[:look], len(result.turns) - len(kept)

        # a tenant's skipped turns grow with every request to the memory: the search
        # makes room for a few of them, and for all when that room was filled (skipped
        # turns may then have crowded others out) or too few turns were left
        extra = min(len(meta), META_ROOM)
        found, skipped = await search(extra)
        if extra < len(meta) and (len(found) < look or skipped >= extra):
            found, _ = await search(len(meta))
        if r.tentative:
            # only a statement that holds the question's words answers it, in recall's
            # order; none, and the question is chat
            found = [t for t in found if memory_holds(r.terms, [t.segment.transcript])]
        kept = found[:k]
        if r.tentative:
            # a statement holding every word of the question first; one holding only some
            # may not answer it ("where does my sister live?" and "my sister is called
            # Anna"), and the reply says so
            kept.sort(key=lambda t: not memory_holds(r.terms, [t.segment.transcript], 1.0))
            ctx.partial = bool(
                kept and not memory_holds(r.terms, [kept[0].segment.transcript], 1.0)
            )
        if r.intent == "forget":
            kept = _worth_forgetting(kept)
        hits = agent.describe_hits(tenant, kept)
    except UnknownTenant:
        hits = []
    timings = {
        **state.get("timings", {}),
        "recall": round(time.perf_counter() - t0, 4),
        "recall_wait_writes": waited,
    }
    if r.tentative:
        if not hits:
            return _as_chat(state, ctx, r, "nothing remembered holds its words", t0, waited)
        # answered from the memory: a memory request like any other from here on (its
        # turn is skipped by later recalls, as every request to the memory is)
        ctx.route = dataclasses.replace(r, tentative=False)
    ctx.hits = hits
    _emit(Recalled(r.intent, plan.describe(), hits))
    update: dict[str, Any] = {"hits": [h.to_dict() for h in hits], "timings": timings}
    if r.intent == "forget":
        update["pending_forget"] = [h.turn_id for h in hits]
    return update


def _as_chat(
    state: AgentState,
    ctx: TurnContext,
    r: Route,
    why: str,
    t0: float,
    waited: float = 0.0,
    searched: bool = True,
) -> dict[str, Any]:
    """A tentative route the memory does not answer, made a chat turn: no hits, no
    ``Recalled`` event, and a turn of the conversation like any chat turn. ``searched``:
    the memory was searched and held no answer (the reply is then marked as none)."""
    # an introduction the turn opened with still names the voice
    ctx.route = Route("chat", why=f"{r.why}; {why}", introduces=r.introduces, rest=r.rest)
    ctx.hits = []
    ctx.unanswered = searched
    route = {
        "intent": "chat",
        "needs_memory": False,
        "speaker": "any",
        "time": None,
        "name": None,
        "introduces": r.introduces,
        "plan": None,
        "why": ctx.route.why,
        "tentative": False,
    }
    timings = {
        **state.get("timings", {}),
        "recall": round(time.perf_counter() - t0, 4),
        "recall_wait_writes": waited,
    }
    return {"hits": [], "route": route, "timings": timings}


def _replace(plan: Any, **changes: Any) -> Any:
    return dataclasses.replace(plan, **changes)


def _worth_forgetting(turns: list[Any]) -> list[Any]:
    """The turns a forget request means: every one meeting each attribute of the plan,
    and, when it names content, matching it nearly as well as the best match does (a
    relative z-score alone would always offer a share of unrelated turns)."""
    if not turns:
        return []
    meets = [t for t in turns if all(e.matched for e in t.evidence.values())] or turns[:1]
    content = [t.evidence["content"].raw for t in meets if "content" in t.evidence]
    if content:
        best = max(content)
        meets = [
            t
            for t in meets
            if "content" not in t.evidence
            or t.evidence["content"].raw >= FORGET_CONTENT_SHARE * best
        ]
    return meets


# -- respond ---------------------------------------------------------------------------


async def respond(state: AgentState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    ctx, agent = runtime.context, runtime.context.agent
    t0 = time.perf_counter()
    r = ctx.route or Route("chat")
    tenant = state["tenant"]
    update: dict[str, Any] = {}
    action: str | None = state.get("heard", {}).get("problem") or ctx.action
    name = state.get("speaker_name")
    opened: str | None = None  # what naming the voice a turn opens with says
    if r.introduces and r.intent != "name" and ctx.voice is not None:
        said = await asyncio.to_thread(_name_action, agent, ctx, state, r.introduces)
        # said in passing: only a new name is answered; a voice known by another name,
        # or a name another voice has, is left unsaid (the turn may not be an
        # introduction at all) and changes nothing
        if said.startswith("Nice to meet you"):
            name = r.introduces
            update["speaker_name"] = name
            opened = f"Nice to meet you, {name}."
    if r.intent == "name" and r.name:
        action = await asyncio.to_thread(_name_action, agent, ctx, state, r.name)
        if ctx.voice is not None and action.startswith("Nice to meet you"):
            name = r.name
            update["speaker_name"] = r.name
    elif r.intent == "forget":
        if ctx.hits:
            quoted = "; ".join(f'"{h.transcript.strip()}"' for h in ctx.hits[:3])
            more = f" and {len(ctx.hits) - 3} more" if len(ctx.hits) > 3 else ""
            n = len(ctx.hits)
            action = (
                f"I found {n} {'turn' if n == 1 else 'turns'} to forget: {quoted}{more}. "
                f"Shall I erase {'it' if n == 1 else 'them'} for good? Say yes to confirm."
            )
        else:
            action = ctx.action or "I don't find anything like that to forget."
    elif r.intent == "confirm":
        ids = list(state.get("pending_forget") or [])
        erased, texts, failure = await agent.erase(tenant, ids)
        ctx.erased = texts
        if failure:
            ctx.notes.append(f"forget failed: {failure}")
            action = (
                f"I could not finish erasing: {failure}. Nothing was lost; ask me again to retry."
            )
        else:
            action = f"Done. I've erased {erased} {'turn' if erased == 1 else 'turns'} for good."
        update["pending_forget"] = []
    elif r.intent == "deny":
        action = "All right, I'll keep them."
        update["pending_forget"] = []
    elif r.intent == "replay":
        if ctx.hits:
            top = ctx.hits[0]
            person = top.speaker_name or ("you" if r.speaker == "self" else "someone")
            if top.role == "agent":
                person = "I"
            time_words = when(top.created_at, time.time(), top.session == state["session"])
            action = f"Here is what {person} said {time_words}."
            ctx.replay_pcm = await asyncio.to_thread(agent.replay_pcm, tenant, top.turn_id)
        else:
            action = "I don't find anything like that to play."
    if r.intent not in ("forget", "confirm", "deny") and state.get("pending_forget"):
        update["pending_forget"] = []  # another request cancels an unconfirmed forget
    greeting = None
    greeted = list(state.get("greeted") or [])
    sid = state.get("speaker_id")
    if opened is not None:
        greeting = opened
        if name and name not in greeted:
            greeted.append(name)
            update["greeted"] = greeted
    elif r.intent == "name" and name and name not in greeted:
        greeted.append(name)  # introduced in this session: no welcome back
        update["greeted"] = greeted
    elif sid and name and name not in greeted:
        greeting = f"Welcome back, {name}."
        greeted.append(name)
        update["greeted"] = greeted
    prompt = Prompt(
        # after an introduction, what follows it is what asks or says something
        user_text=(r.rest if r.introduces and r.rest else state.get("transcript", "")),
        intent=r.intent,
        speaker_name=name,
        asked_about=r.speaker,
        recalled=ctx.hits,
        history=(state.get("dialogue") or [])[-agent.settings.agent.history_turns :]
        if agent.settings.agent.history_turns
        else [],
        agent_name=agent.name,
        session=state["session"],
        now=time.time(),
        action=action,
        greeting=greeting,
        instructions=agent.instructions(state["tenant"], state["session"]),
        typed=ctx.audio is None and not state.get("heard", {}).get("problem"),
        partial=ctx.partial,
    )
    for what, why in agent.writer.take_failures():
        ctx.notes.append(f"a memory write failed ({what}): {why}")
    ctx.text = asyncio.Queue()
    notes = list(ctx.notes)
    first = await _start_stream(agent, prompt, ctx.text, notes)
    ctx.notes = notes
    update["timings"] = {
        **state.get("timings", {}),
        "respond": round(time.perf_counter() - t0, 4),
        "first_token": _since(ctx) if first else -1.0,
    }
    return update


async def _start_stream(
    agent: VoiceAgent, prompt: Prompt, out: asyncio.Queue[str | None], notes: list[str]
) -> bool:
    """Start the responder in a task that fills ``out``; wait for its first piece. A
    responder that fails before saying anything is replaced by the extractive one."""
    first = asyncio.get_running_loop().create_future()

    async def pump(stream: AsyncIterator[str]) -> None:
        said = False
        try:
            async for piece in stream:
                if not said:
                    said = True
                    if not first.done():
                        first.set_result(True)
                _emit(TextDelta(piece))
                await out.put(piece)
        except Exception as exc:  # any backend failure falls back to the extractive rules
            if not said:
                notes.append(
                    f"responder {agent.responder.name} failed ({exc}); answered extractively"
                )
                async for piece in ExtractiveResponder().stream(prompt):
                    if not first.done():
                        first.set_result(True)
                    _emit(TextDelta(piece))
                    await out.put(piece)
            else:
                notes.append(f"responder {agent.responder.name} stopped mid-reply ({exc})")
        finally:
            if not first.done():
                first.set_result(False)
            await out.put(None)

    task = asyncio.create_task(pump(agent.responder.stream(prompt)))
    agent.track(task)
    return bool(await first)


# -- speak -----------------------------------------------------------------------------


async def speak(state: AgentState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    ctx, agent = runtime.context, runtime.context.agent
    t0 = time.perf_counter()
    chunk_ms = agent.settings.agent.audio_chunk_ms
    first_audio = -1.0
    reply, buffer = "", ""
    assert ctx.text is not None

    async def say(sentence: str) -> None:
        nonlocal first_audio
        words = speakable(sentence)
        if not words or ctx.control.cancelled:
            return
        try:
            clip = await asyncio.to_thread(agent.synthesizer.synthesize, words)
        except SynthesisError as exc:
            ctx.notes.append(f"could not speak a sentence: {exc}")
            return
        ctx.sentences.append((len(ctx.pcm), sentence))
        for piece in chunks(to_pcm16(clip), chunk_ms):
            if ctx.control.cancelled:
                return
            ctx.pcm += piece
            if first_audio < 0:
                first_audio = _since(ctx)
            _emit(AudioChunk(piece, OUTPUT_RATE, "tts"))
            await asyncio.sleep(0)  # let the listener act (barge-in) between chunks

    while True:
        piece = await ctx.text.get()
        if piece is None:
            break
        reply += piece
        buffer += piece
        done, buffer = split_sentences(buffer)
        for sentence in done:
            await say(sentence)
    done, _ = split_sentences(buffer, final=True)
    for sentence in done:
        await say(sentence)
    replayed: list[str] = []
    if ctx.replay_pcm and not ctx.control.cancelled and ctx.hits:
        for piece in chunks(ctx.replay_pcm, chunk_ms):
            if ctx.control.cancelled:
                break
            if first_audio < 0:
                first_audio = _since(ctx)
            _emit(AudioChunk(piece, OUTPUT_RATE, "replay", ctx.hits[0].turn_id))
            await asyncio.sleep(0)
        replayed.append(ctx.hits[0].turn_id)
    return {
        "reply": reply.strip(),
        "replayed": replayed,
        "interrupted": ctx.control.cancelled,
        "timings": {
            **state.get("timings", {}),
            "first_audio": first_audio,
            "speak": round(time.perf_counter() - t0, 4),
        },
    }


# -- remember --------------------------------------------------------------------------


async def remember(state: AgentState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    ctx, agent = runtime.context, runtime.context.agent
    t0 = time.perf_counter()
    tenant, session, turn = state["tenant"], state["session"], state.get("turn", 0)
    r = ctx.route or Route("chat")
    await ctx.control.wait_playback()
    reply_text, pcm = state.get("reply", ""), bytes(ctx.pcm)
    truncated = ctx.control.cancelled or ctx.control.played_ms is not None
    if truncated:
        # keep only what the listener heard
        played = ctx.control.played_ms
        keep = len(pcm) if played is None else min(len(pcm), int(OUTPUT_RATE * played / 1000) * 2)
        pcm = pcm[:keep]
        reply_text = " ".join(s for off, s in ctx.sentences if off < keep).strip()
    ctx.remembered = True
    meta = r.needs_memory
    control = r.intent in ("forget", "confirm", "deny")
    if ctx.perceived and not control:
        # a request to erase something is not kept: its words and the answer quoting
        # what would be erased would outlive the erasure
        agent.remember_user(tenant, session, turn, ctx.perceived, ctx.name_voice, meta)
    if pcm and reply_text and not control and not state.get("heard", {}).get("problem"):
        agent.remember_agent(
            tenant,
            session,
            turn,
            pcm,
            reply_text,
            meta,
            replying_to=state.get("transcript"),
            cites=[h.turn_id for h in ctx.hits],
            unanswered=ctx.unanswered,
        )
    now = time.time()
    entries: list[dict[str, Any]] = []
    if state.get("transcript"):
        entries.append(
            {
                "role": "user",
                "speaker": state.get("speaker_name") or state.get("speaker_id"),
                "text": state.get("transcript", ""),
                "turn": turn,
                "at": now,
            }
        )
    if reply_text:
        entries.append(
            {"role": "agent", "speaker": agent.name, "text": reply_text, "turn": turn, "at": now}
        )
    timings = {**state.get("timings", {}), "remember": round(time.perf_counter() - t0, 4)}
    timings["total"] = _since(ctx)
    return {
        "dialogue": entries,
        "reply": reply_text if truncated else state.get("reply", ""),
        "notes": list(ctx.notes),
        "timings": timings,
    }


def _name_action(agent: VoiceAgent, ctx: TurnContext, state: AgentState, name: str) -> str:
    """What a self-introduction does: names an unnamed voice, and never renames a voice
    or merges two voices without a person deciding (``voxmem speakers``)."""
    if ctx.voice is None:
        return "Nice to meet you. Say that aloud and I'll remember your voice."
    current = state.get("speaker_name")
    if current and current != name:
        return f"I know your voice as {current}. Rename it with voxmem speakers if that's wrong."
    if current == name:
        return f"Yes, I know you, {name}."
    other = next((s for s in agent.memory_speakers(state["tenant"]) if s.name == name), None)
    if other is not None:
        return (
            f"I already know another voice as {name}, so I'll keep yours apart for now. "
            "Merge them with voxmem speakers if you are the same person."
        )
    ctx.name_voice = name
    return f"Nice to meet you, {name}. I'll know your voice from now on."


def build_graph() -> StateGraph[AgentState, TurnContext, AgentState, AgentState]:
    """The turn graph, uncompiled (the agent compiles it with its checkpointer)."""
    graph: StateGraph[AgentState, TurnContext, AgentState, AgentState] = StateGraph(
        AgentState, context_schema=TurnContext
    )
    graph.add_node("perceive", perceive)
    graph.add_node("route", route)
    graph.add_node("recall", recall_node)
    graph.add_node("respond", respond)
    graph.add_node("speak", speak)
    graph.add_node("remember", remember)
    graph.add_edge(START, "perceive")
    graph.add_edge("perceive", "route")
    graph.add_conditional_edges("route", after_route, {"recall": "recall", "respond": "respond"})
    graph.add_edge("recall", "respond")
    graph.add_edge("respond", "speak")
    graph.add_edge("speak", "remember")
    graph.add_edge("remember", END)
    return graph


def load_turn_audio(source: Any, sample_rate: int | None, max_seconds: float) -> Audio:
    """The user's audio as the agent takes it: any format ``voxmem.audio`` reads."""
    audio = load_audio(source, sample_rate=sample_rate)
    if audio.duration > max_seconds:
        raise InvalidAudio(
            f"the turn is {audio.duration:.0f} s long; the agent takes turns up to "
            f"{max_seconds:.0f} s (VOXMEM_AGENT__MAX_TURN_SECONDS)"
        )
    return audio


__all__ = ["AgentState", "TurnContext", "attribution", "build_graph", "load_turn_audio"]
