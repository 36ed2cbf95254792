"""Produce the style calibration that ships with the style encoder.

    python -m voxmem.benchmarks.calibrate [--out PATH]

Statistics and prototypes come from synthetic speech of CALIBRATION_VOICES
only; the style probe tests on the other voices.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from voxmem.benchmarks.synth import BACKGROUNDS, STYLES, ClipCache, Utterance, render
from voxmem.benchmarks.synth.texts import SENTENCES
from voxmem.memory.encoders.base import l2_normalize
from voxmem.memory.encoders.environment import CALIBRATION as ENV_CALIBRATION
from voxmem.memory.encoders.environment import N_MELS, YamnetEnvironmentEncoder
from voxmem.memory.encoders.style import CALIBRATION, STYLE_VOCABULARY, egemaps_features
from voxmem.settings import Settings

CALIBRATION_VOICES = ("flite-slt", "flite-awb", "festival-ked", "espeak-us-f", "espeak-gb-m")
N_SENTENCES = 8
TEMPERATURE = 0.1


def calibrate(cache: ClipCache) -> dict[str, object]:
    assert {s.name for s in STYLES} == set(STYLE_VOCABULARY)
    feats: list[np.ndarray] = []
    labels: list[str] = []
    speakers: list[str] = []
    for voice in CALIBRATION_VOICES:
        for style in STYLES:
            for text in SENTENCES[:N_SENTENCES]:
                clip = render(Utterance(text, voice, style.name), cache)
                feats.append(egemaps_features([clip])[0])
                labels.append(style.name)
        speakers.extend([voice] * (len(feats) - len(speakers)))
    x, y, spk = np.asarray(feats), np.array(labels), np.array(speakers)
    mean, std = x.mean(axis=0), np.maximum(x.std(axis=0), 1e-6)
    # Relative to each speaker's own mean over everything they said.
    rel = x - np.stack([x[spk == s].mean(axis=0) for s in spk])
    rel_std = np.maximum(rel.std(axis=0), 1e-6)

    def prototypes(z: np.ndarray) -> dict[str, list[float]]:
        z = l2_normalize(np.clip(z, -6, 6))
        return {s: l2_normalize(z[y == s].mean(axis=0)[None])[0].tolist() for s in STYLE_VOCABULARY}

    return {
        "version": 2,
        "feature_set": "eGeMAPSv02",
        "voices": list(CALIBRATION_VOICES),
        "sentences": N_SENTENCES,
        "temperature": TEMPERATURE,
        "mean": mean.tolist(),
        "std": std.tolist(),
        "prototypes": prototypes((x - mean) / std),
        "relative_std": rel_std.tolist(),
        "relative_prototypes": prototypes(rel / rel_std),
    }


def calibrate_environment(cache: ClipCache, settings: Settings) -> dict[str, object]:
    """Spread of the environment encoder's spectral features over speech with every
    background at 10 dB, from CALIBRATION_VOICES only."""
    from voxmem.memory.encoders.environment import EnvironmentCalibration
    from voxmem.memory.encoders.factory import environment_encoder

    enc = environment_encoder(settings)
    assert isinstance(enc, YamnetEnvironmentEncoder)
    enc.calibration = EnvironmentCalibration(
        np.zeros(2 * N_MELS, np.float32), np.ones(2 * N_MELS, np.float32)
    )
    feats = []
    for voice in CALIBRATION_VOICES:
        for bg in BACKGROUNDS:
            for k, text in enumerate(SENTENCES[:2]):
                clip = render(
                    Utterance(text, voice, background=bg.name, snr_db=10.0, seed=k), cache
                )
                feats.append(enc.spectral_features(clip))
    x = np.asarray(feats)
    return {
        "version": 1,
        "voices": list(CALIBRATION_VOICES),
        "snr_db": 10.0,
        "mean": x.mean(axis=0).tolist(),
        "std": np.maximum(x.std(axis=0), 1e-3).tolist(),
    }


def main() -> None:
    default = Path(__file__).resolve().parents[1] / "memory" / "encoders" / "data" / CALIBRATION
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=default)
    args = parser.parse_args()
    cache = ClipCache(Settings().cache_dir / "synth")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(calibrate(cache), indent=1) + "\n")
    print(f"wrote {args.out}")
    env_out = args.out.parent / ENV_CALIBRATION
    env_out.write_text(json.dumps(calibrate_environment(cache, Settings()), indent=1) + "\n")
    print(f"wrote {env_out}")


if __name__ == "__main__":
    main()
