"""Acoustic backgrounds: real sound effects from Debian packages and generated noises,
mixed under speech at a chosen SNR."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.signal import butter, fftconvolve, sosfilt

from voxmem.audio import TARGET_RATE, Audio, load_audio
from voxmem.errors import SynthesisError

FREEDESKTOP = Path("/usr/share/sounds/freedesktop/stereo")
PEAK = 0.9

Generator = Callable[[int, int, np.random.Generator], np.ndarray]


@dataclass(frozen=True)
class Background:
    """A background sound. ``kind`` is ``real`` (a recorded file) or ``generated``."""

    name: str
    kind: str
    description: str
    path: Path | None = None
    generate: Generator | None = None

    def render(self, n_samples: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
        """``n_samples`` of this background, looped with a random start offset."""
        if self.generate is not None:
            return self.generate(n_samples, sample_rate, rng).astype(np.float32)
        assert self.path is not None
        if not self.path.exists():
            raise SynthesisError(
                f"background {self.name!r} needs {self.path}; install "
                "sound-theme-freedesktop (scripts/setup.sh does)"
            )
        clip = load_audio(self.path, target_rate=sample_rate).samples
        # Loop real events with short random gaps so they recur through the clip.
        gap = np.zeros(int(rng.uniform(0.1, 0.6) * sample_rate), np.float32)
        unit = np.concatenate([clip, gap])
        reps = n_samples // len(unit) + 2
        looped = np.tile(unit, reps)
        start = int(rng.integers(0, len(unit)))
        return looped[start : start + n_samples]


def _lowpass(x: np.ndarray, cutoff: float, sr: int, order: int = 4) -> np.ndarray:
    sos = butter(order, cutoff, btype="lowpass", fs=sr, output="sos")
    return np.asarray(sosfilt(sos, x))


def _bandpass(x: np.ndarray, lo: float, hi: float, sr: int, order: int = 4) -> np.ndarray:
    sos = butter(order, [lo, hi], btype="bandpass", fs=sr, output="sos")
    return np.asarray(sosfilt(sos, x))


def _white(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    return rng.standard_normal(n)


def _pink(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.arange(len(spec), dtype=np.float64)
    f[0] = 1.0
    return np.fft.irfft(spec / np.sqrt(f), n)


def _brown(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    y = np.cumsum(rng.standard_normal(n))
    return y - _lowpass(y, 20.0, sr, order=2)


def _hum(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    t = np.arange(n) / sr
    phase = rng.uniform(0, 2 * np.pi, 6)
    return sum(
        np.sin(2 * np.pi * 50 * k * t + phase[k - 1]) / k for k in range(1, 7)
    ) + 0.05 * rng.standard_normal(n)


def _rain(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    bed = _bandpass(rng.standard_normal(n), 400, 6000, sr) * 0.4
    drops = np.zeros(n)
    idx = rng.integers(0, n, size=max(1, int(n / sr * 120)))
    drops[idx] = rng.uniform(0.3, 1.0, len(idx)) * rng.choice([-1, 1], len(idx))
    drops = _bandpass(drops, 1500, 7000, sr, order=2) * 6
    return bed + drops


def _wind(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    noise = _lowpass(rng.standard_normal(n), 500, sr)
    gust = _lowpass(rng.standard_normal(n), 0.5, sr, order=2)
    gust = 0.5 + (gust - gust.min()) / (np.ptp(gust) + 1e-9)
    return noise * gust


def _engine(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    t = np.arange(n) / sr
    f = rng.uniform(28, 40) * (1 + 0.03 * np.sin(2 * np.pi * 0.3 * t))
    phase = 2 * np.pi * np.cumsum(f) / sr
    tone = np.sum([np.sign(np.sin(k * phase)) / k**1.5 for k in (1, 2, 3, 4)], axis=0)
    return _lowpass(tone, 400, sr) + 0.2 * _lowpass(rng.standard_normal(n), 300, sr)


def _clicks(rate_hz: float, jitter: float, lo: float, hi: float) -> Generator:
    def gen(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
        out = np.zeros(n)
        t = rng.uniform(0, 1 / rate_hz)
        click = np.hanning(int(0.004 * sr)) * rng.standard_normal(int(0.004 * sr))
        while t * sr < n - len(click):
            i = int(t * sr)
            out[i : i + len(click)] += click * rng.uniform(0.6, 1.0)
            t += max(0.01, (1 / rate_hz) * (1 + jitter * rng.standard_normal()))
        return _bandpass(out, lo, hi, sr, order=2)

    return gen


def _babble(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    # Speech-shaped, syllable-rate modulated noise from several "talkers".
    out = np.zeros(n)
    for _ in range(6):
        carrier = _bandpass(rng.standard_normal(n), 150, 3500, sr)
        env = _lowpass(np.abs(rng.standard_normal(n)), 4.0, sr, order=2)
        out += carrier * np.maximum(env, 0)
    return out


def _real(name: str, file: str, description: str) -> Background:
    return Background(name, "real", description, path=FREEDESKTOP / file)


BACKGROUNDS: tuple[Background, ...] = (
    _real("bell", "bell.oga", "a ringing bell"),
    _real("phone", "phone-incoming-call.oga", "a phone ringing"),
    _real("alarm", "alarm-clock-elapsed.oga", "an alarm clock going off"),
    _real("camera", "camera-shutter.oga", "camera shutter clicks"),
    _real("notification", "message-new-instant.oga", "message notification chimes"),
    _real("trash", "trash-empty.oga", "crumpling paper being thrown away"),
    Background("white-noise", "generated", "static, white noise", generate=_white),
    Background("pink-noise", "generated", "steady pink noise", generate=_pink),
    Background("brown-noise", "generated", "deep rumbling noise", generate=_brown),
    Background("hum", "generated", "electrical mains hum", generate=_hum),
    Background("rain", "generated", "rain falling", generate=_rain),
    Background("wind", "generated", "gusting wind", generate=_wind),
    Background("engine", "generated", "an idling engine", generate=_engine),
    Background("clock", "generated", "a ticking clock", generate=_clicks(1.0, 0.0, 1500, 6000)),
    Background("typing", "generated", "keyboard typing", generate=_clicks(8.0, 0.6, 800, 7000)),
    Background("babble", "generated", "crowd babble", generate=_babble),
)
BACKGROUND_BY_NAME = {b.name: b for b in BACKGROUNDS}


def get_background(background: Background | str) -> Background:
    if isinstance(background, Background):
        return background
    try:
        return BACKGROUND_BY_NAME[background]
    except KeyError:
        raise SynthesisError(
            f"unknown background {background!r}; choose one of {', '.join(BACKGROUND_BY_NAME)}"
        ) from None


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if len(x) else 0.0


def synthetic_rir(rt60: float, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """An exponentially decaying noise room impulse response with the given RT60 (s)."""
    if rt60 <= 0:
        raise SynthesisError("rt60 must be positive (seconds)")
    n = int(rt60 * sample_rate)
    t = np.arange(n) / sample_rate
    tail = rng.standard_normal(n) * np.exp(-6.9 * t / rt60)
    tail[0] = 1.0  # the direct path
    return tail / np.sqrt(np.sum(tail**2))


def mix_at_snr(
    speech: Audio, noise: np.ndarray, snr_db: float, rir: np.ndarray | None = None
) -> Audio:
    """Speech (optionally reverberated by ``rir``) plus ``noise`` scaled by RMS to ``snr_db``,
    peak-normalised to 0.9.

    ``noise`` must be at least as long as the speech; it is cut to length.
    """
    x = speech.samples.astype(np.float64)
    if rir is not None:
        x = fftconvolve(x, rir)[: len(x)]
    if len(noise) < len(x):
        raise SynthesisError(f"noise has {len(noise)} samples, speech {len(x)}; render more noise")
    n = noise[: len(x)].astype(np.float64)
    s_rms, n_rms = rms(x), rms(n)
    if s_rms == 0:
        raise SynthesisError("cannot set an SNR against silent speech")
    if n_rms == 0:
        raise SynthesisError("cannot set an SNR with a silent background")
    mix = x + n * (s_rms / (n_rms * 10 ** (snr_db / 20)))
    peak = float(np.max(np.abs(mix)))
    return Audio((mix * (PEAK / peak)).astype(np.float32), speech.sample_rate)


def add_background(
    speech: Audio,
    background: Background | str,
    snr_db: float,
    rng: np.random.Generator,
    rt60: float | None = None,
) -> Audio:
    """Mix a named background under ``speech`` at ``snr_db``."""
    bg = get_background(background)
    noise = bg.render(len(speech.samples), speech.sample_rate or TARGET_RATE, rng)
    rir = synthetic_rir(rt60, speech.sample_rate, rng) if rt60 else None
    return mix_at_snr(speech, noise, snr_db, rir)
