"""The official ``openai`` package as an external Realtime client: only its base URL
and API key point at voxmem. Fast with the fake agent; end to end with the shipped
models under ``-m models``."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.server_helpers import OTHER_TOKEN, TOKEN, fake_server, spoken

openai = pytest.importorskip("openai", reason="the openai package is the reference client")


async def _converse(port: int, token: str, pcm: bytes, timeout: float = 60.0) -> list[Any]:
    """One spoken turn through ``client.realtime.connect``; every event it received."""
    import asyncio

    client = openai.AsyncOpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key=token)
    got: list[Any] = []
    async with client.realtime.connect(model="voxmem") as conn:
        await conn.session.update(
            session={
                "type": "realtime",
                "instructions": "Be brief.",
                "audio": {
                    "input": {
                        "format": {"type": "audio/pcm", "rate": 24000},
                        "turn_detection": {"type": "server_vad", "silence_duration_ms": 500},
                    }
                },
            }
        )
        step = 4800  # 100 ms at 24 kHz, PCM16
        for i in range(0, len(pcm), step):
            await conn.input_audio_buffer.append(audio=base64.b64encode(pcm[i : i + step]).decode())

        async def read() -> None:
            async for event in conn:
                got.append(event)
                if event.type == "response.done":
                    return

        await asyncio.wait_for(read(), timeout)
    await client.close()
    return got


def _check_turn(events: list[Any]) -> tuple[str, bytes]:
    types = [e.type for e in events]
    assert types[0] == "session.created"
    assert "session.updated" in types
    assert "input_audio_buffer.speech_started" in types
    assert "input_audio_buffer.committed" in types
    heard = [e for e in events if e.type == "conversation.item.input_audio_transcription.completed"]
    assert len(heard) == 1
    audio = b"".join(
        base64.b64decode(e.delta) for e in events if e.type == "response.output_audio.delta"
    )
    assert len(audio) > 24_000  # more than half a second of reply
    done = events[-1]
    assert done.type == "response.done" and done.response.status == "completed"
    # the package parsed our events into its own models
    from openai.types.realtime import ResponseDoneEvent, SessionCreatedEvent

    assert isinstance(events[0], SessionCreatedEvent)
    assert isinstance(done, ResponseDoneEvent)
    return heard[0].transcript, audio


async def test_openai_realtime_client_talks_to_the_server(tmp_path: Path) -> None:
    async with fake_server(tmp_path) as s:
        s.asr.register(300, "hello, who are you?")
        events = await _converse(s.server.port, TOKEN, spoken(300, seconds=1.2))
        transcript, audio = _check_turn(events)
        assert transcript == "hello, who are you?"
        reply = "".join(
            e.delta for e in events if e.type == "response.output_audio_transcript.delta"
        )
        assert "Vox" in reply
        assert np.abs(np.frombuffer(audio, "<i2")).max() > 1000  # audible, not silence


async def test_openai_client_with_a_bad_key_gets_401(tmp_path: Path) -> None:
    async with fake_server(tmp_path, tokens={OTHER_TOKEN: "globex"}) as s:
        client = openai.AsyncOpenAI(base_url=f"http://127.0.0.1:{s.server.port}/v1", api_key="nope")
        with pytest.raises(Exception) as info:
            async with client.realtime.connect(model="voxmem") as conn:
                await conn.recv()
        assert "401" in str(info.value)
        await client.close()


@pytest.mark.models
async def test_openai_client_end_to_end_with_the_shipped_models(
    tmp_path: Path, clip_cache: Any
) -> None:
    """The real server process path: shipped ASR, VAD, voice and TTS."""
    from scipy.signal import resample_poly

    from voxmem.agent import VoiceAgent
    from voxmem.benchmarks.synth import Utterance, render
    from voxmem.server import TokenTable, VoiceServer
    from voxmem.settings import Settings

    settings = Settings(data_dir=tmp_path, asr={"language": "en"})
    text = "Hello, my name is Dana. The budget is forty thousand dollars."
    clip = render(Utterance(text=text, voice="flite-slt"), clip_cache)
    x = resample_poly(clip.samples, 3, 2)  # 16 kHz -> 24 kHz
    pcm = np.clip(np.concatenate([np.zeros(7200), x, np.zeros(24_000)]), -1, 1) * 32767
    tokens = TokenTable()
    tokens.add_token(TOKEN, "acme")
    async with VoiceAgent.open(tmp_path, settings=settings) as agent:
        server = VoiceServer(agent, tokens=tokens, host="127.0.0.1", port=0)
        async with server:
            events = await _converse(server.port, TOKEN, pcm.astype("<i2").tobytes(), 180)
    transcript, _ = _check_turn(events)
    assert "budget" in transcript.lower()
    latency = events[-1].response.voxmem["latency"]  # ours, kept by the package's model
    print("latency:", latency, "timings:", events[-1].response.voxmem["timings"])
    assert latency["speech_end_to_first_audio_ms"] > 0
