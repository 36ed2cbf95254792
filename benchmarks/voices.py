"""``benchmarks run voices``: what the fixture voices cost to render, and what they sound like
by the numbers (duration, level, pitch) per voice and per style."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import Progress

from voxmem.audio import Audio
from voxmem.benchmarks.report import Report, versions
from voxmem.benchmarks.synth import STYLES, VOICES, ClipCache, Utterance, render, rms

SENTENCE = "Please bring the budget report to the meeting on Tuesday afternoon."


def median_f0(audio: Audio) -> float:
    """Median F0 (Hz) over voiced frames; 0 when nothing is voiced."""
    import pyworld as pw

    x = audio.samples.astype(np.float64)
    f0, _t = pw.dio(x, audio.sample_rate, frame_period=10.0)
    voiced = f0[f0 > 0]
    return float(np.median(voiced)) if len(voiced) else 0.0


def run_voices(*, out: Path, seed: int, quick: bool, console: Console) -> Report:
    voices = VOICES[:3] if quick else VOICES
    styles = STYLES[:3] if quick else STYLES
    cache = ClipCache(out / "clips")
    report = Report(
        "voices",
        "synthetic",
        ["voice", "style", "duration_s", "render_s", "rtf", "rms_dbfs", "median_f0_hz"],
        meta={"versions": versions("numpy", "pyworld", "piper-tts")},
    )
    start = time.perf_counter()
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("rendering", total=len(voices) * len(styles))
        for voice in voices:
            for style in styles:
                t0 = time.perf_counter()
                clip = render(Utterance(SENTENCE, voice.id, style.name, seed=seed), cache)
                took = time.perf_counter() - t0
                report.rows.append(
                    {
                        "voice": voice.id,
                        "style": style.name,
                        "duration_s": clip.duration,
                        "render_s": took,
                        "rtf": took / clip.duration,
                        "rms_dbfs": 20 * np.log10(max(rms(clip.samples), 1e-9)),
                        "median_f0_hz": median_f0(clip),
                    }
                )
                progress.advance(task)
    report.timings["total_s"] = time.perf_counter() - start
    report.notes.append(
        "render_s includes TTS, WORLD restyling and FLAC caching; a rerun with "
        "the same --out reads the cache."
    )
    return report
