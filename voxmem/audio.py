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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

import numpy as np
import soundfile as sf
from scipy.signal import resample_poly

from voxmem.errors import (
    AudioTooLong,
    AudioTooShort,
    EmptyAudio,
    NonFiniteAudio,
    OutOfRangeAudio,
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
#: the longest recording read by default (seconds), checked from the header before decoding
MAX_SECONDS = 3600.0
#: float samples may run this far over full scale (1.0) in a hot recording; they are
#: scaled down to full scale. Further out, the producer used another scale (integers
#: written as floats) and the audio is refused.
FLOAT_HEADROOM = 4.0
#: frames decoded at a time: a long file never sits in memory at its own rate
BLOCK_FRAMES = 1 << 16


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
    max_seconds: float | None = MAX_SECONDS,
) -> Audio:
    """Read ``source`` into mono float32 at ``target_rate`` and validate it.

    ``source`` is a path, encoded bytes (wav, flac, ogg, mp3 through libsndfile;
    m4a, aac, webm, opus and anything else through ffmpeg), an :class:`Audio`, or
    a numpy array. An array needs ``sample_rate``; 2-D arrays are (frames,
    channels), or (channels, frames) when the first axis is the short one.
    Integer arrays are scaled from their full range. Float samples up to
    ``FLOAT_HEADROOM`` over full scale are scaled down to it (never clipped);
    beyond that the audio is refused.

    Files and bytes are decoded and resampled in blocks; a recording longer than
    ``max_seconds`` (None: no limit) is refused from its header, before decoding.
    With ``require_speech`` the clip must rise above the silence floor;
    ``min_duration`` (seconds) rejects shorter clips.
    """
    _check_rate(target_rate)
    rate, blocks = _open_source(source, sample_rate, max_seconds)
    _check_rate(rate)
    level = _Level()
    mono = _joined(_resampled(level.watch(blocks, rate, max_seconds), rate, target_rate))
    if mono.size == 0:
        raise EmptyAudio("the audio has no samples; record or pass a clip with sound in it")
    if level.peak > 1.0:
        mono /= np.float32(level.peak)
    audio = Audio(np.ascontiguousarray(mono, dtype=np.float32), target_rate)
    validate(audio, require_speech=require_speech, min_duration=min_duration)
    return audio


class _Level:
    """Checks decoded blocks as they pass: finite, within the float headroom, not over
    the duration cap (a header can lie); keeps the peak."""

    peak = 0.0

    def watch(
        self, blocks: Iterable[np.ndarray], rate: int, max_seconds: float | None
    ) -> Iterator[np.ndarray]:
        frames = 0
        for block in blocks:
            if not np.all(np.isfinite(block)):
                bad = int(np.count_nonzero(~np.isfinite(block)))
                raise NonFiniteAudio(
                    f"the audio has NaN or infinite samples ({bad} in one block); fix the "
                    "producer or replace them (e.g. numpy.nan_to_num) before passing it in"
                )
            if block.size:
                self.peak = max(self.peak, float(np.max(np.abs(block))))
            if self.peak > FLOAT_HEADROOM:
                raise OutOfRangeAudio(
                    f"float samples reach {self.peak:.4g}, but full scale is 1.0: the audio "
                    "was written at another scale (e.g. integer values stored as floats). "
                    "Divide the samples by their full scale (32768 for 16-bit) and pass "
                    "them again"
                )
            frames += len(block)
            _check_duration(frames / rate, max_seconds)
            yield to_mono(block)


def _check_duration(seconds: float, max_seconds: float | None) -> None:
    if max_seconds is not None and seconds > max_seconds:
        raise AudioTooLong(
            f"the recording lasts {_clock(seconds)} or more, over the limit of "
            f"{_clock(max_seconds)}; split it (e.g. ffmpeg -i in.wav -f segment "
            f"-segment_time {int(max_seconds)} part%03d.wav) and pass the parts"
        )


def _clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


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
    x = audio.samples
    n = len(x) // frame
    frames = x[: n * frame].reshape(n, frame) if n else x[None, :]
    # sums of squares in float64 without a float64 copy of a long recording
    power = np.einsum("ij,ij->i", frames, frames, dtype=np.float64) / frames.shape[1]
    rms = float(np.sqrt(np.max(power)))
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
    return _joined(_resampled([samples], rate, target_rate))


def _joined(chunks: Iterable[np.ndarray]) -> np.ndarray:
    parts = list(chunks)
    return np.concatenate(parts) if parts else np.zeros(0, np.float32)


def _resampled(blocks: Iterable[np.ndarray], rate: int, target_rate: int) -> Iterator[np.ndarray]:
    """:func:`scipy.signal.resample_poly` of the blocks joined, computed block by block:
    each output sample is produced once every input sample its filter reaches has
    arrived, from a buffer that holds only those inputs."""
    if rate == target_rate:
        yield from (np.asarray(b, np.float32) for b in blocks)
        return
    g = math.gcd(rate, target_rate)
    up, down = target_rate // g, rate // g
    half = 10 * max(up, down)  # resample_poly's filter half-length, in upsampled samples
    buf, offset, done = np.zeros(0), 0, 0  # offset: index of buf[0], a multiple of down

    def outputs(stop: int) -> np.ndarray:
        y = resample_poly(buf, up, down)
        base = offset * up // down
        return np.asarray(y[done - base : stop - base], np.float32)

    for block in blocks:
        buf = np.concatenate([buf, np.asarray(block, np.float64)])
        ready = ((offset + len(buf) - 1) * up - half) // down + 1
        if ready - done < BLOCK_FRAMES * up // down:
            continue
        yield outputs(ready)
        done = ready
        keep = max(offset, ((done * down - half) // up - 1) // down * down)
        buf, offset = buf[keep - offset :], keep
    if len(buf):
        yield outputs(-(-(offset + len(buf)) * up // down))


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


def _open_source(
    source: AudioSource, sample_rate: int | None, max_seconds: float | None
) -> tuple[int, Iterable[np.ndarray]]:
    """The source's sample rate and its (frames, channels) float blocks, after its
    length was checked against ``max_seconds``."""
    if isinstance(source, Audio):
        sample_rate, source = source.sample_rate, source.samples
    if isinstance(source, np.ndarray):
        if sample_rate is None:
            raise UnsupportedSampleRate(
                "an array of samples needs its sample rate: load_audio(array, sample_rate=...)"
            )
        _check_rate(sample_rate)
        x = _array_samples(source)
        _check_duration(len(x) / sample_rate, max_seconds)
        return sample_rate, [x]
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        if not data:
            raise EmptyAudio("the audio bytes are empty; pass the encoded file's contents")
        return _open_encoded(io.BytesIO(data), data, None, max_seconds)
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        if not path.is_file():
            raise UnreadableAudio(f"no audio file at {str(path)!r}; check the path")
        if path.stat().st_size == 0:
            raise EmptyAudio(f"{str(path)!r} is an empty file; re-record or re-export it")
        return _open_encoded(path, None, path, max_seconds)
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


def _open_encoded(
    file: Path | io.BytesIO, data: bytes | None, hint: Path | None, max_seconds: float | None
) -> tuple[int, Iterable[np.ndarray]]:
    try:
        sound = sf.SoundFile(file)
    except (sf.LibsndfileError, RuntimeError, TypeError, ValueError):
        return _decode_with_ffmpeg(data, hint, max_seconds)
    if sound.frames > 0:
        _check_duration(sound.frames / sound.samplerate, max_seconds)
    return int(sound.samplerate), _sound_blocks(sound)


def _sound_blocks(sound: sf.SoundFile) -> Iterator[np.ndarray]:
    with sound:
        try:
            yield from sound.blocks(BLOCK_FRAMES, dtype="float32", always_2d=True)
        except (sf.LibsndfileError, RuntimeError) as exc:
            raise UnreadableAudio(
                f"the audio stops being readable part way ({exc}); the file may be corrupt "
                "or truncated: re-export it"
            ) from exc


def _decode_with_ffmpeg(
    data: bytes | None, hint: Path | None, max_seconds: float | None
) -> tuple[int, Iterable[np.ndarray]]:
    what = repr(str(hint)) if hint else "the audio bytes"
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raise UnsupportedFormat(
            f"{what} are not wav/flac/ogg/mp3 and ffmpeg is not installed to read other "
            "formats; install ffmpeg (apt-get install ffmpeg) or convert to wav"
        )
    with tempfile.TemporaryDirectory(prefix="voxmem-decode-") as tmp:
        src = hint
        if data is not None:
            src = Path(tmp) / "input"
            src.write_bytes(data)
        assert src is not None
        _check_duration(_probed_seconds(src), max_seconds)
        # -t: a header that understates the length still stops decoding past the cap
        limit = ["-t", str(max_seconds + 1)] if max_seconds is not None else []
        out = ["-map", "0:a:0", "-f", "f32le", "-ac", "1", "-ar", str(TARGET_RATE), "pipe:1"]
        quiet = ["-nostdin", "-hide_banner", "-loglevel", "error"]
        probe = subprocess.run(
            [ffmpeg, *quiet, "-i", str(src), *limit, *out],
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
    samples = np.frombuffer(probe.stdout, dtype="<f4")
    return TARGET_RATE, [samples[:, None]]


def _probed_seconds(path: Path) -> float:
    """The duration the container declares (0 when it declares none or ffprobe is
    missing)."""
    ffprobe = shutil.which("ffprobe")
    if ffprobe is None:
        return 0.0
    out = subprocess.run(
        [ffprobe, "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    try:
        return float(out.stdout.strip())
    except ValueError:
        return 0.0
