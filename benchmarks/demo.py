"""``voxmem demo``: a short conversation of three voices with varied styles and
backgrounds, stored in a memory and recalled by instruction."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from voxmem.audio import Audio, load_audio, write_wav
from voxmem.benchmarks.synth import ClipCache, Utterance, render
from voxmem.benchmarks.synth.conversation import speech_bounds
from voxmem.memory.store import AudioMemory
from voxmem.retrievers.recall import Reference, recall
from voxmem.settings import Settings

TURNS = [
    Utterance("The budget for the launch was cut by ten percent.", "flite-rms"),
    Utterance(
        "I am worried we will miss the deadline again.",
        "piper-joe",
        "sad",
        background="rain",
        snr_db=10.0,
    ),
    Utterance("Great news, the client signed the contract this morning!", "espeak-sc-f", "excited"),
    Utterance(
        "Please send me the slides before lunch tomorrow.",
        "flite-rms",
        "fast",
        background="phone",
        snr_db=10.0,
    ),
    Utterance("We should book the train tickets tonight.", "piper-joe"),
    Utterance("Do not tell anyone, but the party is on Friday.", "espeak-sc-f", "whisper"),
]
REFERENCE = Utterance("I will call you after the meeting.", "flite-rms")
QUESTIONS = [
    ("what did this speaker say about the budget?", True),
    ("find the part where someone sounds sad", False),
    ("the part with rain in the background", False),
    ("who whispered something?", False),
    ("what was said about the train tickets", False),
    ("something this person said in a hurried way", True),
]


def conversation_audio(cache: ClipCache | None) -> Audio:
    parts = [np.zeros(4800, np.float32)]
    for u in TURNS:
        clip = render(u, cache)
        a, b = speech_bounds(clip)
        parts += [clip.samples[a:b], np.zeros(8000, np.float32)]
    return Audio(np.concatenate(parts))


def run_demo(
    console: Console,
    folder: Path | None = None,
    data_dir: Path | None = None,
    settings: Settings | None = None,
) -> int:
    settings = settings or Settings()
    cache = ClipCache(settings.cache_dir / "synth")
    with tempfile.TemporaryDirectory(prefix="voxmem-demo-") as tmp:
        root = data_dir or Path(tmp) / "memory"
        memory = AudioMemory.open(root, settings=settings)
        if folder is not None:
            files = sorted(p for p in folder.iterdir() if p.is_file())
            console.print(f"ingesting {len(files)} file(s) from {folder}")
            for f in files:
                memory.ingest(f, tenant="demo", session=f.stem)
            reference = None
            questions = [(q, False) for q, has_ref in QUESTIONS if not has_ref]
        else:
            audio = write_wav(conversation_audio(cache), Path(tmp) / "conversation.wav")
            console.print(
                f"a {load_audio(audio).duration:.1f} s conversation of three voices "
                "(styles: neutral, sad, excited, fast, whisper; rain and a phone in "
                "the background)"
            )
            with console.status("diarizing, transcribing and encoding"):
                memory.ingest(audio, tenant="demo", session="meeting")
            reference = Reference.encode(memory, render(REFERENCE, cache))
            questions = QUESTIONS
        table = Table(title="stored turns")
        for col in ("speaker", "time", "transcript", "style", "environment"):
            table.add_column(col, overflow="fold")
        for seg in memory.list("demo", limit=100):
            table.add_row(
                seg.speaker_id or "-",
                f"{seg.start:.1f}-{seg.end:.1f}",
                seg.transcript,
                _top(seg.style_labels),
                _top(seg.environment_labels),
            )
        console.print(table)
        for question, needs_ref in questions:
            result = recall(
                memory, "demo", question, reference=reference if needs_ref else None, k=2
            )
            ref_note = " (with a reference clip of the first voice)" if needs_ref else ""
            console.print(f"\n[bold]{question}[/]{ref_note}\n  plan: {result.plan.describe()}")
            for rank, hit in enumerate(result.turns, 1):
                ev = ", ".join(
                    f"{e.attribute} {e.how} {e.raw:.2f} (z {e.z:+.1f})"
                    for e in hit.evidence.values()
                )
                console.print(
                    escape(
                        f"  {rank}. {hit.segment.speaker_id} "
                        f"{hit.segment.start:.1f}s \u201c{hit.segment.transcript}"
                        f"\u201d  [{ev}]"
                    )
                )
        memory.close()
    return 0


def _top(labels: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.2f}" for k, v in list(labels.items())[:2])
