"""PCM16 in and out of a session: the input buffer on the session's audio timeline,
and a streaming resampler that feeds the speech detector 16 kHz frames."""

from __future__ import annotations

import numpy as np
from scipy.signal import firwin, lfilter

DETECTOR_RATE = 16_000


def pcm16_to_float(pcm: bytes) -> np.ndarray:
    return np.frombuffer(pcm, "<i2").astype(np.float32) / 32768.0


def float_to_pcm16(samples: np.ndarray) -> bytes:
    return (np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()


def pcm_ms(n_bytes: int, rate: int) -> float:
    """Milliseconds of PCM16 mono audio in ``n_bytes``."""
    return 1000.0 * (n_bytes // 2) / rate


class StreamResampler:
    """24 kHz -> 16 kHz (up 2, low-pass, down 3) across chunk boundaries: the filter
    state and the decimation phase carry over, so chunking never clicks."""

    def __init__(self, rate: int) -> None:
        if rate not in (DETECTOR_RATE, 24_000):
            raise ValueError(f"no streaming resampler from {rate} Hz")
        self.rate = rate
        self._taps = firwin(63, 7_600, fs=48_000) * 2.0  # x2: the zeros the upsampling adds
        self._zi = np.zeros(len(self._taps) - 1)
        self._phase = 0

    def __call__(self, samples: np.ndarray) -> np.ndarray:
        if self.rate == DETECTOR_RATE or not len(samples):
            return samples.astype(np.float32)
        up = np.zeros(2 * len(samples))
        up[::2] = samples
        filtered, self._zi = lfilter(self._taps, 1.0, up, zi=self._zi)
        out = filtered[self._phase :: 3]
        self._phase = (self._phase - len(up)) % 3
        return out.astype(np.float32)


class InputBuffer:
    """Input audio not yet committed, as PCM16 at the session's rate, placed on the
    session's timeline (milliseconds since its first appended sample)."""

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self._data = bytearray()
        #: session time of the first byte held, in samples
        self._origin = 0

    @property
    def end_sample(self) -> int:
        return self._origin + len(self._data) // 2

    @property
    def start_ms(self) -> float:
        return 1000.0 * self._origin / self.rate

    @property
    def end_ms(self) -> float:
        return 1000.0 * self.end_sample / self.rate

    @property
    def duration_ms(self) -> float:
        return pcm_ms(len(self._data), self.rate)

    def append(self, pcm: bytes) -> None:
        self._data += pcm

    def take(self, start_ms: float | None = None, end_ms: float | None = None) -> bytes:
        """The audio between two session times (default: all), removed with all before it."""
        a = self._index(start_ms) if start_ms is not None else 0
        b = self._index(end_ms) if end_ms is not None else len(self._data)
        out = bytes(self._data[a:b])
        self.drop_before(end_ms if end_ms is not None else self.end_ms)
        return out

    def view(self, start_ms: float) -> bytes:
        """The audio from session time ``start_ms`` to the end, left in place."""
        return bytes(self._data[self._index(start_ms) :])

    def drop_before(self, ms: float) -> None:
        """Forget audio older than session time ``ms``."""
        cut = self._index(ms)
        if cut > 0:
            del self._data[:cut]
            self._origin += cut // 2

    def clear(self) -> None:
        self.drop_before(self.end_ms)

    def _index(self, ms: float) -> int:
        sample = round(ms * self.rate / 1000.0) - self._origin
        return 2 * min(max(sample, 0), len(self._data) // 2)


def chunk_pcm(pcm: bytes, rate: int, ms: int) -> list[bytes]:
    """PCM16 cut into pieces of ``ms`` milliseconds (the last may be shorter)."""
    step = max(2, 2 * int(rate * ms / 1000))
    return [pcm[i : i + step] for i in range(0, len(pcm), step)]
