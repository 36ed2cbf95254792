"""Audio in and out: decode anything common, mono 16 kHz float32, validate, slice, FLAC.

Every function raises a subclass of :class:`voxmem.errors.InvalidAudio` with a
message that says what is wrong and what to do, never a decoder's traceback.
"""

from __future__ import annotations

import io
import math
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

import numpy as np
import soundfile as sf
from scipy.signal import resample_poly

from voxmem.errors import (
    AudioTooShort,
    EmptyAudio,
    NonFiniteAudio,
    SilentAudio,
    UnreadableAudio,
    UnsupportedFormat,
    UnsupportedSampleRate,
)

TARGET_RATE = 16_000
MIN_RATE = 1_000
MAX_RATE = 768_000
# A clip whose loudest 30 ms frame stays under this level holds no speech.
SILENCE_FLOOR_DBFS = -60.0
MAX_CHANNELS_GUESS = 8


@dataclass(frozen=True, eq=False)
class Audio:
    """Mono float32 samples at ``sample_rate``. Produced by :func:`load_audio`."""

    samples: np.ndarray
    sample_rate: int = TARGET_RATE

    @property
    def duration(self) -> float:
        return len(self.samples) / self.sample_rate

    def __len__(self) -> int:
        return len(self.samples)

    def slice(self, start: float, end: float) -> Audio:
        """The samples between ``start`` and ``end`` seconds (clamped to the clip)."""
        return slice_audio(self, start, end)


AudioSource: TypeAlias = (
    "str | os.PathLike[str] | bytes | bytearray | memoryview | np.ndarray | Audio"
)


def load_audio(
    source: AudioSource,
    *,
    sample_rate: int | None = None,
    target_rate: int = TARGET_RATE,
    require_speech: bool = False,
    min_duration: float = 0.0,
) -> Audio:
    """Read ``source`` into mono float32 at ``target_rate`` and validate it.

    ``source`` is a path, encoded bytes (wav, flac, ogg, mp3 through libsndfile;
    m4a, aac, webm, opus and anything else through ffmpeg), an :class:`Audio`, or
    a numpy array. An array needs ``sample_rate``; 2-D arrays are (frames,
    channels), or (channels, frames) when the first axis is the short one.
    Integer arrays are scaled from their full range.

    With ``require_speech`` the clip must rise above the silence floor;
    ``min_duration`` (seconds) rejects shorter clips.
    """
    samples, rate = _decode_source(source, sample_rate)
    _check_rate(rate)
    _check_rate(target_rate)
    mono = to_mono(samples)
    if mono.size == 0:
        raise EmptyAudio("the audio has no samples; record or pass a clip with sound in it")
    if not np.all(np.isfinite(mono)):
        bad = int(np.count_nonzero(~np.isfinite(mono)))
        raise NonFiniteAudio(
            f"the audio has {bad} NaN or infinite samples; fix the producer or replace them "
            "(e.g. numpy.nan_to_num) before passing it in"
        )
    mono = resample(mono, rate, target_rate)
    audio = Audio(np.ascontiguousarray(mono, dtype=np.float32), target_rate)
    validate(audio, require_speech=require_speech, min_duration=min_duration)
    return audio


def validate(audio: Audio, *, require_speech: bool = False, min_duration: float = 0.0) -> None:
    """Raise if ``audio`` is empty, non-finite, too short or (when speech is needed) silent."""
    _check_rate(audio.sample_rate)
    if audio.samples.size == 0:
        raise EmptyAudio("the audio has no samples; record or pass a clip with sound in it")
    if not np.all(np.isfinite(audio.samples)):
        raise NonFiniteAudio("the audio has NaN or infinite samples; replace them before use")
    if audio.duration < min_duration:
        raise AudioTooShort(
            f"the clip lasts {audio.duration:.3f} s but at least {min_duration:.3f} s is needed; "
            "pass a longer clip"
        )
    if require_speech and peak_frame_dbfs(audio) < SILENCE_FLOOR_DBFS:
        raise SilentAudio(
            f"the clip is silent (loudest 30 ms frame {peak_frame_dbfs(audio):.1f} dBFS, floor "
            f"{SILENCE_FLOOR_DBFS:.0f} dBFS); check the microphone or gain, or pass a clip "
            "with speech"
        )


def peak_frame_dbfs(audio: Audio, frame_seconds: float = 0.03) -> float:
    """Level of the loudest frame in dBFS (RMS over ``frame_seconds`` frames)."""
    frame = max(1, int(frame_seconds * audio.sample_rate))
    x = audio.samples.astype(np.float64)
    n = len(x) // frame
    frames = x[: n * frame].reshape(n, frame) if n else x[None, :]
    rms = float(np.sqrt(np.max(np.mean(frames**2, axis=1))))
    return 20 * math.log10(rms) if rms > 0 else -math.inf


def to_mono(samples: np.ndarray) -> np.ndarray:
    """Average channels of a (frames, channels) array into float32 mono."""
    if samples.ndim == 1:
        return samples.astype(np.float32, copy=False)
    if samples.ndim != 2:
        raise UnreadableAudio(
            f"audio arrays must be 1-D or 2-D, got shape {samples.shape}; pass (frames,) or "
            "(frames, channels)"
        )
    return samples.mean(axis=1, dtype=np.float64).astype(np.float32)


def resample(samples: np.ndarray, rate: int, target_rate: int) -> np.ndarray:
    """Polyphase resampling from ``rate`` to ``target_rate`` (exact rational ratio)."""
    if rate == target_rate:
        return samples
    g = math.gcd(rate, target_rate)
    out = resample_poly(samples.astype(np.float64), target_rate // g, rate // g)
    return np.asarray(out, dtype=np.float32)


def slice_audio(audio: Audio, start: float, end: float) -> Audio:
    """Samples between ``start`` and ``end`` seconds, clamped to the clip."""
    if end < start:
        raise ValueError(f"segment end {end} is before its start {start}")
    a = max(0, round(start * audio.sample_rate))
    b = min(len(audio.samples), round(end * audio.sample_rate))
    return Audio(audio.samples[a : max(a, b)].copy(), audio.sample_rate)


def flac_bytes(audio: Audio) -> bytes:
    """Encode as 16-bit FLAC (lossless for storage; float input is clipped to [-1, 1])."""
    buf = io.BytesIO()
    sf.write(
        buf, np.clip(audio.samples, -1.0, 1.0), audio.sample_rate, format="FLAC", subtype="PCM_16"
    )
    return buf.getvalue()


def write_flac(audio: Audio, path: str | os.PathLike[str]) -> Path:
    """Write ``audio`` as FLAC atomically (a reader never sees a half-written file)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".flac")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(flac_bytes(audio))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def write_wav(audio: Audio, path: str | os.PathLike[str]) -> Path:
    """Write ``audio`` as 16-bit WAV (for tools that want WAV)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    sf.write(target, np.clip(audio.samples, -1.0, 1.0), audio.sample_rate, subtype="PCM_16")
    return target


# --- decoding ----------------------------------------------------------------


def _check_rate(rate: object) -> None:
    if isinstance(rate, bool) or not isinstance(rate, int | np.integer):
        raise UnsupportedSampleRate(
            f"sample rate must be an integer number of Hz, got {rate!r}; pass sample_rate=16000 "
            "(or the rate the samples were recorded at)"
        )
    if not MIN_RATE <= int(rate) <= MAX_RATE:
        raise UnsupportedSampleRate(
            f"sample rate {rate} Hz is outside {MIN_RATE}-{MAX_RATE} Hz; check that the rate "
            "was given in Hz, not kHz"
        )


def _decode_source(source: AudioSource, sample_rate: int | None) -> tuple[np.ndarray, int]:
    if isinstance(source, Audio):
        return source.samples, source.sample_rate
    if isinstance(source, np.ndarray):
        if sample_rate is None:
            raise UnsupportedSampleRate(
                "an array of samples needs its sample rate: load_audio(array, sample_rate=...)"
            )
        return _array_samples(source), sample_rate
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        if not data:
            raise EmptyAudio("the audio bytes are empty; pass the encoded file's contents")
        return _decode_bytes(data, hint=None)
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        if not path.is_file():
            raise UnreadableAudio(f"no audio file at {str(path)!r}; check the path")
        data = path.read_bytes()
        if not data:
            raise EmptyAudio(f"{str(path)!r} is an empty file; re-record or re-export it")
        return _decode_bytes(data, hint=path)
    raise TypeError(
        f"cannot read audio from a {type(source).__name__}; pass a path, bytes, a numpy array "
        "or an Audio"
    )


def _array_samples(array: np.ndarray) -> np.ndarray:
    x = np.asarray(array)
    if x.ndim == 2 and x.shape[0] <= MAX_CHANNELS_GUESS < x.shape[1]:
        x = x.T  # (channels, frames) -> (frames, channels)
    if x.dtype.kind == "f":
        return x.astype(np.float32, copy=False)
    if x.dtype.kind == "i":
        return (x.astype(np.float64) / float(2 ** (8 * x.dtype.itemsize - 1))).astype(np.float32)
    if x.dtype.kind == "u":
        half = float(2 ** (8 * x.dtype.itemsize - 1))
        return ((x.astype(np.float64) - half) / half).astype(np.float32)
    raise UnreadableAudio(
        f"audio arrays must hold integers or floats, got dtype {x.dtype}; convert to float32"
    )


def _decode_bytes(data: bytes, hint: Path | None) -> tuple[np.ndarray, int]:
    try:
        samples, rate = sf.read(io.BytesIO(data), dtype="float32", always_2d=True)
        return samples, int(rate)
    except (sf.LibsndfileError, RuntimeError, TypeError, ValueError):
        pass
    return _decode_with_ffmpeg(data, hint)


def _decode_with_ffmpeg(data: bytes, hint: Path | None) -> tuple[np.ndarray, int]:
    what = repr(str(hint)) if hint else "the audio bytes"
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raise UnsupportedFormat(
            f"{what} are not wav/flac/ogg/mp3 and ffmpeg is not installed to read other "
            "formats; install ffmpeg (apt-get install ffmpeg) or convert to wav"
        )
    suffix = hint.suffix if hint else ""
    with tempfile.TemporaryDirectory(prefix="voxmem-decode-") as tmp:
        src = Path(tmp) / f"input{suffix}"
        src.write_bytes(data)
        probe = subprocess.run(
            [
                ffmpeg,
                "-nostdin",
                "-hide_banner",
                "-loglevel",
                "error",
                "-i",
                str(src),
                "-map",
                "0:a:0",
                "-f",
                "f32le",
                "-ac",
                "1",
                "-ar",
                str(TARGET_RATE),
                "pipe:1",
            ],
            capture_output=True,
            check=False,
            timeout=600,
        )
    if probe.returncode != 0 or not probe.stdout:
        err = probe.stderr.decode(errors="replace").strip().splitlines()
        reason = err[-1] if err else "no audio stream"
        if "matches no streams" in probe.stderr.decode(errors="replace"):
            raise UnsupportedFormat(
                f"{what} hold no audio stream; pass an audio file or a video with sound"
            )
        raise UnreadableAudio(
            f"{what} could not be decoded as audio ({reason}); the file may be corrupt or "
            "truncated. Supported: wav, flac, ogg, mp3, m4a and anything ffmpeg reads"
        )
    samples = np.frombuffer(probe.stdout, dtype="<f4").astype(np.float32)
    return samples[:, None], TARGET_RATE
