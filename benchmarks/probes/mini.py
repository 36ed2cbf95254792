"""The offline mini edition of the probes, written in Dynamic-SUPERB's task format.

Voices are split in two: the style calibration and every probe's prototypes use
TRAIN_VOICES; the probes test on TEST_VOICES, which nothing was tuned on.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from voxmem.audio import load_audio
from voxmem.benchmarks.probes.taskformat import audio_cell, write_task
from voxmem.benchmarks.synth import (
    BACKGROUNDS,
    STYLES,
    ClipCache,
    Utterance,
    add_background,
    distinct_voices,
    render,
)
from voxmem.benchmarks.synth.conversation import conversation
from voxmem.benchmarks.synth.texts import SENTENCES

MINI_VERSION = 1
TRAIN_VOICES = ("flite-slt", "flite-awb", "festival-ked", "espeak-us-f", "espeak-gb-m")
TEST_VOICES = ("flite-rms", "flite-kal", "piper-joe", "espeak-sc-f", "espeak-us-m")
LIBRIVOX = Path("/usr/share/pocketsphinx/test/data/librivox")
ASR_NOISE = "pink-noise"
#: conversations for the diarization probe use seeds from here on, away from the
#: seeds the diarizer's threshold was chosen on (0-7)
DIARIZATION_SEED_BASE = 1000


def _sv_rows(
    cache: ClipCache, n_pairs: int, rng: np.random.Generator, snr_db: float | None
) -> list[dict[str, Any]]:
    voices = [v.id for v in distinct_voices()]
    rows = []
    for k in range(n_pairs):
        same = k % 2 == 0
        a = voices[int(rng.integers(len(voices)))]
        b = a if same else str(rng.choice([v for v in voices if v != a]))
        i, j = rng.choice(len(SENTENCES), 2, replace=False)
        clips = []
        for voice, sentence in ((a, i), (b, j)):
            clip = render(Utterance(SENTENCES[int(sentence)], voice), cache)
            if snr_db is not None:
                bg = BACKGROUNDS[int(rng.integers(len(BACKGROUNDS)))]
                clip = add_background(clip, bg, snr_db, rng)
            clips.append(clip)
        rows.append(
            {
                "file": f"pair{k:04d}",
                "enrollment": audio_cell(clips[0], f"pair{k:04d}-e.flac"),
                "testing": audio_cell(clips[1], f"pair{k:04d}-t.flac"),
                "instruction": "Are the two recordings from the same speaker? Answer yes or no.",
                "label": "yes" if same else "no",
                "speaker": f"{a}|{b}",
            }
        )
    return rows


def _style_rows(cache: ClipCache, per_style: int) -> list[dict[str, Any]]:
    rows = []
    for voice in TRAIN_VOICES + TEST_VOICES:
        for style in STYLES:
            for k in range(per_style):
                text = SENTENCES[8 + (k + STYLES.index(style)) % (len(SENTENCES) - 8)]
                clip = render(Utterance(text, voice, style.name), cache)
                name = f"{voice}-{style.name}-{k}"
                rows.append(
                    {
                        "file": name,
                        "audio": audio_cell(clip, name + ".flac"),
                        "instruction": "How is the speaker speaking? Answer with one of: "
                        + ", ".join(s.name for s in STYLES)
                        + ".",
                        "label": style.name,
                        "speaker": voice,
                    }
                )
    return rows


def _environment_rows(
    cache: ClipCache, per_class: int, rng: np.random.Generator
) -> list[dict[str, Any]]:
    rows = []
    for voice in TRAIN_VOICES + TEST_VOICES:
        for bg in BACKGROUNDS:
            for k in range(per_class):
                text = SENTENCES[int(rng.integers(len(SENTENCES)))]
                clip = render(
                    Utterance(text, voice, background=bg.name, snr_db=10.0, seed=k), cache
                )
                name = f"{voice}-{bg.name}-{k}"
                rows.append(
                    {
                        "file": name,
                        "audio": audio_cell(clip, name + ".flac"),
                        "instruction": "What sound is in the background?",
                        "label": bg.name,
                        "speaker": voice,
                        "kind": bg.kind,
                    }
                )
    return rows


def _asr_rows(snr_db: float | None, rng: np.random.Generator) -> list[dict[str, Any]]:
    refs = {}
    for line in (LIBRIVOX / "transcription").read_text().splitlines():
        if "</s>" in line:
            text, _, ident = line.partition("</s>")
            refs[ident.strip(" ()")] = text.replace("<s>", "").strip()
    rows = []
    for ident, text in sorted(refs.items()):
        clip = load_audio(LIBRIVOX / f"{ident}.wav")
        if snr_db is not None:
            clip = add_background(clip, ASR_NOISE, snr_db, rng)
        rows.append(
            {
                "file": ident,
                "audio": audio_cell(clip, ident + ".flac"),
                "instruction": "Transcribe the speech.",
                "label": text,
            }
        )
    return rows


def _diarization_rows(cache: ClipCache, per_count: int) -> list[dict[str, Any]]:
    voices = [v.id for v in distinct_voices()]
    rows = []
    for n_speakers in (2, 3):
        for k in range(per_count):
            seed = DIARIZATION_SEED_BASE + 10 * n_speakers + k
            rng = np.random.default_rng(seed)
            chosen = [str(v) for v in rng.choice(voices, n_speakers, replace=False)]
            order = chosen + [chosen[int(rng.integers(n_speakers))] for _ in range(6 - n_speakers)]
            turns = [
                Utterance(
                    SENTENCES[int(rng.integers(len(SENTENCES)))],
                    v,
                    str(rng.choice(["neutral", "fast", "slow", "sad", "excited"])),
                )
                for v in order
            ]
            audio, ref = conversation(turns, cache, seed=seed)
            name = f"conv{n_speakers}-{k}"
            rows.append(
                {
                    "file": name,
                    "audio": audio_cell(audio, name + ".flac"),
                    "instruction": "Who spoke when?",
                    "label": json.dumps([[r.start, r.end, r.speaker] for r in ref]),
                    "speakers": n_speakers,
                }
            )
    return rows


def build_mini(
    root: Path,
    cache: ClipCache,
    quick: bool,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> Path:
    """Write every mini task under ``root/<edition>/`` unless already there; return it."""
    edition = root / f"mini-v{MINI_VERSION}-{'quick' if quick else 'full'}-seed{seed}"
    done = edition / ".complete"
    if done.exists():
        return edition
    rng = np.random.default_rng(seed)
    n_pairs, per_style, per_class, per_count = (40, 1, 1, 2) if quick else (200, 3, 2, 8)
    tasks: list[tuple[str, Callable[[], list[dict[str, Any]]], str]] = [
        (
            "SpeakerVerification_VoxmemMini-Clean",
            lambda: _sv_rows(cache, n_pairs, rng, None),
            "Same/different speaker pairs, different sentences, clean.",
        ),
        (
            "SpeakerVerification_VoxmemMini-SNR10",
            lambda: _sv_rows(cache, n_pairs, rng, 10.0),
            "Same/different speaker pairs, different sentences, backgrounds at 10 dB SNR.",
        ),
        (
            "SpeakingStyleRecognition_VoxmemMini",
            lambda: _style_rows(cache, per_style),
            "Speaking styles from ten voices; column speaker names the voice.",
        ),
        (
            "EnvironmentRecognition_VoxmemMini",
            lambda: _environment_rows(cache, per_class, rng),
            "Backgrounds under speech at 10 dB SNR; column kind says real or generated.",
        ),
        (
            "SpeechRecognition_LibriVox-Clean",
            lambda: _asr_rows(None, rng),
            "Five real LibriVox sentences from Debian's pocketsphinx-testdata.",
        ),
        (
            "SpeechRecognition_LibriVox-SNR10",
            lambda: _asr_rows(10.0, rng),
            f"The LibriVox sentences with {ASR_NOISE} at 10 dB SNR.",
        ),
        (
            "SpeechRecognition_LibriVox-SNR0",
            lambda: _asr_rows(0.0, rng),
            f"The LibriVox sentences with {ASR_NOISE} at 0 dB SNR.",
        ),
        (
            "SpeakerDiarization_VoxmemMini",
            lambda: _diarization_rows(cache, per_count),
            "Generated two- and three-speaker conversations; label is JSON [start, end, speaker].",
        ),
    ]
    for name, build, description in tasks:
        if progress:
            progress(name)
        write_task(edition / name, build(), description)
    done.write_text("ok\n")
    return edition
