from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from voxmem.audio import Audio
from voxmem.benchmarks import synth
from voxmem.benchmarks.synth import (
    BACKGROUNDS,
    ClipCache,
    SynthesisError,
    Utterance,
    distinct_voices,
    mix_at_snr,
    render,
    rms,
)
from voxmem.benchmarks.voices import median_f0

TEXT = "Please bring the budget report to the meeting on Tuesday."

pytestmark = pytest.mark.synth


def test_rendering_is_deterministic_across_caches(tmp_path: Path) -> None:
    u = Utterance(TEXT, "espeak-us-f", "sad", "rain", 10.0, rt60=0.3, seed=7)
    a = render(u, tmp_path / "one")
    b = render(u, tmp_path / "two")
    c = render(u)
    np.testing.assert_array_equal(a.samples, b.samples)
    np.testing.assert_array_equal(a.samples, c.samples)
    other_seed = render(Utterance(TEXT, "espeak-us-f", "sad", "rain", 10.0, rt60=0.3, seed=8))
    assert not np.array_equal(a.samples, other_seed.samples)


def test_cache_hit_does_not_resynthesise(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    u = Utterance(TEXT, "flite-rms", "fast", seed=1)
    first = render(u, tmp_path)
    files = list(tmp_path.rglob("*.flac"))
    assert len(files) == 1

    def boom(*args: object, **kwargs: object) -> Audio:
        raise AssertionError("synthesised again despite a cached clip")

    monkeypatch.setattr(synth, "synthesize_raw", boom)
    again = render(u, ClipCache(tmp_path))
    np.testing.assert_array_equal(first.samples, again.samples)


def test_there_are_at_least_eight_distinct_voices(clip_cache: ClipCache) -> None:
    voices = distinct_voices()
    assert len(voices) >= 8
    engines = {v.engine for v in voices}
    assert {"flite", "festival", "espeak-ng", "piper"} <= engines
    clips = [render(Utterance(TEXT, v.id), clip_cache) for v in voices]
    for clip, voice in zip(clips, voices, strict=True):
        assert clip.sample_rate == 16_000 and clip.duration > 1.0, voice.id
        assert rms(clip.samples) > 0.01, voice.id
    # different voices reading the same text do not produce the same pitch track
    f0 = sorted(median_f0(c) for c in clips)
    assert f0[-1] / f0[0] > 1.8


def test_styles_change_rate_pitch_range_and_voicing(clip_cache: ClipCache) -> None:
    def clip(style: str) -> Audio:
        return render(Utterance(TEXT, "flite-slt", style), clip_cache)

    neutral = clip("neutral")
    assert clip("fast").duration == pytest.approx(neutral.duration / 1.4, rel=0.05)
    assert clip("slow").duration == pytest.approx(neutral.duration / 0.72, rel=0.05)
    assert median_f0(clip("high")) / median_f0(neutral) == pytest.approx(
        2 ** (500 / 1200), rel=0.06
    )
    assert median_f0(clip("low")) < median_f0(neutral) * 0.85
    assert _f0_spread(clip("monotone")) < 0.4 * _f0_spread(neutral)
    assert _f0_spread(clip("excited")) > 1.4 * _f0_spread(neutral)
    assert _voiced_fraction(clip("whisper")) < 0.25 * _voiced_fraction(neutral)


def _f0_track(audio: Audio) -> np.ndarray:
    import pyworld as pw

    f0, _ = pw.dio(audio.samples.astype(np.float64), audio.sample_rate, frame_period=10.0)
    return np.asarray(f0)


def _f0_spread(audio: Audio) -> float:
    f0 = _f0_track(audio)
    return float(np.std(np.log(f0[f0 > 0])))


def _voiced_fraction(audio: Audio) -> float:
    f0 = _f0_track(audio)
    return float(np.mean(f0 > 0))


@pytest.mark.parametrize("snr_db", [20.0, 10.0, 0.0, -5.0])
def test_mixing_hits_the_target_snr_and_peak(snr_db: float) -> None:
    rng = np.random.default_rng(0)
    t = np.arange(32_000) / 16_000
    speech = Audio((0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32))
    noise = rng.standard_normal(40_000)
    mix = mix_at_snr(speech, noise, snr_db)
    assert float(np.max(np.abs(mix.samples))) == pytest.approx(0.9, abs=1e-6)
    # Recover the two scaled components by least squares and measure their SNR.
    basis = np.stack([speech.samples.astype(np.float64), noise[:32_000]], axis=1)
    (a, b), *_ = np.linalg.lstsq(basis, mix.samples.astype(np.float64), rcond=None)
    measured = 20 * np.log10(rms(a * basis[:, 0]) / rms(b * basis[:, 1]))
    assert measured == pytest.approx(snr_db, abs=0.01)


def test_every_background_renders(clip_cache: ClipCache) -> None:
    kinds = {b.kind for b in BACKGROUNDS}
    assert kinds == {"real", "generated"} and len(BACKGROUNDS) >= 8
    rng = np.random.default_rng(0)
    for bg in BACKGROUNDS:
        x = bg.render(48_000, 16_000, rng)
        assert x.shape == (48_000,) and np.all(np.isfinite(x)), bg.name
        assert rms(x) > 0, bg.name


def test_bad_specs_are_refused() -> None:
    with pytest.raises(SynthesisError, match="unknown voice"):
        Utterance(TEXT, "nobody")
    with pytest.raises(SynthesisError, match="unknown style"):
        Utterance(TEXT, "flite-slt", "grumpy")
    with pytest.raises(SynthesisError, match="unknown background"):
        Utterance(TEXT, "flite-slt", background="volcano", snr_db=5)
    with pytest.raises(SynthesisError, match="needs snr_db"):
        Utterance(TEXT, "flite-slt", background="rain")
    with pytest.raises(SynthesisError, match="empty"):
        synth.synthesize_raw("   ", "flite-slt")
    with pytest.raises(SynthesisError, match="silent"):
        mix_at_snr(Audio(np.zeros(100, np.float32)), np.ones(100), 10)
