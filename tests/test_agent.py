"""The agent's graph with fake encoders and a humming voice: routing into the memory,
who-said-what, replay, naming, confirmed forgets, checkpoints, bad input, barge-in and
the write queue. tests/test_agent_e2e.py runs the same conversation with the shipped
models."""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.agent_helpers import HummingSynthesizer, KeyedTranscriber, fake_memory, said
from voxmem.agent import (
    AudioChunk,
    Heard,
    OpenAIResponder,
    Recalled,
    TextDelta,
    TurnControl,
    TurnDone,
    VoiceAgent,
)
from voxmem.agent.speak import OUTPUT_RATE, to_pcm16
from voxmem.memory.records import TenantRequired, UnknownSegment, UnknownTenant

DANA, MARCO, PRIYA = 1, 2, 3


def make_agent(root: Path, **kw: object) -> tuple[VoiceAgent, KeyedTranscriber]:
    memory, asr = fake_memory(root)
    return VoiceAgent(memory, synthesizer_=HummingSynthesizer(), **kw), asr  # type: ignore[arg-type]


def speaking(agent: VoiceAgent, asr: KeyedTranscriber):
    """``say(voice, session, text)``: one of the fake voices speaks a turn to the agent
    as tenant "acme"."""

    async def say(voice: int, session: str, text: str):
        return await agent.turn("acme", session, audio=said(asr, voice, text))

    return say


async def test_names_with_accents_hyphens_and_two_words(tmp_path: Path) -> None:
    """A name the introduction rules once missed is remembered for the voice, welcomed
    back, and asked about by name."""
    agent, asr = make_agent(tmp_path)
    say = speaking(agent, asr)
    async with agent:
        r = await say(DANA, "monday", "Hi, I'm Jean-Luc.")
        assert r.intent == "name" and "Jean-Luc" in r.reply
        r = await say(MARCO, "monday", "My name is Siobhan O'Brien.")
        assert r.intent == "name" and "Siobhan O'Brien" in r.reply
        await say(DANA, "monday", "The budget for the offsite is four thousand euros.")
        await say(MARCO, "monday", "I think the budget should be two thousand at most.")
        agent.flush("acme")
        assert {"Jean-Luc", "Siobhan O'Brien"} <= {s.name for s in agent.memory.speakers("acme")}

        r = await say(DANA, "tuesday", "What did I say about the budget?")
        assert r.speaker_name == "Jean-Luc" and r.reply.startswith("Welcome back, Jean-Luc.")
        r = await say(PRIYA, "tuesday", "What did Siobhan O'Brien say about the budget?")
        assert r.hits and r.hits[0].speaker_name == "Siobhan O'Brien"
        assert "two thousand" in r.hits[0].transcript


async def test_who_said_what_over_two_sessions(tmp_path: Path) -> None:
    agent, asr = make_agent(tmp_path)
    say = speaking(agent, asr)
    async with agent:
        r = await say(DANA, "monday", "Hi, I'm Dana.")
        assert r.intent == "name" and "Dana" in r.reply
        await say(MARCO, "monday", "Hello, my name is Marco.")
        fact_dana = await say(DANA, "monday", "The budget for the offsite is four thousand euros.")
        fact_marco = await say(
            MARCO, "monday", "I think the budget should be two thousand at most."
        )
        assert fact_dana.intent == fact_marco.intent == "chat"
        agent.flush("acme")
        names = {s.name for s in agent.memory.speakers("acme")}
        assert {"Dana", "Marco", "Vox"} <= names

        # a new session: Dana is recognised by voice and welcomed back
        r = await say(DANA, "tuesday", "What did I say about the budget?")
        assert r.speaker_name == "Dana" and r.reply.startswith("Welcome back, Dana.")
        assert r.intent == "recall" and r.hits
        assert r.hits[0].speaker_name == "Dana" and "four thousand" in r.hits[0].transcript
        assert all(h.speaker_name == "Dana" for h in r.hits)
        assert "four thousand" in r.reply and "two thousand" not in r.reply

        r = await say(MARCO, "tuesday", "What did I say about the budget?")
        assert r.hits[0].speaker_name == "Marco" and "two thousand" in r.reply

        r = await say(PRIYA, "tuesday", "What did Dana say about the budget?")
        assert r.hits[0].speaker_name == "Dana" and "Dana said" in r.reply

        r = await say(PRIYA, "tuesday", "What did you tell me?")
        assert r.hits and all(h.role == "agent" for h in r.hits)
        assert r.reply.startswith("I told you")

        # replay answers with the stored original audio
        r = await say(PRIYA, "tuesday", "Play what Marco said about the budget.")
        assert r.intent == "replay" and r.replayed == [r.hits[0].turn_id]
        original = to_pcm16(agent.memory.audio("acme", r.hits[0].turn_id), OUTPUT_RATE)
        assert r.audio.endswith(original) and len(r.audio) > len(original)

        # the first thing said in the last session
        r = await say(DANA, "tuesday", "What was the first thing I said in our last session?")
        assert r.hits and r.hits[0].session == "monday"
        assert "Dana" in r.hits[0].transcript


async def test_forget_asks_then_erases(tmp_path: Path) -> None:
    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "My home address is 12 Elm Street."))
        await agent.turn("acme", "s", audio=said(asr, DANA, "I also like gardening."))
        r = await agent.turn(
            "acme", "s", audio=said(asr, DANA, "Forget what I said about my address.")
        )
        assert r.intent == "forget" and "Say yes to confirm" in r.reply
        target = r.hits[0].turn_id
        assert "Elm Street" in r.hits[0].transcript
        agent.memory.get("acme", target)  # still there until confirmed
        r = await agent.turn("acme", "s", audio=said(asr, DANA, "yes"))
        assert r.intent == "confirm" and "erased 1 turn" in r.reply
        with pytest.raises(UnknownSegment):
            agent.memory.get("acme", target)
        assert not (tmp_path / "audio" / "acme" / f"{target}.flac").exists()
        remaining = [s.transcript for s in agent.memory.list("acme", role="user")]
        assert any("gardening" in t for t in remaining)


async def test_a_refused_forget_keeps_everything(tmp_path: Path) -> None:
    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "My password hint is the cat's name."))
        r = await agent.turn(
            "acme", "s", audio=said(asr, DANA, "Delete what I said about the password.")
        )
        kept = r.hits[0].turn_id
        r = await agent.turn("acme", "s", audio=said(asr, DANA, "no, keep it"))
        assert r.intent == "deny"
        assert agent.memory.get("acme", kept).transcript.startswith("My password")


async def test_sessions_resume_after_a_restart(tmp_path: Path) -> None:
    agent, _asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "call-1", text="Hello there!")
        await agent.turn("acme", "call-1", text="The meeting moved to Thursday.")
    again, _ = make_agent(tmp_path)
    async with again:
        history = await again.dialogue("acme", "call-1")
        assert [h["role"] for h in history] == ["user", "agent", "user", "agent"]
        r = await again.turn("acme", "call-1", text="thanks")
        assert r.turn == 3
        assert await again.dialogue("acme", "call-2") == []


@pytest.mark.parametrize(
    ("audio", "problem"),
    [
        (np.zeros(16_000, np.float32), "speech"),
        (b"", "audio"),
        (b"this is not audio at all" * 10, "audio"),
        (np.full(10, np.nan, np.float32), "audio"),
    ],
)
async def test_bad_audio_keeps_the_session_and_stores_nothing(
    tmp_path: Path, audio: object, problem: str
) -> None:
    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "The launch is on Friday."))
        agent.flush()
        before = len(agent.memory.list("acme"))
        r = await agent.turn("acme", "s", audio=audio, sample_rate=16_000)  # type: ignore[arg-type]
        assert r.heard is not None and r.heard.problem and problem in r.heard.problem
        assert problem in r.reply and r.hits == []
        agent.flush()
        # neither the unusable turn nor the reply saying so is stored
        assert len(agent.memory.list("acme")) == before
        r = await agent.turn("acme", "s", audio=said(asr, DANA, "What did I say about the launch?"))
        assert "Friday" in r.reply


async def test_noise_without_words_is_not_stored(tmp_path: Path) -> None:
    agent, _ = make_agent(tmp_path)
    noise = np.random.default_rng(0).standard_normal(32_000).astype(np.float32) * 0.3
    async with agent:
        r = await agent.turn("acme", "s", audio=noise, sample_rate=16_000)
        assert r.heard is not None and r.heard.problem and "speech" in r.heard.problem
        agent.flush()
        with pytest.raises(UnknownTenant):
            agent.memory.list("acme")


async def test_bad_calls_are_typed(tmp_path: Path) -> None:
    agent, _ = make_agent(tmp_path)
    async with agent:
        with pytest.raises(TenantRequired):
            await agent.turn("acme\n", "s", text="hi")
        with pytest.raises(ValueError, match="session"):
            await agent.turn("acme", " ", text="hi")
        with pytest.raises(ValueError, match="exactly one"):
            await agent.turn("acme", "s")


async def test_events_stream_in_order(tmp_path: Path) -> None:
    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "The printer code is 4471."))
        kinds = []
        async for event in agent.stream(
            "acme", "s", audio=said(asr, DANA, "What did I say about the printer code?")
        ):
            kinds.append(type(event))
            if isinstance(event, AudioChunk):
                assert event.sample_rate == OUTPUT_RATE
                assert len(event.pcm) <= int(OUTPUT_RATE * 0.2) * 2
        assert kinds[0] is Heard and kinds[1] is Recalled and kinds[-1] is TurnDone
        assert kinds.index(TextDelta) < kinds.index(AudioChunk)


async def test_barge_in_keeps_only_what_was_played(tmp_path: Path) -> None:
    agent, _asr = make_agent(tmp_path)
    text = "Hello there, tell me everything about yourself."
    async with agent:
        whole = await agent.turn("acme", "s0", text=text)
        control = TurnControl()
        sent = 0
        async for event in agent.stream("acme", "s", text=text, control=control):
            if isinstance(event, AudioChunk):
                sent += 1
                if sent == 2:
                    control.cancel(played_ms=250, reason="turn_detected")
            if isinstance(event, TurnDone):
                result = event.result
        assert result.interrupted and not whole.interrupted
        # synthesis stops within two chunks of the cancel (those already queued to the
        # stream); a server forwards none of them once it has seen the barge-in
        assert sent <= 2 + 2 < len(whole.audio) // (2 * OUTPUT_RATE * 160 // 1000)
        agent.flush()
        stored = agent.memory.list("acme", session="s", role="agent")
        assert len(stored) == 1
        assert stored[0].duration == pytest.approx(0.25, abs=0.02)


async def test_an_endpoint_that_is_down_falls_back_to_extractive(tmp_path: Path) -> None:
    down = OpenAIResponder("http://127.0.0.1:9/v1", "key", "any-model", timeout=2.0)
    agent, asr = make_agent(tmp_path, responder=down)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "Our flight leaves at nine."))
        r = await agent.turn("acme", "s", audio=said(asr, DANA, "What did I say about the flight?"))
        assert "nine" in r.reply
        assert any("answered extractively" in n for n in r.notes)


class _StreamingChat(http.server.BaseHTTPRequestHandler):
    """A chat-completions endpoint that streams a fixed answer (server-sent events)."""

    words = ("The ", "weather ", "is ", "fine.")

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for w in self.words:
            chunk = {
                "id": "c1",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "m",
                "choices": [{"index": 0, "delta": {"content": w}, "finish_reason": None}],
            }
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")

    def log_message(self, *args: object) -> None:
        pass


class _BrokenChat(_StreamingChat):
    """An endpoint that opens its stream and fails before any words."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(b"data: {not json\n\n")


async def test_an_llm_reply_begins_with_the_rules_greeting_once(tmp_path: Path) -> None:
    """The greeting the rules decide ("Nice to meet you, Zoe.", "Welcome back, Dana.")
    opens an LLM's reply too, once, and an endpoint that is down still falls back to the
    whole extractive reply."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _StreamingChat)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        up = OpenAIResponder(url, "key", "m", timeout=10.0)
        agent, asr = make_agent(tmp_path / "up", responder=up)
        async with agent:
            text = "This is Zoe speaking, what is the weather like today?"
            r = await agent.turn("acme", "s", audio=said(asr, DANA, text))
            assert r.reply.startswith("Nice to meet you, Zoe. The weather is fine.")
            assert r.reply.count("Nice to meet you") == 1
            assert not any("extractively" in n for n in r.notes)
            agent.flush()
            r = await agent.turn("acme", "s2", audio=said(asr, DANA, "How are you today?"))
            assert r.reply.startswith("Welcome back, Zoe. The weather is fine."), r.reply
        broken = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _BrokenChat)
        threading.Thread(target=broken.serve_forever, daemon=True).start()
        for name, endpoint in (
            ("down", "http://127.0.0.1:9/v1"),
            ("broken", f"http://127.0.0.1:{broken.server_address[1]}/v1"),
        ):
            responder = OpenAIResponder(endpoint, "key", "m", timeout=5.0)
            agent, asr = make_agent(tmp_path / name, responder=responder)
            async with agent:
                r = await agent.turn("acme", "s", audio=said(asr, DANA, text))
                assert r.reply.count("Nice to meet you, Zoe.") == 1, (name, r.reply)
                assert "I can answer from what was said" in r.reply, (name, r.reply)
                assert any("answered extractively" in n for n in r.notes), name
        broken.shutdown()
    finally:
        server.shutdown()


async def test_close_finishes_queued_writes(tmp_path: Path) -> None:
    agent, asr = make_agent(tmp_path)
    async with agent:
        for i in range(4):
            await agent.turn(
                "acme", "s", audio=said(asr, DANA, f"Fact number {i} is here.", seed=i)
            )
    memory, _ = fake_memory(tmp_path)
    users = memory.list("acme", role="user")
    assert sorted(s.transcript for s in users) == [f"Fact number {i} is here." for i in range(4)]
    assert len(memory.list("acme", role="agent")) == 4
    assert memory.verify(repair=False).ok


async def test_turns_of_one_session_run_one_at_a_time(tmp_path: Path) -> None:
    agent, _ = make_agent(tmp_path)
    async with agent:
        results = await asyncio.gather(
            *[agent.turn("acme", "s", text=f"note {i}") for i in range(3)],
            agent.turn("acme", "other", text="hello"),
        )
        assert sorted(r.turn for r in results[:3]) == [1, 2, 3]
        assert results[3].turn == 1


def test_a_crash_loses_only_queued_turns(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.agent_child", str(tmp_path)],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert child.stdout is not None
    lines = []
    for line in child.stdout:
        lines.append(line.strip())
        if line.strip() == "queued":
            break
    os.kill(child.pid, signal.SIGKILL)
    child.wait(30)
    assert lines[-2:] == ["flushed", "queued"]
    memory, _ = fake_memory(tmp_path)
    users = sorted(s.transcript for s in memory.list("acme", role="user"))
    assert users == [f"Kept fact number {i}." for i in range(3)]
    report = memory.verify(repair=False)
    assert report.ok, report
    for seg in memory.list("acme"):
        assert memory.audio("acme", seg.id).duration > 0


def test_a_quoted_question_keeps_its_own_mark() -> None:
    import time as _time

    from voxmem.agent.respond import Prompt, RecalledTurn, attribution

    now = _time.time()
    prompt = Prompt("what did Dana ask?", "recall", session="s", now=now)
    asked = RecalledTurn("seg_1", "s", "spk", "Dana", "user", "When is it due?", 0, 1, now, 1.0)
    said_ = RecalledTurn("seg_2", "s", "spk", "Dana", "user", "It is due Friday.", 0, 1, now, 1.0)
    assert attribution(asked, prompt).endswith('"When is it due?"')
    assert attribution(said_, prompt).endswith('"It is due Friday."')


def test_replies_are_spoken_in_pieces() -> None:
    from voxmem.agent.speak import split_sentences

    done, rest = split_sentences('Welcome back, Dana. Dana said yesterday: "The budget is set." Mo')
    assert done == ["Welcome back, Dana.", "Dana said yesterday:", '"The budget is set."']
    assert rest == "Mo"
    assert split_sentences("Ok: fine. Done", final=True) == (["Ok: fine.", "Done"], "")


def test_repeated_sentences_are_synthesised_once() -> None:
    from voxmem.agent.speak import CachedSynthesizer

    calls: list[str] = []

    class Counting(HummingSynthesizer):
        def synthesize(self, text: str):  # type: ignore[no-untyped-def]
            calls.append(text)
            return super().synthesize(text)

    voice = CachedSynthesizer(Counting(), size=2)
    a = voice.synthesize("Got it.")
    assert voice.synthesize("Got it.") is a
    voice.synthesize("One.")
    voice.synthesize("Two.")
    voice.synthesize("Got it.")
    assert calls == ["Got it.", "One.", "Two.", "Got it."]


async def test_a_reply_is_found_by_what_it_answered(tmp_path: Path) -> None:
    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.observe("acme", "s", audio=said(asr, DANA, "What should I bring camping?"))
        await agent.observe("acme", "s", text="Pack bug spray and a warm jacket.", role="agent")
        await agent.observe("acme", "s", audio=said(asr, DANA, "And for the beach?"))
        await agent.observe("acme", "s", text="Sunscreen and a hat.", role="agent")
        r = await agent.turn(
            "acme", "s", audio=said(asr, DANA, "What did you tell me to bring camping?")
        )
        assert r.hits and "bug spray" in r.hits[0].transcript
        assert r.hits[0].transcript == "Pack bug spray and a warm jacket."


async def test_a_reply_held_until_playback_keeps_what_was_heard(tmp_path: Path) -> None:
    agent, _ = make_agent(tmp_path)
    async with agent:
        control = TurnControl(await_playback=True)
        events = []

        async def consume() -> None:
            async for event in agent.stream(
                "acme", "s", text="Hello there, tell me everything.", control=control
            ):
                events.append(event)

        task = asyncio.create_task(consume())
        while not any(isinstance(e, AudioChunk) for e in events):
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
        assert not any(isinstance(e, TurnDone) for e in events)  # waiting for playback
        control.played(300)  # the client truncated at 300 ms, after the reply was sent
        await asyncio.wait_for(task, 10)
        done = events[-1]
        assert isinstance(done, TurnDone) and not done.result.interrupted
        agent.flush()
        (stored,) = agent.memory.list("acme", role="agent")
        assert stored.duration == pytest.approx(0.3, abs=0.02)


async def test_typed_user_words_join_the_dialogue_only(tmp_path: Path) -> None:
    agent, _ = make_agent(tmp_path)
    async with agent:
        await agent.observe("acme", "s", text="I typed this.", role="user")
        with pytest.raises(ValueError, match="audio or text"):
            await agent.observe("acme", "s", role="user")
        assert [h["text"] for h in await agent.dialogue("acme", "s")] == ["I typed this."]
        agent.flush()
        with pytest.raises(Exception, match="nothing stored"):
            agent.memory.list("acme")


def test_a_cancelled_listener_takes_no_more_audio(tmp_path: Path) -> None:
    agent, _ = make_agent(tmp_path)
    listener = agent.listener("acme")
    listener.feed(np.zeros(1600, np.float32))
    listener.cancel()
    with pytest.raises(RuntimeError, match="finished"):
        listener.feed(np.zeros(1600, np.float32))
    with pytest.raises(RuntimeError, match="cancelled"):
        asyncio.run(listener.finish())


def test_the_reply_path_goes_before_background_embedding() -> None:
    import threading
    import time

    from voxmem.agent.agent import PerceptionGate

    gate = PerceptionGate()
    order: list[str] = []
    holding = threading.Event()

    def urgent(name: str, hold: float) -> None:
        with gate.urgent():
            holding.set()
            time.sleep(hold)
            order.append(name)

    def background() -> None:
        with gate.background():
            order.append("background")

    first = threading.Thread(target=urgent, args=("live 1", 0.3))
    first.start()
    holding.wait()
    bg = threading.Thread(target=background)
    bg.start()
    time.sleep(0.05)
    second = threading.Thread(target=urgent, args=("live 2", 0.0))
    second.start()
    for t in (first, bg, second):
        t.join(5)
    assert order == ["live 1", "live 2", "background"]


async def test_a_confirmed_forget_leaves_no_trace(tmp_path: Path) -> None:
    agent, asr = make_agent(tmp_path)
    secret = "My home address is 12 Elm Street."
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, secret))
        await agent.turn("acme", "s", audio=said(asr, DANA, "The kettle is broken."))
        r = await agent.turn("acme", "s", audio=said(asr, DANA, "What did I say about my address?"))
        assert "Elm Street" in r.reply  # a stored answer now quotes it
        r = await agent.turn(
            "acme", "s", audio=said(asr, DANA, "Forget what I said about my address.")
        )
        assert [h.transcript for h in r.hits] == [secret]  # only what was asked for
        r = await agent.turn("acme", "s", audio=said(asr, DANA, "yes"))
        assert r.intent == "confirm" and "erased 1 turn" in r.reply, r.reply
        agent.flush()
        texts = [s.transcript for s in agent.memory.list("acme", limit=1000)]
        assert not any("Elm" in t for t in texts), texts
        assert any("kettle" in t for t in texts)
        assert not any("Elm" in h["text"] for h in await agent.dialogue("acme", "s"))
    for f in (tmp_path / "agent").glob("checkpoints.sqlite3*"):
        assert b"Elm Street" not in f.read_bytes(), f


@pytest.mark.parametrize(
    "text", ["Sure, what did I say about the train?", "ok what did Marco say", "oh forget it"]
)
async def test_only_a_plain_yes_confirms_a_forget(tmp_path: Path, text: str) -> None:
    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "The train leaves at nine."))
        r = await agent.turn(
            "acme", "s", audio=said(asr, DANA, "Forget what I said about the train.")
        )
        kept = r.hits[0].turn_id
        r = await agent.turn("acme", "s", audio=said(asr, DANA, text))
        assert r.intent != "confirm"
        agent.memory.get("acme", kept)


async def test_introductions_never_rename_or_merge_voices(tmp_path: Path) -> None:
    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "Hi, I'm Dana."))
        agent.flush()
        for text in ("This is ridiculous.", "I'm Vox.", "I'm Canadian."):
            r = await agent.turn("acme", "s", audio=said(asr, DANA, text))
            assert r.intent != "name", text
        r = await agent.turn("acme", "s", audio=said(asr, DANA, "My name is Priya."))
        assert "I know your voice as Dana" in r.reply
        r = await agent.turn("acme", "s", audio=said(asr, MARCO, "Hello, I'm Dana."))
        assert "another voice as Dana" in r.reply
        agent.flush()
        named = {s.name for s in agent.memory.speakers("acme") if s.name}
        assert named == {"Dana", "Vox"}


async def test_a_turn_that_opens_with_a_name_names_the_voice_and_is_answered(
    tmp_path: Path,
) -> None:
    """ "This is Marco speaking, <statement>" names the voice and keeps the statement;
    "Hi, I'm Dana. <question>" names the voice and answers the question."""
    agent, asr = make_agent(tmp_path)
    async with agent:
        text = "This is Marco speaking, the budget should come from the sales team."
        r = await agent.turn("acme", "s", audio=said(asr, MARCO, text))
        assert r.intent == "chat" and r.reply.startswith("Nice to meet you, Marco.")
        agent.flush()
        marco = [s for s in agent.memory.speakers("acme") if s.name == "Marco"]
        assert len(marco) == 1
        r = await agent.turn(
            "acme", "s", audio=said(asr, DANA, "Hi, I'm Dana. What did Marco say about the budget?")
        )
        assert r.intent == "recall" and r.reply.startswith("Nice to meet you, Dana.")
        assert r.hits and r.hits[0].speaker_name == "Marco" and "sales team" in r.reply
        agent.flush()
        assert {s.name for s in agent.memory.speakers("acme") if s.name} == {"Marco", "Dana", "Vox"}
        # a voice already named keeps its name; the question is still answered
        r = await agent.turn(
            "acme",
            "s",
            audio=said(asr, DANA, "This is Priya speaking, what did Marco say about the budget?"),
        )
        assert "sales team" in r.reply and "Priya" not in r.reply
        # a question the memory holds nothing for still names the voice, and the rest
        # is answered as if said alone (no second "Hello" after "Nice to meet you")
        r = await agent.turn(
            "acme", "s", audio=said(asr, PRIYA, "Hi, I'm Priya. When is the next train?")
        )
        assert r.reply.startswith("Nice to meet you, Priya.") and r.intent == "chat"
        r = await agent.turn("acme", "s", audio=said(asr, 4, "Hello, I'm Zoe. Thanks for that."))
        assert r.reply.startswith("Nice to meet you, Zoe. You're welcome"), r.reply
        assert r.reply.count("Hello") == 0
        agent.flush()
        assert {"Priya", "Zoe"} <= {s.name for s in agent.memory.speakers("acme")}
        # typed words carry no voice: nothing is named, the question is answered
        r = await agent.turn("acme", "s", text="I'm Zoe. What did Marco say about the budget?")
        assert "sales team" in r.reply and "Zoe" not in r.reply
        agent.flush()
        named = {s.name for s in agent.memory.speakers("acme") if s.name}
        assert named == {"Marco", "Dana", "Vox", "Priya", "Zoe"}


async def test_typed_i_is_nobody_in_particular(tmp_path: Path) -> None:
    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, MARCO, "The budget is two thousand."))
        r = await agent.turn("acme", "typed", text="What did I say about the budget?")
        assert r.hits == [] and "typed words" in r.reply


async def test_what_did_you_just_say_repeats_the_last_answer(tmp_path: Path) -> None:
    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "The budget is four thousand."))
        first = await agent.turn(
            "acme", "s", audio=said(asr, DANA, "What did I say about the budget?")
        )
        r = await agent.turn("acme", "s", audio=said(asr, DANA, "Sorry, what did you just say?"))
        assert first.reply.split(": ", 1)[1] in r.reply


async def test_a_failing_responder_falls_back_to_extractive(tmp_path: Path) -> None:
    class Broken:
        name = "broken"

        async def stream(self, prompt: object):  # type: ignore[no-untyped-def]
            raise KeyError("a bug in a backend")
            yield ""  # pragma: no cover

    agent, _asr = make_agent(tmp_path, responder=Broken())
    async with agent:
        r = await agent.turn("acme", "s", text="Hello there!")
        assert r.reply.startswith("Hello") and r.audio
        assert any("answered extractively" in n for n in r.notes)


def test_a_listener_hears_small_chunks(tmp_path: Path) -> None:
    agent, asr = make_agent(tmp_path)
    clip = said(asr, DANA, "The budget is four thousand.")
    listener = agent.listener("acme")
    for i in range(0, len(clip.samples), 320):  # 20 ms at a time
        listener.feed(clip.samples[i : i + 320])
    assert listener._last_loud > len(clip.samples) // 2
    listener.feed(np.zeros(8000, np.float32))
    assert listener.started == 1  # the pause after the speech started a pass


async def test_concurrent_first_turns_open_one_checkpointer(tmp_path: Path) -> None:
    agent, _ = make_agent(tmp_path)
    await asyncio.gather(*[agent.turn("acme", f"s{i}", text="hello") for i in range(3)])
    conn = agent._conn
    await agent.aclose()
    assert conn is not None and agent._conn is None


async def test_a_question_about_the_askers_life_is_answered_from_memory(tmp_path: Path) -> None:
    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "Hi, I'm Dana."))
        await agent.turn(
            "acme",
            "s",
            audio=said(asr, DANA, "My train to the conference leaves from the north station."),
        )
        await agent.turn(
            "acme", "s", audio=said(asr, MARCO, "My train leaves from the central station.")
        )
        agent.flush("acme")
        r = await agent.turn(
            "acme", "t", audio=said(asr, DANA, "Which station does my train leave from?")
        )
        assert r.intent == "recall" and r.route["tentative"]
        assert r.hits and "north station" in r.hits[0].transcript
        assert all(h.speaker_name == "Dana" for h in r.hits)
        assert "north station" in r.reply
        # nothing remembered shares its words: a chat turn, nothing recalled
        r = await agent.turn("acme", "t", audio=said(asr, DANA, "Where's my umbrella?"))
        assert r.intent == "chat" and r.hits == [] and not r.route["needs_memory"]
        assert "nothing remembered" in r.route["why"]
        agent.flush("acme")
        agent.flush("acme")
        # asked again: the earlier asking and the chat reply to it are no answer
        events = [
            e
            async for e in agent.stream(
                "acme", "t", audio=said(asr, DANA, "Where's my umbrella?", seed=1)
            )
        ]
        done = events[-1]
        assert isinstance(done, TurnDone)
        assert done.result.intent == "chat" and done.result.hits == []
        assert not any(isinstance(e, Recalled) for e in events)
        # a demoted question is a chat turn of the conversation, not a memory request:
        # recall finds it like any other turn
        r = await agent.turn(
            "acme", "t", audio=said(asr, DANA, "What did I say about my umbrella?")
        )
        assert r.hits and "umbrella" in r.hits[0].transcript
        # an answered tentative question is a request to the memory: later recalls skip it
        r = await agent.turn(
            "acme", "t", audio=said(asr, DANA, "What did I say about the station?")
        )
        assert r.hits and "north station" in r.hits[0].transcript
        assert not any(h.transcript.startswith("Which station") for h in r.hits)
        # typed words carry no voice: "my train" is nobody's in particular
        r = await agent.turn("acme", "typed", text="Which station does my train leave from?")
        assert r.intent == "chat" and r.hits == [] and "typed" in r.route["why"]


async def test_a_tentative_question_left_unheard_is_kept_as_chat(tmp_path: Path) -> None:
    """The caller stops listening while a tentative route is being looked up: the turn
    was never answered from the memory, so it is kept as a chat turn (later recalls find
    it), not as a request to the memory."""
    import threading

    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "My umbrella is in the blue car."))
        agent.flush("acme")
        entered, release = threading.Event(), threading.Event()
        real = agent.meta_turns

        def slow(tenant: str) -> set[str]:  # recall's first look at the memory
            entered.set()
            release.wait(10)
            return real(tenant)

        agent.meta_turns = slow  # type: ignore[method-assign]
        stream = agent.stream("acme", "t", audio=said(asr, DANA, "Where's my umbrella?"))
        assert isinstance(await stream.__anext__(), Heard)
        pull = asyncio.ensure_future(stream.__anext__())
        assert await asyncio.to_thread(entered.wait, 10)
        pull.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pull
        release.set()
        agent.meta_turns = real  # type: ignore[method-assign]
        agent.flush("acme")
        asked = [
            s
            for s in agent.memory.list("acme", session="t", role="user")
            if "umbrella" in s.transcript
        ]
        assert len(asked) == 1
        assert asked[0].id not in agent.meta_turns("acme")


async def test_a_reply_that_could_not_answer_is_no_answer_later(tmp_path: Path) -> None:
    """An LLM's reply to a question the memory could not answer holds the question's
    words ("I don't know when Ben's math test is."): a later asking of the same question
    does not take that reply for the answer; a statement said since does answer it."""

    class Unsure:
        name = "unsure"

        async def stream(self, prompt: Any):  # type: ignore[no-untyped-def]
            asked = prompt.user_text.rstrip().endswith("?")
            if asked and "math test" in prompt.user_text and not prompt.recalled:
                yield "I don't know when Ben's math test is."
            else:
                yield "Sure."

    agent, asr = make_agent(tmp_path, responder=Unsure())
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "Hi, I'm Dana."))
        r = await agent.turn("acme", "s", audio=said(asr, DANA, "When is Ben's math test?"))
        assert r.intent == "chat" and r.hits == []
        agent.flush("acme")
        replies = agent.memory.list("acme", role="agent")
        assert any("math test" in s.transcript for s in replies)
        r = await agent.turn("acme", "s", audio=said(asr, DANA, "When is Ben's math test?", seed=1))
        assert r.intent == "chat" and r.hits == [], [h.transcript for h in r.hits]
        await agent.turn(
            "acme", "s", audio=said(asr, DANA, "Ben's math test is on Friday morning.")
        )
        agent.flush("acme")
        r = await agent.turn("acme", "s", audio=said(asr, DANA, "When is Ben's math test?", seed=2))
        assert r.intent == "recall" and r.hits
        assert r.hits[0].transcript == "Ben's math test is on Friday morning."


async def test_typed_words_carry_no_voice_even_after_a_spoken_turn(tmp_path: Path) -> None:
    """A typed turn in a session where Dana spoke is nobody's: no name in the reply, no
    "I" resolved to Dana, and no promise to remember what the memory does not keep."""
    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "Hi, I'm Dana."))
        await agent.turn("acme", "s", audio=said(asr, DANA, "The budget is two thousand."))
        r = await agent.turn("acme", "s", text="Ben's math test is on Thursday.")
        assert r.speaker_name is None and "Dana" not in r.reply
        assert "I'll remember" not in r.reply and "aloud" in r.reply
        r = await agent.turn("acme", "s", text="What did I say about the budget?")
        assert r.hits == [] and "typed words" in r.reply
        agent.flush("acme")
        users = [s.transcript for s in agent.memory.list("acme", role="user")]
        assert not any("math test" in t for t in users)
        # spoken again, the voice is known as before
        r = await agent.turn("acme", "s", audio=said(asr, DANA, "What did I say about the budget?"))
        assert r.speaker_name == "Dana" and r.hits


async def test_a_forget_naming_an_unknown_voice_erases_nothing(tmp_path: Path) -> None:
    """ "Forget what Carlos said about her sister" with no Carlos known (the ASR's
    "Carlos" for "Carla", say) must not become "forget what anyone said about her
    sister": nothing is offered, and a "yes" after it erases nothing."""
    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "Hi, I'm Dana."))
        await agent.turn("acme", "s", audio=said(asr, DANA, "My sister is called Anna."))
        await agent.turn("acme", "s", audio=said(asr, MARCO, "My sister lives in Rome."))
        agent.flush("acme")
        before = {s.id for s in agent.memory.list("acme")}
        # a forget waiting for its yes is dropped by the refused one
        r = await agent.turn(
            "acme", "s", audio=said(asr, MARCO, "Forget what I said about my sister.")
        )
        assert r.hits and "yes" in r.reply
        r = await agent.turn(
            "acme", "s", audio=said(asr, MARCO, "Forget what Carlos said about her sister.")
        )
        assert r.intent == "forget" and r.hits == []
        assert "Carlos" in r.reply and "erased nothing" in r.reply and "Dana" in r.reply
        r = await agent.turn("acme", "s", audio=said(asr, MARCO, "Yes."))
        agent.flush("acme")
        assert before <= {s.id for s in agent.memory.list("acme")}
        # a known name still forgets that voice's turns
        r = await agent.turn(
            "acme", "s", audio=said(asr, MARCO, "Forget what Dana said about her sister.")
        )
        assert r.hits and all(h.speaker_name == "Dana" for h in r.hits)


async def test_with_no_voice_named_a_forget_naming_someone_erases_nothing(
    tmp_path: Path,
) -> None:
    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "My sister is called Anna."))
        await agent.turn("acme", "s", audio=said(asr, MARCO, "My sister lives in Rome."))
        agent.flush("acme")
        r = await agent.turn(
            "acme", "s", audio=said(asr, MARCO, "Forget what Carlos said about her sister.")
        )
        assert r.intent == "forget" and r.hits == [] and "erased nothing" in r.reply


async def test_a_statement_holding_only_some_of_the_question_is_quoted_with_a_doubt(
    tmp_path: Path,
) -> None:
    """ "Where does my sister live?" after only "My sister's name is Anna.": the quote is
    the closest memory, not an answer, and the reply says so; a statement holding every
    word of the question comes first and is quoted plainly."""
    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "My sister's name is Anna."))
        agent.flush("acme")
        r = await agent.turn("acme", "s", audio=said(asr, DANA, "Where does my sister live?"))
        assert r.intent == "recall" and r.hits
        assert r.reply.startswith("I'm not sure this answers it.") and "Anna" in r.reply
        await agent.turn("acme", "s", audio=said(asr, DANA, "My sister lives in Porto."))
        agent.flush("acme")
        r = await agent.turn(
            "acme", "s", audio=said(asr, DANA, "Where does my sister live?", seed=1)
        )
        assert r.intent == "recall" and "Porto" in r.reply
        assert "not sure" not in r.reply


async def test_many_skipped_requests_still_leave_the_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recall makes room among its candidates for META_ROOM skipped turns (requests to
    the memory and their answers), and searches again with room for all of them when too
    few turns are left: the statement is found behind many askings of the same thing."""
    from voxmem.agent import graph

    monkeypatch.setattr(graph, "META_ROOM", 1)
    calls: list[int] = []
    real = graph.recall

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs["k"])
        return real(*args, **kwargs)

    monkeypatch.setattr(graph, "recall", counted)
    agent, asr = make_agent(tmp_path)
    async with agent:
        await agent.turn("acme", "s", audio=said(asr, DANA, "The budget is four thousand."))
        for i in range(3):
            await agent.turn(
                "acme", "s", audio=said(asr, DANA, "What did I say about the budget?", seed=i)
            )
            agent.flush("acme")
        skipped = len(agent.meta_turns("acme"))
        assert skipped >= 6
        calls.clear()
        r = await agent.turn(
            "acme", "s", audio=said(asr, DANA, "What did I say about the budget?", seed=9)
        )
        assert r.hits[0].transcript == "The budget is four thousand."
        assert not any("What did I say" in h.transcript for h in r.hits)
        k = agent.settings.agent.recall_k
        assert calls == [k + 1, k + skipped]  # room for one, then for all
