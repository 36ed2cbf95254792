from __future__ import annotations

import math
import subprocess
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from voxmem.audio import (
    Audio,
    flac_bytes,
    load_audio,
    peak_frame_dbfs,
    slice_audio,
    write_flac,
)
from voxmem.errors import (
    AudioTooLong,
    AudioTooShort,
    EmptyAudio,
    InvalidAudio,
    NonFiniteAudio,
    OutOfRangeAudio,
    SilentAudio,
    UnreadableAudio,
    UnsupportedFormat,
    UnsupportedSampleRate,
)

LIBRIVOX = Path("/usr/share/pocketsphinx/test/data/cards/001.wav")


def tone(
    freq: float = 440.0, rate: int = 16_000, seconds: float = 1.0, amp: float = 0.5
) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def dominant_frequency(audio: Audio) -> float:
    spec = np.abs(np.fft.rfft(audio.samples * np.hanning(len(audio.samples))))
    return float(np.argmax(spec) * audio.sample_rate / len(audio.samples))


def encode(tmp_path: Path, samples: np.ndarray, rate: int, ext: str) -> Path:
    wav = tmp_path / "src.wav"
    sf.write(wav, samples, rate)
    if ext == "wav":
        return wav
    out = tmp_path / f"clip.{ext}"
    subprocess.run(
        ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", str(wav), str(out)], check=True
    )
    return out


@pytest.mark.parametrize("ext", ["wav", "flac", "ogg", "mp3", "m4a", "opus", "webm"])
def test_common_formats_decode_to_mono_16k(tmp_path: Path, ext: str) -> None:
    stereo = np.stack([tone(1000, 44_100), tone(1000, 44_100)], axis=1)
    path = encode(tmp_path, stereo, 44_100, ext)
    for source in (path, str(path), path.read_bytes()):
        audio = load_audio(source)
        assert audio.sample_rate == 16_000
        assert audio.samples.dtype == np.float32 and audio.samples.ndim == 1
        assert abs(audio.duration - 1.0) < 0.1  # lossy codecs pad a little
        assert abs(dominant_frequency(audio) - 1000) < 5


def test_real_recording_reads(tmp_path: Path) -> None:
    audio = load_audio(LIBRIVOX, require_speech=True, min_duration=0.5)
    assert audio.duration > 1.0
    assert peak_frame_dbfs(audio) > -40


def test_downmix_averages_channels() -> None:
    left, right = tone(440), np.zeros(16_000, np.float32)
    audio = load_audio(np.stack([left, right], axis=1), sample_rate=16_000)
    np.testing.assert_allclose(audio.samples, left / 2, atol=1e-6)
    # (channels, frames) layout is recognised too
    audio2 = load_audio(np.stack([left, right]), sample_rate=16_000)
    np.testing.assert_allclose(audio2.samples, audio.samples, atol=1e-6)


def test_resampling_keeps_pitch_and_duration() -> None:
    audio = load_audio(tone(440, 22_050, 2.0), sample_rate=22_050)
    assert len(audio.samples) == 32_000
    assert abs(dominant_frequency(audio) - 440) < 2


def test_integer_arrays_are_scaled() -> None:
    pcm = (tone(440, amp=0.5) * 32767).astype(np.int16)
    audio = load_audio(pcm, sample_rate=16_000)
    assert abs(float(np.max(audio.samples)) - 0.5) < 1e-3


@pytest.mark.parametrize("source", [b"", np.zeros(0, np.float32)])
def test_empty_audio(source: bytes | np.ndarray) -> None:
    with pytest.raises(EmptyAudio, match=r"no samples|empty"):
        load_audio(source, sample_rate=16_000)


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.wav"
    path.write_bytes(b"")
    with pytest.raises(EmptyAudio, match="empty file"):
        load_audio(path)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_samples(bad: float) -> None:
    x = tone()
    x[100] = bad
    with pytest.raises(NonFiniteAudio, match="NaN or infinite"):
        load_audio(x, sample_rate=16_000)


def test_silence_is_rejected_only_when_speech_is_needed() -> None:
    silence = np.zeros(16_000, np.float32)
    assert load_audio(silence, sample_rate=16_000).duration == 1.0
    with pytest.raises(SilentAudio, match="silent"):
        load_audio(silence, sample_rate=16_000, require_speech=True)
    hiss = np.full(16_000, 1e-5, np.float32)
    with pytest.raises(SilentAudio):
        load_audio(hiss, sample_rate=16_000, require_speech=True)


def test_too_short() -> None:
    with pytest.raises(AudioTooShort, match=r"at least 0\.500 s"):
        load_audio(tone(seconds=0.2), sample_rate=16_000, min_duration=0.5)


@pytest.mark.parametrize("rate", [0, -16_000, 10, 10_000_000, 16.0, None, True])
def test_absurd_sample_rates(rate: object) -> None:
    with pytest.raises(UnsupportedSampleRate):
        load_audio(tone(), sample_rate=rate)  # type: ignore[arg-type]


def test_absurd_rate_in_a_file(tmp_path: Path) -> None:
    path = tmp_path / "odd.wav"
    sf.write(path, tone(rate=8), 8)
    with pytest.raises(UnsupportedSampleRate, match="outside"):
        load_audio(path)


def test_garbage_bytes_are_unreadable() -> None:
    with pytest.raises(UnreadableAudio, match="could not be decoded"):
        load_audio(b"this is not audio at all" * 50)


def test_truncated_file_is_unreadable(tmp_path: Path) -> None:
    path = encode(tmp_path, tone(seconds=2.0), 16_000, "m4a")
    data = path.read_bytes()
    with pytest.raises(UnreadableAudio):
        load_audio(data[: len(data) // 3])


def test_file_without_audio_is_unsupported(tmp_path: Path) -> None:
    png = tmp_path / "image.png"
    subprocess.run(
        [
            "ffmpeg",
            "-nostdin",
            "-loglevel",
            "error",
            "-f",
            "lavfi",
            "-i",
            "color=c=red:s=16x16:d=1",
            "-frames:v",
            "1",
            str(png),
        ],
        check=True,
    )
    with pytest.raises(UnsupportedFormat, match="no audio stream"):
        load_audio(png)


def test_missing_path_and_wrong_type(tmp_path: Path) -> None:
    with pytest.raises(UnreadableAudio, match="no audio file"):
        load_audio(tmp_path / "nope.wav")
    with pytest.raises(TypeError, match="cannot read audio"):
        load_audio(12345)  # type: ignore[arg-type]
    with pytest.raises(UnsupportedSampleRate, match="needs its sample rate"):
        load_audio(tone())


def test_every_audio_error_is_an_invalid_audio_value_error() -> None:
    for cls in (
        EmptyAudio,
        SilentAudio,
        AudioTooShort,
        NonFiniteAudio,
        UnreadableAudio,
        UnsupportedFormat,
        UnsupportedSampleRate,
        AudioTooLong,
        OutOfRangeAudio,
    ):
        assert issubclass(cls, InvalidAudio) and issubclass(cls, ValueError)


def test_slicing_clamps_to_the_clip() -> None:
    audio = load_audio(tone(seconds=2.0), sample_rate=16_000)
    part = audio.slice(0.5, 1.25)
    assert len(part) == 12_000
    np.testing.assert_array_equal(part.samples, audio.samples[8_000:20_000])
    assert len(slice_audio(audio, 1.5, 9.0)) == 8_000
    assert len(slice_audio(audio, 5.0, 6.0)) == 0
    with pytest.raises(ValueError, match="before its start"):
        audio.slice(1.0, 0.5)


def test_flac_storage_round_trip(tmp_path: Path) -> None:
    audio = load_audio(tone(), sample_rate=16_000)
    path = write_flac(audio, tmp_path / "a" / "b.flac")
    back = load_audio(path)
    assert np.max(np.abs(back.samples - audio.samples)) <= 1 / 32_768 + 1e-7
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".tmp-")]


@settings(max_examples=40, deadline=None)
@given(
    samples=arrays(
        np.float32, st.integers(1, 4000), elements=st.floats(-1, 1, allow_nan=False, width=32)
    ),
    rate=st.sampled_from([8_000, 11_025, 16_000, 22_050, 24_000, 44_100, 48_000]),
)
def test_any_finite_clip_becomes_mono_16k_of_the_right_length(
    samples: np.ndarray, rate: int
) -> None:
    audio = load_audio(samples, sample_rate=rate)
    assert audio.sample_rate == 16_000 and audio.samples.dtype == np.float32
    assert abs(len(audio.samples) - math.ceil(len(samples) * 16_000 / rate)) <= 1
    assert np.all(np.isfinite(audio.samples))


@settings(max_examples=40, deadline=None)
@given(
    samples=arrays(
        np.float32, st.integers(1, 3000), elements=st.floats(-1, 1, allow_nan=False, width=32)
    )
)
def test_flac_encoding_is_lossless_to_16_bits(samples: np.ndarray) -> None:
    audio = Audio(samples, 16_000)
    back = load_audio(flac_bytes(audio))
    assert len(back) == len(audio)
    assert np.max(np.abs(back.samples - samples)) <= 1 / 32_768 + 1e-7


@settings(max_examples=60, deadline=None)
@given(start=st.floats(0, 3), length=st.floats(0, 3))
def test_slice_duration_property(start: float, length: float) -> None:
    audio = Audio(np.zeros(32_000, np.float32), 16_000)
    part = audio.slice(start, start + length)
    expected = max(0.0, min(2.0, start + length) - min(start, 2.0))
    assert abs(part.duration - expected) <= 1 / 16_000 + 1e-9


# --- long files, float scale ----------------------------------------------------------


@pytest.mark.parametrize("rate", [8_000, 22_050, 44_100, 48_000])
def test_block_by_block_decoding_equals_resampling_the_whole_file(
    tmp_path: Path, rate: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scipy.signal import resample_poly

    import voxmem.audio

    x = np.random.default_rng(rate).uniform(-0.5, 0.5, (rate * 3 + 17, 2)).astype(np.float32)
    path = tmp_path / "x.wav"
    sf.write(path, x, rate, subtype="FLOAT")
    g = math.gcd(rate, 16_000)
    whole = resample_poly(x.mean(axis=1, dtype=np.float64), 16_000 // g, rate // g)
    monkeypatch.setattr(voxmem.audio, "BLOCK_FRAMES", 1000)  # many blocks, odd boundaries
    got = load_audio(path).samples
    assert len(got) == len(whole)
    np.testing.assert_allclose(got, whole, atol=1e-6)


def test_a_long_file_is_decoded_without_holding_it_at_its_own_rate(tmp_path: Path) -> None:
    """A minute of 48 kHz stereo: memory stays within twice the 16 kHz mono result
    (the whole file at 48 kHz in float32 is six times it)."""
    import tracemalloc

    path = tmp_path / "minute.wav"
    sf.write(path, np.tile(tone(440, 48_000, 1.0, 0.3)[:, None], (60, 2)), 48_000, "PCM_16")
    tracemalloc.start()
    try:
        audio = load_audio(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert audio.duration == 60.0
    assert peak < 2.5 * audio.samples.nbytes


def test_a_recording_over_the_cap_is_refused_from_its_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from voxmem.audio import MAX_SECONDS

    assert MAX_SECONDS == 3600.0
    path = tmp_path / "long.wav"
    sf.write(path, tone(seconds=3.0), 16_000)

    def no_decoding(*args: object, **kwargs: object) -> None:
        raise AssertionError("decoded although the header says it is too long")

    monkeypatch.setattr(sf.SoundFile, "blocks", no_decoding)
    with pytest.raises(AudioTooLong, match=r"0:00:03 .*limit of 0:00:02.*segment_time 2"):
        load_audio(path, max_seconds=2)
    with pytest.raises(AudioTooLong):
        load_audio(tone(seconds=3.0), sample_rate=16_000, max_seconds=2)


def test_the_cap_holds_for_formats_read_by_ffmpeg(tmp_path: Path) -> None:
    path = encode(tmp_path, tone(seconds=3.0), 16_000, "m4a")
    with pytest.raises(AudioTooLong, match="over the limit"):
        load_audio(path, max_seconds=2)
    with pytest.raises(AudioTooLong):
        load_audio(path.read_bytes(), max_seconds=2)
    assert abs(load_audio(path, max_seconds=None).duration - 3.0) < 0.1


def test_a_float_file_far_over_full_scale_is_refused_not_clipped(tmp_path: Path) -> None:
    path = tmp_path / "loud.wav"
    sf.write(path, tone(amp=1000.0), 16_000, subtype="FLOAT")
    with pytest.raises(OutOfRangeAudio, match=r"reach 1000, .*full scale is 1\.0.*32768"):
        load_audio(path)


def test_a_hot_float_recording_is_scaled_to_full_scale_not_clipped(tmp_path: Path) -> None:
    path = tmp_path / "hot.wav"
    sf.write(path, tone(amp=1.5), 16_000, subtype="FLOAT")
    audio = load_audio(path)
    assert abs(float(np.max(np.abs(audio.samples))) - 1.0) < 1e-3
    np.testing.assert_allclose(audio.samples, tone(amp=1.0), atol=1e-3)  # a sine, not a square
