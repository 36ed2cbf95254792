"""A voice server process for the scale-out tests: the real ``VoiceServer`` and agent
over the fake encoders, on a shared catalog (PostgreSQL) and index (a Chroma server).

    python -m tests.serve_child DATA_DIR CATALOG_URL CHROMA_URL SPEECH_JSON

``SPEECH_JSON`` maps tone frequencies to what the pitch-keyed transcriber hears in
them; every process is given the same map, as every real server hears the same words
in the same audio. Prints ``PORT <n>`` once it listens; serves until SIGTERM.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path

from tests.agent_helpers import HummingSynthesizer
from tests.server_helpers import OTHER_TOKEN, TOKEN, PitchTranscriber
from voxmem.agent import VoiceAgent
from voxmem.memory import AudioMemory
from voxmem.memory.encoders.fake import fake_perception
from voxmem.server import TokenTable, VoiceServer
from voxmem.server.vad import EnergyStream
from voxmem.settings import Settings


async def serve(root: Path, catalog: str, chroma: str, speech: dict[str, str]) -> None:
    settings = Settings(
        data_dir=root,
        chroma={"url": chroma},
        catalog={"url": catalog, "audio": "database"},
        server={
            "warm_up": False,
            "vad": "energy",
            "truncate_wait_ms": 200,
            "listen_while_speaking": False,
        },
    )
    perception = fake_perception()
    asr = PitchTranscriber()
    for freq, text in speech.items():
        asr.register(float(freq), text)
    perception.transcriber = asr
    memory = AudioMemory(settings, perception)
    agent = VoiceAgent(memory, settings=settings, synthesizer_=HummingSynthesizer())
    table = TokenTable()
    table.add_token(TOKEN, "acme")
    table.add_token(OTHER_TOKEN, "globex")
    server = VoiceServer(agent, tokens=table, host="127.0.0.1", port=0, detector=EnergyStream)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with agent:
        await asyncio.to_thread(agent.warm_up)  # as voxmem serve does
        await server.start()
        print(f"PORT {server.port}", flush=True)
        await stop.wait()
        await server.close()


if __name__ == "__main__":
    asyncio.run(serve(Path(sys.argv[1]), sys.argv[2], sys.argv[3], json.loads(sys.argv[4])))
