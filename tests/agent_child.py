"""A process that talks to the agent, then is killed with queued writes (see
tests/test_agent.py::test_a_crash_loses_only_queued_turns)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from tests.agent_helpers import HummingSynthesizer, fake_memory, said
from voxmem.agent import VoiceAgent


async def main(root: Path) -> None:
    memory, asr = fake_memory(root)
    agent = VoiceAgent(memory, synthesizer_=HummingSynthesizer())
    await agent.start()
    for i in range(3):
        await agent.turn("acme", "s", audio=said(asr, 1, f"Kept fact number {i}.", seed=i))
    agent.flush("acme")
    print("flushed", flush=True)
    agent.writer.submit("acme", "a slow disk", lambda: time.sleep(60))
    for i in range(2):
        await agent.turn("acme", "s", audio=said(asr, 1, f"Queued fact number {i}.", seed=10 + i))
    print("queued", flush=True)
    await asyncio.sleep(120)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
