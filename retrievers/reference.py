"""Reference clips ("more from this voice", "what comes next in this conversation").

A clip is encoded with the memory's own encoders, only in the spaces a plan compares
it in, and transcribed only when the plan takes its words (the decode runs in a thread
beside the encoders). Encodings are cached by a
hash of the clip's samples (a bounded LRU per set of encoders), so asking several
things about one clip encodes it once. The transcript comes from a short decode:
whisper's encoder is run on the clip's own length (plus a margin, at least 5 s)
rather than a 30 s window, greedy, without timestamps, in the configured language,
on the first ``REFERENCE_SECONDS`` of the clip; a decode that runs away (hits its
length cap) falls back to the transcriber's full decode.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from voxmem.audio import Audio, AudioSource, load_audio
from voxmem.memory.encoders.base import RelativeStyleEncoder
from voxmem.memory.perception import Perception
from voxmem.memory.store import AudioMemory

#: encodings kept (one entry per clip and set of encoders)
CACHE_SIZE = 64
#: seconds of a reference clip that are transcribed
REFERENCE_SECONDS = 15.0


@dataclass
class Reference:
    """What the memory's encoders see in a reference clip. ``vectors["text"]``, when
    the clip was transcribed, is its words embedded as a query (recall's content
    vector when a plan takes the clip's words)."""

    audio: Audio
    vectors: dict[str, np.ndarray]
    transcript: str

    @classmethod
    def encode(
        cls,
        memory: AudioMemory,
        clip: AudioSource | Audio,
        sample_rate: int | None = None,
        transcribe: bool = True,
        spaces: Sequence[str] = ("speaker", "style", "environment"),
    ) -> Reference:
        """Encode ``clip`` in ``spaces`` only; ASR (most of the cost) only with
        ``transcribe``, which plans that match the reference's own words need.
        Whatever this clip already had encoded by the same encoders is reused."""
        audio = load_audio(clip, sample_rate=sample_rate, require_speech=True)
        p = memory.perception
        entry = CACHE.entry(p, audio)
        with entry.lock:
            vectors = entry.vectors
            encoders = {"speaker": p.speaker, "style": p.style, "environment": p.environment}
            todo = [s for s in spaces if s not in vectors and s in encoders]
            with contextlib.ExitStack() as stack:
                words = None
                if transcribe and entry.transcript is None:
                    # the decode, most of the cost and much of it one core's work, runs
                    # beside the encoders
                    pool = stack.enter_context(ThreadPoolExecutor(max_workers=1))
                    words = pool.submit(transcribe_reference, p, audio)
                for space in todo:
                    if space == "style" and isinstance(p.style, RelativeStyleEncoder):
                        # the raw functionals too, to judge the clip against its speaker's
                        # habits
                        raw = p.style.features([audio])
                        vectors["style_raw"] = _frozen(raw[0])
                        vectors["style"] = _frozen(p.style.vectors(raw)[0])
                    else:
                        vectors[space] = _frozen(encoders[space].embed([audio])[0])
                if words is not None:  # both or neither: a failure leaves nothing cached
                    said = words.result()
                    # embedded as a query: what recall matches the stored turns with
                    vectors["text"] = _frozen(p.text.queries([said])[0])
                    entry.transcript = said
            wanted = set(spaces) | ({"style_raw"} if "style" in spaces else set())
            wanted |= {"text"} if transcribe else set()
            return cls(
                audio,
                {k: v for k, v in vectors.items() if k in wanted},
                entry.transcript or "" if transcribe else "",
            )


def _frozen(v: np.ndarray) -> np.ndarray:
    """A cached vector is shared: callers may read it, never change it."""
    v = np.array(v, copy=True)
    v.setflags(write=False)
    return v


class _Entry:
    def __init__(self, perception: Any) -> None:
        self.owner = weakref.ref(perception)
        self.vectors: dict[str, np.ndarray] = {}
        self.transcript: str | None = None
        self.lock = threading.Lock()


class EncodingCache:
    """Encodings of reference clips by (encoders, hash of the samples and rate), least
    recently used first out. An entry is only ever read back for the very encoder set
    (the same ``Perception`` object, still alive) that filled it."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._entries: OrderedDict[tuple[int, str], _Entry] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(audio: Audio) -> str:
        samples = np.ascontiguousarray(audio.samples, dtype=np.float32)
        h = hashlib.blake2b(samples.tobytes(), digest_size=16)
        h.update(str(audio.sample_rate).encode())
        return h.hexdigest()

    def entry(self, perception: Any, audio: Audio) -> _Entry:
        key = (id(perception), self.key(audio))
        with self._lock:
            found = self._entries.get(key)
            if found is None or found.owner() is not perception:
                found = self._entries[key] = _Entry(perception)
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
            return found

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


CACHE = EncodingCache()


def transcribe_reference(perception: Perception, audio: Audio) -> str:
    """The words of a reference clip: the first ``REFERENCE_SECONDS`` of it, by the
    transcriber's quick decode of a short clip where it has one."""
    return perception.clip_text(audio.slice(0.0, min(audio.duration, REFERENCE_SECONDS)))
