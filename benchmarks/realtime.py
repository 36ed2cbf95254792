"""A ``voxmem serve`` process on loopback and plain ``websockets`` Realtime callers that
stream audio into it in real time, for ``benchmarks run voice`` and ``voxmem demo``.

Nothing here imports ``voxmem.server``: the server is a separate process, spoken to
only through its websocket, as any Realtime client would.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

RATE = 24_000


@dataclass
class ServerProcess:
    proc: subprocess.Popen[bytes]
    port: int
    token: str
    log: Path

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/v1/realtime"


def voxmem_command() -> list[str]:
    exe = Path(sys.executable).parent / "voxmem"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("voxmem")
    return [found] if found else [sys.executable, "-c", "from voxmem.cli import main; main()"]


def write_token(file: Path, tenant: str) -> str:
    """A fresh token for ``tenant``; only its sha256 goes to ``file`` (as ``voxmem token``)."""
    token = "vxm_" + secrets.token_urlsafe(24)
    file.parent.mkdir(parents=True, exist_ok=True)
    if not file.exists():
        file.touch(mode=0o600)
    with file.open("a") as f:
        f.write(f"{hashlib.sha256(token.encode()).hexdigest()} {tenant}\n")
    return token


@contextlib.contextmanager
def served(
    folder: Path, data_dir: Path, tenant: str, *, warm_up: bool = True, timeout: float = 600.0
) -> Iterator[ServerProcess]:
    """``voxmem serve`` on a free loopback port over ``data_dir``; SIGTERM on exit (its
    queued memory writes finish before it stops)."""
    tokens = folder / "tokens.txt"
    token = write_token(tokens, tenant)
    log = folder / "server.log"
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    command = [
        *voxmem_command(),
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--token-file",
        str(tokens),
        "--data-dir",
        str(data_dir),
        "--warm-up" if warm_up else "--no-warm-up",
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        port = None
        end = time.monotonic() + timeout
        while port is None:
            text = log.read_text(errors="replace")
            for line in text.splitlines():
                if "listening on http://" in line:
                    port = int(line.split("http://", 1)[1].split()[0].rsplit(":", 1)[1])
            if port is None:
                if proc.poll() is not None:
                    raise RuntimeError(f"voxmem serve exited ({proc.returncode}):\n{text[-3000:]}")
                if time.monotonic() > end:
                    raise RuntimeError(f"voxmem serve did not start in {timeout:.0f} s")
                time.sleep(0.2)
        yield ServerProcess(proc, port, token, log)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(120)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def pcm24k(samples: np.ndarray, rate: int) -> bytes:
    """Float samples at ``rate`` as PCM16 at 24 kHz."""
    from math import gcd

    from scipy.signal import resample_poly

    x = np.asarray(samples, np.float64)
    if rate != RATE:
        g = gcd(RATE, rate)
        x = resample_poly(x, RATE // g, rate // g)
    return (np.clip(x, -1, 1) * 32767).astype("<i2").tobytes()


def speech_bounds_s(samples: np.ndarray, rate: int, floor_db: float = -35.0) -> tuple[float, float]:
    """Where speech starts and ends in a clip, seconds (frames within ``floor_db`` of the
    loudest one)."""
    x = np.asarray(samples, np.float64)
    frame = max(1, rate // 50)
    n = len(x) // frame
    if n == 0:
        return 0.0, len(x) / rate
    rms = np.sqrt(np.mean(x[: n * frame].reshape(n, frame) ** 2, axis=1) + 1e-12)
    loud = np.nonzero(20 * np.log10(rms / rms.max()) > floor_db)[0]
    if not len(loud):
        return 0.0, len(x) / rate
    return int(loud[0]) * frame / rate, (int(loud[-1]) + 1) * frame / rate


@dataclass
class Seen:
    at: float  # perf_counter when received
    event: dict[str, Any]


@dataclass
class Caller:
    """One Realtime session: a microphone that streams PCM16 24 kHz in real time
    (silence between what it is told to play, as a live microphone does) and a reader
    that keeps every server event with its arrival time (audio payloads dropped)."""

    url: str
    token: str
    session: str
    chunk_ms: int = 40
    silence_ms: int = 500
    events: list[Seen] = field(default_factory=list)
    #: perf_counter at stream position 0 (the audio at position p was spoken at t0 + p)
    t0: float = 0.0
    sent_samples: int = 0

    async def __aenter__(self) -> Caller:
        from websockets.asyncio.client import connect

        self._conn = connect(
            f"{self.url}?model=voxmem&session={self.session}",
            additional_headers={"Authorization": f"Bearer {self.token}"},
            max_size=4 << 20,
            open_timeout=60,
        )
        self.ws = await self._conn.__aenter__()
        first = json.loads(await asyncio.wait_for(self.ws.recv(), 60))
        if first["type"] != "session.created":
            raise RuntimeError(f"expected session.created, got {first}")
        await self.ws.send(
            json.dumps(
                {
                    "type": "session.update",
                    "session": {
                        "type": "realtime",
                        "audio": {
                            "input": {
                                "format": {"type": "audio/pcm", "rate": RATE},
                                "turn_detection": {
                                    "type": "server_vad",
                                    "silence_duration_ms": self.silence_ms,
                                    "create_response": True,
                                    "interrupt_response": True,
                                },
                            }
                        },
                    },
                }
            )
        )
        while True:
            ev = json.loads(await asyncio.wait_for(self.ws.recv(), 60))
            if ev["type"] == "session.updated":
                break
            if ev["type"] == "error":
                raise RuntimeError(f"session.update refused: {ev}")
        self._news = asyncio.Event()
        self._queue: list[bytes] = []
        self._played = asyncio.Event()
        self._stop = False
        self.t0 = time.perf_counter()
        self._reader = asyncio.create_task(self._read())
        self._sender = asyncio.create_task(self._send())
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._stop = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._sender, 5)
        await self._conn.__aexit__(None, None, None)
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)

    async def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for message in self.ws:
                ev = json.loads(message)
                if ev.get("type") == "response.output_audio.delta":
                    ev["bytes"] = len(base64.b64decode(ev.pop("delta", "")))
                self.events.append(Seen(time.perf_counter(), ev))
                self._news.set()
        except ConnectionClosed:
            pass

    async def _send(self) -> None:
        step = RATE * self.chunk_ms // 1000
        silence = bytes(2 * step)
        while not self._stop:
            if self._queue:
                head = self._queue[0]
                chunk, rest = head[: 2 * step], head[2 * step :]
                if rest:
                    self._queue[0] = rest
                else:
                    self._queue.pop(0)
                    if not self._queue:
                        self._played.set()
                chunk = chunk.ljust(2 * step, b"\0")
            else:
                chunk = silence
            # a chunk goes out once it has been "recorded": at the time of its end
            due = self.t0 + (self.sent_samples + step) / RATE
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            audio = base64.b64encode(chunk).decode()
            await self.ws.send(json.dumps({"type": "input_audio_buffer.append", "audio": audio}))
            self.sent_samples += step

    def wall(self, position_s: float) -> float:
        """When the audio at stream position ``position_s`` was spoken (perf_counter)."""
        return self.t0 + position_s

    def play(self, pcm: bytes) -> float:
        """Start speaking ``pcm`` after what is queued; returns its stream position, s."""
        step = RATE * self.chunk_ms // 1000
        queued = sum(len(b) for b in self._queue) // 2
        # round the queue up to whole chunks (the last one was padded with silence)
        queued = -(-queued // step) * step
        start = (self.sent_samples + queued) / RATE
        self._played.clear()
        self._queue.append(pcm)
        return start

    async def played(self) -> None:
        await self._played.wait()

    async def wait(
        self, match: Callable[[dict[str, Any]], bool], since: int = 0, timeout: float = 120.0
    ) -> tuple[int, Seen]:
        """The first event from index ``since`` on that ``match``es: (index, event)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        i = since
        while True:
            while i < len(self.events):
                if match(self.events[i].event):
                    return i, self.events[i]
                i += 1
            self._news.clear()
            left = end - loop.time()
            if left <= 0:
                raise TimeoutError(f"no matching event within {timeout:.0f} s")
            if self._reader.done():
                raise ConnectionError("the server closed the session")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._news.wait(), min(left, 1.0))


def of_type(kind: str, **fields: Any) -> Callable[[dict[str, Any]], bool]:
    return lambda e: e.get("type") == kind and all(e.get(k) == v for k, v in fields.items())


@dataclass
class Exchange:
    """One spoken turn and the response it got, timed on the caller's clock."""

    speech_start: float  # wall time the caller began to speak
    speech_end: float  # wall time the caller stopped speaking
    speech_stopped: dict[str, Any] | None = None
    vad_end: float | None = None  # wall time of speech_stopped's audio_end_ms
    response_id: str | None = None
    first_audio: float | None = None
    last_audio: float | None = None
    done: dict[str, Any] | None = None
    transcription: dict[str, Any] | None = None
    retrieval: dict[str, Any] | None = None
    started_index: int = 0

    @property
    def replied(self) -> bool:
        return self.first_audio is not None

    def reply_text(self) -> str:
        if self.done is None:
            return ""
        out = self.done["response"].get("output") or []
        if not out:
            return ""
        parts = out[0].get("content") or [{}]
        return str(parts[0].get("transcript") or parts[0].get("text") or "")


async def exchange(
    caller: Caller,
    pcm: bytes,
    bounds: tuple[float, float],
    *,
    timeout: float = 180.0,
    until_done: bool = True,
) -> Exchange:
    """Speak ``pcm`` (speech between ``bounds`` seconds of it) and follow the response
    it starts: to its first audio delta, and with ``until_done`` to ``response.done``."""
    since = len(caller.events)
    start = caller.play(pcm)
    ex = Exchange(caller.wall(start + bounds[0]), caller.wall(start + bounds[1]))
    ex.started_index = since
    i, created = await caller.wait(of_type("response.created"), since, timeout)
    ex.response_id = created.event["response"]["id"]
    for seen in reversed(caller.events[since:i]):
        if seen.event["type"] == "input_audio_buffer.speech_stopped":
            ex.speech_stopped = seen.event
            ex.vad_end = caller.wall(seen.event["audio_end_ms"] / 1000)
            break
    rid = ex.response_id
    _, first = await caller.wait(
        lambda e: (
            (e["type"] == "response.output_audio.delta" and e.get("response_id") == rid)
            or (e["type"] == "response.done" and e["response"]["id"] == rid)
        ),
        i,
        timeout,
    )
    if first.event["type"] == "response.output_audio.delta":
        ex.first_audio = first.at
    if until_done:
        await finish(caller, ex, timeout)
    return ex


async def finish(caller: Caller, ex: Exchange, timeout: float = 180.0) -> None:
    """Wait for the exchange's ``response.done``; collect what came with it."""
    rid = ex.response_id
    _, done = await caller.wait(
        lambda e: e["type"] == "response.done" and e["response"]["id"] == rid,
        ex.started_index,
        timeout,
    )
    ex.done = done.event
    for seen in caller.events[ex.started_index :]:
        e = seen.event
        if e["type"] == "response.output_audio.delta" and e.get("response_id") == rid:
            ex.last_audio = seen.at
        elif e["type"] == "memory.retrieval.completed" and e.get("response_id") == rid:
            ex.retrieval = e
        elif (
            e["type"] == "conversation.item.input_audio_transcription.completed"
            and ex.transcription is None
        ):
            ex.transcription = e
