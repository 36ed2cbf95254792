"""Helpers for the voice server tests: a fake agent behind a real server on loopback,
"speech" made of tones that a fake transcriber hears by pitch, and a plain
``websockets`` Realtime client."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from websockets.asyncio.client import ClientConnection, connect

from tests.agent_helpers import HummingSynthesizer, fake_memory
from voxmem.agent import VoiceAgent
from voxmem.audio import Audio
from voxmem.memory.encoders.asr import Transcript, Word
from voxmem.server import TokenTable, VoiceServer
from voxmem.server.vad import EnergyStream
from voxmem.settings import Settings

TOKEN = "test-token-acme"
OTHER_TOKEN = "test-token-globex"


class PitchTranscriber:
    """Hears a registered sentence in a clip by its strongest frequency (so it still
    hears it after the clip went through PCM16, resampling and VAD cutting)."""

    name = "pitch-asr"
    sample_rate = 16_000

    def __init__(self) -> None:
        self.texts: dict[float, str] = {}

    def register(self, freq: float, text: str) -> None:
        self.texts[freq] = text

    def transcribe(self, audio: Audio) -> Transcript:
        x = np.asarray(audio.samples, np.float64)
        if len(x) < 256 or not self.texts or np.sqrt(np.mean(x**2)) < 1e-3:
            return Transcript("", "en", [])
        spec = np.abs(np.fft.rfft(x * np.hanning(len(x))))
        peak = float(np.fft.rfftfreq(len(x), 1 / audio.sample_rate)[int(np.argmax(spec))])
        freq = min(self.texts, key=lambda f: abs(f - peak))
        text = self.texts[freq] if abs(freq - peak) < 25 else ""
        words = text.split()
        step = audio.duration / max(1, len(words))
        return Transcript(
            text, "en", [Word(w, i * step, (i + 1) * step, 1.0) for i, w in enumerate(words)]
        )


def tone(freq: float, seconds: float, rate: int = 24_000, level: float = 0.3) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    ramp = np.minimum(1.0, np.minimum(t, seconds - t) / 0.02)
    return (level * ramp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def silence(seconds: float, rate: int = 24_000) -> np.ndarray:
    return np.zeros(int(seconds * rate), np.float32)


def pcm16(samples: np.ndarray) -> bytes:
    return (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()


def spoken(freq: float, seconds: float = 1.0, rate: int = 24_000, tail: float = 0.8) -> bytes:
    """A 'sentence' (a tone) with silence before and after, as PCM16."""
    return pcm16(
        np.concatenate([silence(0.3, rate), tone(freq, seconds, rate), silence(tail, rate)])
    )


@dataclass
class Served:
    server: VoiceServer
    agent: VoiceAgent
    asr: PitchTranscriber

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.server.port}/v1/realtime"


@contextlib.asynccontextmanager
async def fake_server(
    root: Path, *, tokens: dict[str, str] | None = None, **server_settings: Any
) -> AsyncIterator[Served]:
    """A real ``VoiceServer`` on loopback over a fake agent (fake encoders, a
    pitch-keyed transcriber, a humming voice) with a level-gate VAD."""
    memory, _ = fake_memory(root)
    asr = PitchTranscriber()
    memory.perception.transcriber = asr
    settings = Settings(
        data_dir=root,
        server={
            "warm_up": False,
            "vad": "energy",
            "truncate_wait_ms": 200,
            "listen_while_speaking": False,
            **server_settings,
        },
    )
    agent = VoiceAgent(memory, settings=settings, synthesizer_=HummingSynthesizer())
    table = TokenTable()
    for token, tenant in (tokens or {TOKEN: "acme", OTHER_TOKEN: "globex"}).items():
        table.add_token(token, tenant)
    server = VoiceServer(agent, tokens=table, host="127.0.0.1", port=0, detector=EnergyStream)
    async with agent:
        await server.start()
        try:
            yield Served(server, agent, asr)
        finally:
            await server.close()


class Client:
    """A Realtime client on a plain websocket: send dicts, read events by type."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.seen: list[dict[str, Any]] = []

    async def send(self, event: dict[str, Any] | str | bytes) -> None:
        await self.ws.send(event if isinstance(event, (str, bytes)) else json.dumps(event))

    async def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        event: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        self.seen.append(event)
        return event

    async def until(
        self, kind: str | Callable[[dict[str, Any]], bool], timeout: float = 15.0
    ) -> dict[str, Any]:
        """Read events until one of type ``kind`` (or matching it) arrives."""
        match = (lambda e: e["type"] == kind) if isinstance(kind, str) else kind
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            event = await self.recv(max(0.01, end - loop.time()))
            if match(event):
                return event

    async def append(self, pcm: bytes, chunk_ms: int = 100, rate: int = 24_000) -> None:
        step = 2 * int(rate * chunk_ms / 1000)
        for i in range(0, len(pcm), step):
            await self.send(
                {
                    "type": "input_audio_buffer.append",
                    "audio": base64.b64encode(pcm[i : i + step]).decode(),
                }
            )

    def types(self) -> list[str]:
        return [e["type"] for e in self.seen]


@contextlib.asynccontextmanager
async def client(
    url: str, token: str | None = TOKEN, query: str = "", **kwargs: Any
) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with connect(url + query, additional_headers=headers, **kwargs) as ws:
        c = Client(ws)
        first = await c.recv()
        assert first["type"] == "session.created", first
        yield c


def audio_of(events: list[dict[str, Any]], response_id: str | None = None) -> bytes:
    return b"".join(
        base64.b64decode(e["delta"])
        for e in events
        if e["type"] == "response.output_audio.delta"
        and (response_id is None or e["response_id"] == response_id)
    )


def masked_frame(text: bytes) -> bytes:
    """One client text frame, masked as RFC 6455 requires, built by hand."""
    import os

    mask = os.urandom(4)
    n = len(text)
    head = bytes([129, 128 | n]) if n < 126 else bytes([129, 128 | 126]) + n.to_bytes(2, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(text))


def stalled_socket(port: int, token: str = TOKEN) -> Any:
    """A websocket client that upgrades and then never reads (a tiny receive buffer)."""
    import os
    import socket

    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            "GET /v1/realtime HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Authorization: Bearer {token}\r\n\r\n"
        ).encode()
    )
    sock.setblocking(False)
    return sock
