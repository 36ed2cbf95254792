"""The agent end to end on the shipped models: a scripted conversation of three
synthetic voices over two sessions (benchmarks/agent_bench.py's SCRIPT), then the
local LLM and an OpenAI-compatible server as responders."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path

import pytest

from tests.agent_helpers import HummingSynthesizer, fake_memory, said
from voxmem.agent import VoiceAgent
from voxmem.agent.respond import LocalLLMResponder, OpenAIResponder, Prompt, RecalledTurn
from voxmem.benchmarks.agent_bench import SCRIPT, TENANT, run_script
from voxmem.benchmarks.synth import ClipCache
from voxmem.memory import AudioMemory
from voxmem.settings import Settings

pytestmark = pytest.mark.models


def test_scripted_conversation(tmp_path: Path, pytestconfig: pytest.Config) -> None:
    cache = ClipCache(pytestconfig.cache.mkdir("voxmem-synth"))
    settings = Settings(data_dir=tmp_path / "data")
    agent = VoiceAgent(AudioMemory(settings), settings=settings)

    async def go() -> list:  # type: ignore[type-arg]
        async with agent:
            return await run_script(agent, cache)

    turns = asyncio.run(go())
    assert len(turns) == sum(1 for line in SCRIPT if line.voice is not None)
    problems = {t.line.text: t.problems for t in turns if t.problems}
    assert not problems, problems
    by_text = {t.line.text: t.result for t in turns}
    # the agent speaks in its own voice (piper), 24 kHz PCM16, and times every node
    reply = by_text["What did I say about the budget?"]
    assert len(reply.audio) > 24_000 and reply.timings["first_audio"] > 0
    assert set(reply.timings) >= {"perceive", "route", "recall", "first_token", "speak"}
    # the agent's voice is a known speaker named after it, and its turns are stored
    memory = AudioMemory(settings)
    names = {s.name for s in memory.speakers(TENANT)}
    assert {"Dana", "Marco", "Peter", "Vox"} <= names
    agent_turns = memory.list(TENANT, role="agent", limit=1000)
    vox = next(s for s in memory.speakers(TENANT) if s.name == "Vox")
    assert agent_turns and all(s.speaker_id == vox.id for s in agent_turns)


def _who_pays() -> Prompt:
    turn = RecalledTurn(
        "seg_1",
        "monday",
        "spk_1",
        "Dana",
        "user",
        "The budget for the offsite comes from the marketing team.",
        0.0,
        3.0,
        time.time() - 3600,
        1.0,
    )
    return Prompt(
        "Who pays for the offsite?",
        "recall",
        speaker_name="Marco",
        recalled=[turn],
        session="tuesday",
        now=time.time(),
    )


def test_local_llm_answers_from_the_recalled_turn() -> None:
    responder = LocalLLMResponder(Settings())

    async def go() -> str:
        return "".join([p async for p in responder.stream(_who_pays())])

    text = asyncio.run(go())
    assert text.strip()
    assert "marketing" in text.lower()
    assert "Welcome back" not in text

    # the rules' greeting opens the model's reply, once
    greeted = dataclasses.replace(_who_pays(), greeting="Welcome back, Marco.")

    async def again() -> str:
        return "".join([p async for p in responder.stream(greeted)])

    text = asyncio.run(again())
    assert text.startswith("Welcome back, Marco. ") and text.count("Welcome back") == 1
    assert "marketing" in text.lower()


def test_openai_compatible_server_through_the_official_client(
    tmp_path: Path, local_chat_endpoint: tuple[str, str]
) -> None:
    """A real OpenAI-compatible server process (transformers serve with the shipped
    SmolLM2) on loopback, answered through the official openai client."""
    url, model = local_chat_endpoint
    responder = OpenAIResponder(url, "none", model, timeout=120)

    async def go() -> tuple[list[str], object]:
        pieces = [p async for p in responder.stream(_who_pays())]
        # and through the agent's own path: recall, then the endpoint answers
        memory, asr = fake_memory(tmp_path / "agent")
        agent = VoiceAgent(memory, responder=responder, synthesizer_=HummingSynthesizer())
        async with agent:
            fact = "The budget for the offsite comes from the marketing team."
            await agent.observe("acme", "s", audio=said(asr, 1, fact))
            result = await agent.turn(
                "acme", "s", audio=said(asr, 1, "What did I say about the budget?")
            )
        return pieces, result

    pieces, result = asyncio.run(go())
    assert len(pieces) > 1  # streamed, not one block
    assert "".join(pieces).strip()
    assert result.intent == "recall" and "marketing" in result.hits[0].transcript  # type: ignore[attr-defined]
    assert result.reply.strip() and result.audio  # type: ignore[attr-defined]
    assert not any("extractively" in n for n in result.notes)  # the endpoint answered  # type: ignore[attr-defined]


def test_a_turn_heard_while_spoken(tmp_path: Path, pytestconfig: pytest.Config) -> None:
    """A listener fed 100 ms at a time, then the server's silence window, has begun
    transcribing before the turn is committed, and the agent answers it like a whole
    clip."""
    from voxmem.benchmarks.agent_bench import BUDGET_DANA, DANA, Line, clip_for, spoken

    cache = ClipCache(pytestconfig.cache.mkdir("voxmem-synth"))
    settings = Settings(data_dir=tmp_path / "data")
    agent = VoiceAgent(AudioMemory(settings), settings=settings)
    fact = clip_for(Line("s", DANA, BUDGET_DANA), cache)
    question = clip_for(Line("s", DANA, "What did I say about the budget?"), cache)

    async def go() -> tuple[object, object, int]:
        async with agent:
            await asyncio.to_thread(agent.warm_up)
            heard = await spoken(agent, fact)
            passes = heard.started
            first = await agent.turn(TENANT, "s", audio=heard)
            second = await agent.turn(TENANT, "s", audio=await spoken(agent, question))
            return first, second, passes

    first, second, passes = asyncio.run(go())
    assert passes >= 1  # transcription began before the turn was committed
    assert "marketing" in first.transcript.lower()  # type: ignore[attr-defined]
    assert second.intent == "recall" and "marketing" in second.reply.lower()  # type: ignore[attr-defined]
