"""Hearing a turn while it is spoken.

Transcribing a 3 s turn after it ends costs most of an 800 ms reply budget on two
cores, so a live front end (the websocket server) feeds the user's audio to a
``Listener`` as it arrives: each time enough new speech has piled up, the stretch
up to the quietest point in it is transcribed in the background, so that when the
turn ends only its tail is left to transcribe. ``finish()`` returns the turn as the
memory keeps it (transcript, word times, the four embeddings), and
``VoiceAgent.stream(audio=listener)`` answers it like any other turn.

A live turn is one person speaking (the server's VAD cuts turns), so no
diarization runs: the speech between the first and last loud frame is the turn.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from voxmem.audio import TARGET_RATE, Audio, load_audio, resample
from voxmem.errors import EmptyAudio
from voxmem.memory.perception import PerceivedTurn
from voxmem.memory.records import Word

if TYPE_CHECKING:
    from voxmem.agent.agent import VoiceAgent


@dataclass(frozen=True)
class ListenerParams:
    #: a pause this long after speech starts transcribing what was said so far, seconds
    #: (speculatively: a server commits the turn only after its longer silence window)
    pause_s: float = 0.2
    #: speech without any pause is transcribed in pieces of at most this long, seconds
    max_window_s: float = 8.0
    #: a piece with no pause ends at the quietest 30 ms frame in its last part, seconds
    search_s: float = 1.0
    #: speech kept around the loud part of the turn, seconds
    margin_s: float = 0.15
    #: frames this far below the loudest so far are silence, dB
    floor_db: float = -35.0
    #: and frames below this level always are (about -60 dBFS)
    silence_rms: float = 1e-3


@dataclass
class _Progress:
    done: int = 0  # samples transcribed (ends at a pause, so a valid prefix)
    words: list[Word] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    language: str | None = None


class Listener:
    """The user's audio, fed as it arrives (16 kHz float32, or PCM16 at ``sample_rate``)."""

    def __init__(
        self,
        agent: VoiceAgent,
        tenant: str | None = None,
        sample_rate: int = TARGET_RATE,
        params: ListenerParams | None = None,
    ) -> None:
        self.agent = agent
        self.tenant = tenant
        self.sample_rate = sample_rate
        self.params = params or ListenerParams()
        self._parts: list[np.ndarray] = []
        self._n = 0
        self._peak = 0.0
        self._tail = np.zeros(0, np.float32)
        #: the sample just after the last loud frame (0: nothing loud yet)
        self._last_loud = 0
        self._progress = _Progress()
        self._lock = threading.Lock()
        self._job: threading.Thread | None = None
        #: the turn perceived as it stood at a pause: (last loud sample then, the turn)
        self._ready: tuple[int, PerceivedTurn] | None = None
        self._closed = False
        self._finishing = False
        #: background passes begun and finished
        self.started = 0
        self.passes = 0

    @property
    def seconds(self) -> float:
        return self._n / TARGET_RATE

    def feed(self, audio: bytes | np.ndarray) -> None:
        """Add audio; at a pause, what was said so far is transcribed in the background."""
        if self._closed:
            raise RuntimeError("this turn is finished; start a new Listener")
        if isinstance(audio, bytes | bytearray | memoryview):
            samples = np.frombuffer(bytes(audio), "<i2").astype(np.float32) / 32768.0
        else:
            samples = np.asarray(audio, np.float32).reshape(-1)
        if self.sample_rate != TARGET_RATE:
            samples = resample(samples, self.sample_rate, TARGET_RATE)
        if not len(samples):
            return
        with self._lock:
            # levels by whole 30 ms frames, across chunk boundaries (clients send 20 ms)
            held = len(self._tail)
            framed = np.concatenate([self._tail, samples]) if held else samples
            whole = len(framed) // 480 * 480
            rms = _frames(framed[:whole])
            self._tail = framed[whole:]
            start = self._n - held
            self._parts.append(samples)
            self._n += len(samples)
            if len(rms):
                self._peak = max(self._peak, float(rms.max()))
                floor = max(self.params.silence_rms, self._peak * 10 ** (self.params.floor_db / 20))
                loud = np.nonzero(rms > floor)[0]
                if len(loud):
                    self._last_loud = start + (int(loud[-1]) + 1) * 480
        self._maybe_start()

    def _audio(self) -> np.ndarray:
        with self._lock:
            if len(self._parts) > 1:
                self._parts = [np.concatenate(self._parts)]
            return self._parts[0] if self._parts else np.zeros(0, np.float32)

    def _maybe_start(self) -> None:
        p = self.params
        if self._job is not None and self._job.is_alive():
            return
        done, loud, n = self._progress.done, self._last_loud, self._n
        if loud <= done:
            return  # nothing new was said
        margin = int(p.margin_s * TARGET_RATE)
        if n - loud >= int(p.pause_s * TARGET_RATE):
            end = min(n, loud + margin)  # a pause: everything said so far
        elif n - done >= int(p.max_window_s * TARGET_RATE):
            end = _quietest(self._audio(), done, n, int(p.search_s * TARGET_RATE))
        else:
            return
        self._job = threading.Thread(
            target=self._pass, args=(self._audio(), done, end, loud), daemon=True
        )
        self.started += 1
        self._job.start()

    def _pass(self, samples: np.ndarray, start: int, end: int, loud: int) -> None:
        self._transcribe(samples, start, end)
        if self._last_loud == loud and not self._closed:
            # still quiet: perceive the turn as it stands, in case it ends here
            turn = self._perceive(samples[: max(end, loud)])
            if turn is not None and self._last_loud == loud:
                self._ready = (loud, turn)

    def _transcribe(self, samples: np.ndarray, start: int, end: int) -> None:
        piece = samples[start:end]
        if _loud(piece, self.params.floor_db):
            t = self.agent.transcribe(Audio(piece.copy(), TARGET_RATE), self.tenant)
            offset = start / TARGET_RATE
            self._progress.words += [
                Word(w.text, w.start + offset, w.end + offset, w.probability) for w in t.words
            ]
            if t.text.strip():
                self._progress.texts.append(t.text.strip())
            self._progress.language = self._progress.language or t.language
        self._progress.done = end
        self.passes += 1

    def _perceive(self, samples: np.ndarray) -> PerceivedTurn | None:
        text = " ".join(self._progress.texts).strip()
        span = _speech_span(samples, self.params)
        if not text or span is None:
            return None
        start, end = span
        clip = load_audio(samples[start:end], sample_rate=TARGET_RATE)
        offset = start / TARGET_RATE
        words = [
            Word(w.text, w.start - offset, w.end - offset, w.probability)
            for w in self._progress.words
        ]
        turn = self.agent.embed_turn(clip, text, words)
        turn.language = self._progress.language
        return turn

    async def finish(self) -> list[PerceivedTurn]:
        """The whole turn, perceived: whatever is left transcribed, then the embeddings
        (both already done when the turn ended at a pause the listener heard). An
        empty list when there was no speech."""
        if self._finishing:
            raise RuntimeError("this listener's turn was already finished or cancelled")
        self._finishing = self._closed = True
        if self._job is not None:
            await asyncio.to_thread(self._job.join)
        samples = self._audio()
        if not len(samples):
            raise EmptyAudio("no audio was fed for this turn; send audio before committing")
        if self._ready is not None and self._ready[0] == self._last_loud:
            return [self._ready[1]]
        if self._progress.done < self._last_loud:
            await asyncio.to_thread(self._transcribe, samples, self._progress.done, len(samples))
        turn = await asyncio.to_thread(self._perceive, samples)
        return [turn] if turn is not None else []

    def cancel(self) -> None:
        """Drop this turn (the speech never became one): no more passes start, and a
        running one's result is never used."""
        self._closed = self._finishing = True

    @property
    def closed(self) -> bool:
        return self._closed

    def audio(self) -> Audio:
        """Everything fed so far (16 kHz)."""
        return Audio(self._audio().copy(), TARGET_RATE)


def _frames(x: np.ndarray, frame: int = 480) -> np.ndarray:
    n = len(x) // frame
    if n == 0:
        return np.zeros(0)
    return np.sqrt(np.mean(x[: n * frame].reshape(n, frame) ** 2, axis=1) + 1e-12)


def _loud(x: np.ndarray, floor_db: float) -> bool:
    rms = _frames(x)
    return bool(len(rms)) and float(rms.max()) > 10 ** (floor_db / 20) * 0.5


def _quietest(x: np.ndarray, start: int, end: int, search: int, frame: int = 480) -> int:
    """The sample index of the quietest frame in the last ``search`` samples before ``end``."""
    lo = max(start + frame, end - search)
    rms = _frames(x[lo:end], frame)
    if not len(rms):
        return end
    return lo + int(np.argmin(rms)) * frame + frame // 2


def _speech_span(x: np.ndarray, p: ListenerParams, frame: int = 480) -> tuple[int, int] | None:
    rms = _frames(x, frame)
    if not len(rms) or rms.max() < 1e-4:
        return None
    loud = np.nonzero(20 * np.log10(rms / rms.max()) > p.floor_db)[0]
    if not len(loud):
        return None
    margin = int(p.margin_s * TARGET_RATE)
    start = max(0, int(loud[0]) * frame - margin)
    end = min(len(x), (int(loud[-1]) + 1) * frame + margin)
    return (start, end) if end - start >= int(0.1 * TARGET_RATE) else None


__all__ = ["Listener", "ListenerParams"]
