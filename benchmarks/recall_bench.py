"""``benchmarks run recall``: instruction-aware query latency at 10k segments.

The memory holds generated vectors at the real dimensions (with style and sound labels;
voiceprints from a pool of voices, as in ``benchmarks run store``);
queries use the real text encoder and parser, and reference clips are encoded with the
real encoders, so the figure is what a user waits for. With a reference clip it is
measured twice: a new clip each query (nothing cached) and the same clip again.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import Progress

from voxmem.audio import Audio
from voxmem.benchmarks.probes.metrics import word_error_rate
from voxmem.benchmarks.report import Report, versions
from voxmem.benchmarks.store_bench import generated_vectors, voice_pool
from voxmem.benchmarks.synth import ClipCache, Utterance, distinct_voices, render
from voxmem.benchmarks.synth.texts import SENTENCES
from voxmem.memory.perception import Perception
from voxmem.memory.records import NewSegment
from voxmem.memory.store import AudioMemory
from voxmem.retrievers.recall import recall
from voxmem.retrievers.reference import transcribe_reference
from voxmem.settings import Settings

WITHOUT = [
    "what was said about the budget",
    "the part with rain in the background",
    "find the turn where someone sounds sad",
    "who whispered something?",
    "what did I say about the train tickets",
    "something said in a hurried way",
]
WITH = [
    "what did this speaker say about the budget?",
    "more from this voice",
    "find clips from this speaker sounding sad",
    "with the same background as this one",
    "in the same tone as this clip",
    "what comes next in this conversation",
]
#: style queries, judged against each speaker's baseline (how they usually talk)
STYLED = [
    "find the turn where someone sounds sad",
    "who whispered something?",
    "something said in a hurried way",
]
RAW_STYLE_DIM = 88  # eGeMAPSv02 functionals
STYLES = ["neutral", "sad", "excited", "angry", "whisper", "fast", "slow"]
SOUNDS = ["Rain", "Telephone", "Speech", "Typing", "Bird", "Dog", "Wind"]


def run_recall(*, out: Path, seed: int, quick: bool, console: Console) -> Report:
    size, repeats = (2_000, 3) if quick else (10_000, 10)
    settings = Settings()
    rng = np.random.default_rng(seed)
    root = Path(tempfile.mkdtemp(prefix="voxmem-recall-"))
    ref_language: str | None = None
    wer = float("nan")
    wer_failed = ""
    spoken: tuple[str, ...] = ()
    report = Report(
        "recall",
        f"{size:,} generated segments, real query encoders",
        ["query", "n", "p50_ms", "p95_ms", "target_p95_ms"],
        meta={
            "versions": versions("chromadb", "faster-whisper"),
            "threads": settings.threads,
            "torch_threads": settings.torch_threads,
        },
    )
    try:
        memory = AudioMemory(
            settings.model_copy(update={"data_dir": root}), Perception.from_settings(settings)
        )
        clip = Audio((0.2 * np.sin(2 * np.pi * 220 * np.arange(4000) / 16_000)).astype(np.float32))
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task(f"storing {size:,} segments", total=size)
            pool = voice_pool(rng)

            def turns(first: int, n: int) -> list[NewSegment]:
                batch = generated_vectors(rng, pool, n)
                # raw style functionals, as perception stores beside the style vector
                batch["style_raw"] = rng.standard_normal((n, RAW_STYLE_DIM)).astype(np.float32)
                return [
                    NewSegment(
                        clip,
                        f"turn {first + i}",
                        {s: v[i] for s, v in batch.items()},
                        role=str(rng.choice(["user", "agent"])),
                        style_labels={str(rng.choice(STYLES)): float(rng.random())},
                        environment_labels={str(rng.choice(SOUNDS)): float(rng.random())},
                    )
                    for i in range(n)
                ]

            for first in range(0, size, 100):
                memory.add_segments(turns(first, 100), tenant="bench", session=f"s{first // 100}")
                progress.advance(task, 100)
        cache = ClipCache(settings.cache_dir / "synth")
        voices = [v.id for v in distinct_voices()]
        clips = [
            render(Utterance(text, voices[i % len(voices)]), cache)
            for i, text in enumerate(SENTENCES[: len(WITH)])
        ]
        # warm up as a served process does (the agent's warm-up): every encoder loaded
        # and run once, every query path taken once, on clips not measured later
        for instruction in WITHOUT:
            recall(memory, "bench", instruction, k=10)
        for i, instruction in enumerate(WITH):
            spare = Audio(clips[i].samples * np.float32(0.5))
            recall(memory, "bench", instruction, reference=spare, k=10)
            # the clip the cached case asks about again: encoded once, untimed
            recall(memory, "bench", instruction, reference=clips[i], k=10)
        drawn = 0

        def new_clip(i: int) -> Audio:
            """The i-th clip at a level never used before: its samples hash anew, so
            nothing of it is cached."""
            nonlocal drawn
            drawn += 1
            return Audio(clips[i].samples * np.float32(1.0 - 1e-5 * drawn))

        cases: list[tuple[str, list[str], Callable[[int], Audio | None], int | None]] = [
            ("without reference", WITHOUT, lambda i: None, 50),
            ("with a reference clip (new clip each query)", WITH, new_clip, 300),
            ("with a reference clip (same clip again: cached)", WITH, lambda i: clips[i], 300),
        ]
        for label, instructions, clip_for, target in cases:
            times = []
            for _ in range(repeats):
                for i, instruction in enumerate(instructions):
                    ref = clip_for(i)
                    t0 = time.perf_counter()
                    recall(memory, "bench", instruction, reference=ref, k=10)
                    times.append(time.perf_counter() - t0)
            report.rows.append(_row(label, times, target))
        # a live conversation stores a turn at every exchange: a style query asked after
        # one is judged against baselines the write has just changed
        times = []
        for r in range(repeats):
            for i, instruction in enumerate(STYLED):
                memory.add_segments(
                    turns(size + r * len(STYLED) + i, 1), tenant="bench", session="live"
                )
                t0 = time.perf_counter()
                recall(memory, "bench", instruction, k=10)
                times.append(time.perf_counter() - t0)
        report.rows.append(_row("style query, a turn stored before each (live)", times, 50))
        # what the reference's words cost: the reference decoder's full decode against
        # the short decode recall uses, on the same clips
        perception = memory.perception
        decoder = perception.reference_transcriber or perception.transcriber
        ref_language = getattr(decoder, "language", None)
        for label, decode in (
            ("reference ASR: full decode (30 s window, word times)", decoder.transcribe),
            (
                "reference ASR: short decode (clip-length window)",
                partial(transcribe_reference, perception),
            ),
        ):
            times = []
            for _ in range(max(1, repeats // 5)):
                for clip in clips:
                    t0 = time.perf_counter()
                    decode(clip)
                    times.append(time.perf_counter() - t0)
            report.rows.append(_row(label, times, None))
        memory.close()
        # what the reference decoder hears: its short decode's word error rate on every
        # rendered sentence (the timed clips among them), once the timings are kept
        spoken = SENTENCES if not quick else SENTENCES[: len(WITH)]
        try:
            heard = [
                transcribe_reference(
                    perception, render(Utterance(text, voices[i % len(voices)]), cache)
                )
                for i, text in enumerate(spoken)
            ]
            wer = word_error_rate(list(spoken), heard)
        except Exception as exc:  # the timings stand without it; the note says why
            wer_failed = f"{type(exc).__name__}: {exc}"
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report.notes += [
        "Each query: instruction parse, reference clip encoding (voice, style, environment; "
        "ASR only when the plan matches the reference's words), search of every space the "
        "plan uses (100 candidates each), fusion, and hydration of the top 10.",
        "Reference clips: "
        + ", ".join(f"{c.duration:.1f}" for c in clips)
        + " s. Instructions: "
        + "; ".join(WITH),
        "Before timing, each instruction is asked once (the WITH ones about a clip at half "
        "level, never asked about again): every model is loaded and run once, as a served "
        "process's warm-up does.",
        "Every stored turn has raw style functionals, so style queries are judged against "
        "each speaker's baseline; the live case stores one more turn (untimed) before each "
        "of its queries (" + "; ".join(STYLED) + ").",
        f"Threads: {settings.threads} per ONNX Runtime / whisper model (VOXMEM_THREADS), "
        f"torch's {settings.torch_threads} (VOXMEM_TORCH_THREADS).",
        "A new clip misses the encoding cache (keyed by the samples' hash); the same clip "
        "asked about again reuses its encodings and transcript.",
        "Reference ASR: whisper "
        + (
            f"{settings.asr.reference_variant} (VOXMEM_ASR__REFERENCE_VARIANT)"
            if settings.asr.reference_variant
            else f"{settings.asr.variant or 'base'} (the ASR's own)"
        )
        + ", language "
        + (
            f"{ref_language} (set, or the variant's only one)"
            if ref_language
            else "detected per clip (VOXMEM_ASR__LANGUAGE=en skips detection)"
        )
        + ".",
        f"Reference decode word error rate: {wer:.1%} on {len(spoken)} rendered sentences "
        "(the synthetic voices, clean)."
        if not wer_failed
        else f"Reference decode word error rate not measured ({wer_failed}).",
    ]
    report.meta["reference_wer"] = wer
    return report


def _row(label: str, times: list[float], target: int | None) -> dict[str, object]:
    return {
        "query": label,
        "n": len(times),
        "p50_ms": float(np.percentile(times, 50) * 1000),
        "p95_ms": float(np.percentile(times, 95) * 1000),
        "target_p95_ms": target,
    }
