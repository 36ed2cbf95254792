"""Run the probes over task folders (a real Dynamic-SUPERB download or the mini edition)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import Progress

from voxmem.audio import Audio
from voxmem.benchmarks.probes.metrics import (
    equal_error_rate,
    nearest_prototype_accuracy,
    word_error_rate,
)
from voxmem.benchmarks.probes.mini import TEST_VOICES, TRAIN_VOICES, build_mini
from voxmem.benchmarks.probes.taskformat import Task, TaskFormatError, read_task
from voxmem.benchmarks.report import Report, versions
from voxmem.benchmarks.synth import ClipCache
from voxmem.memory.encoders import factory
from voxmem.settings import Settings

TARGETS = {
    "asr_wer_clean": "< 0.05",
    "eer_clean": "< 0.05",
    "eer_snr10": "< 0.10",
    "environment_top1": "> 0.80",
    "der": "< 0.15",
}
COLUMNS = ["probe", "task", "backend", "metric", "value", "target", "n"]


class ProbeRun:
    def __init__(self, settings: Settings, console: Console, progress: Progress) -> None:
        self.settings, self.console, self.progress = settings, console, progress
        self.report = Report(
            "probes",
            "",
            COLUMNS,
            meta={"versions": versions("onnxruntime", "faster-whisper", "opensmile", "torch")},
        )
        self.encode_time: dict[str, list[float]] = {}

    def add(
        self,
        probe: str,
        task: str,
        backend: str,
        metric: str,
        value: float,
        n: int,
        target: str = "",
    ) -> None:
        self.report.rows.append(
            {
                "probe": probe,
                "task": task,
                "backend": backend,
                "metric": metric,
                "value": value,
                "target": target,
                "n": n,
            }
        )

    @contextmanager
    def timing(self, name: str, audio_seconds: float) -> Iterator[None]:
        """Add the wall time of the block to ``name``'s encoding cost."""
        start = time.perf_counter()
        yield
        acc = self.encode_time.setdefault(name, [0.0, 0.0])
        acc[0] += audio_seconds
        acc[1] += time.perf_counter() - start

    def clips(self, task: Task, column: str = "audio") -> list[Audio]:
        bar = self.progress.add_task(f"decoding {task.name}", total=len(task.rows))
        out = []
        for row in task.rows:
            out.append(task.audio(row, column))
            self.progress.advance(bar)
        self.progress.remove_task(bar)
        return out

    # -- probes -------------------------------------------------------------------

    def speaker_verification(self, task: Task) -> None:
        enroll = self.clips(task, "enrollment" if "enrollment" in task.audio_columns else "audio")
        test = self.clips(task, "testing" if "testing" in task.audio_columns else "audio2")
        same = [str(r["label"]).strip().lower() in {"yes", "same", "true", "1"} for r in task.rows]
        seconds = sum(c.duration for c in enroll + test)
        target = TARGETS["eer_snr10"] if "SNR" in task.name else TARGETS["eer_clean"]
        for backend in ("voicefilter-dvector", "resemblyzer"):
            s = self.settings.model_copy(
                update={
                    "speaker": self.settings.speaker.model_copy(
                        update={"backend": backend, "weights": None}
                    )
                }
            )
            enc = factory.speaker_encoder(s)
            enc.embed(enroll[:1])  # warm up before timing
            with self.timing(f"speaker:{backend}", seconds):
                a, b = enc.embed(enroll), enc.embed(test)
            eer = equal_error_rate(np.sum(a * b, axis=1).tolist(), same)
            self.add("speaker verification", task.name, backend, "EER", eer, len(same), target)

    def style(self, task: Task) -> None:
        enc = factory.style_encoder(self.settings)
        clips = self.clips(task)
        with self.timing("style:egemaps", sum(c.duration for c in clips)):
            feats = enc.features(clips)
        labels = [str(r["label"]) for r in task.rows]
        speakers = [str(r.get("speaker") or "") for r in task.rows]
        train, test = _split(task, speakers, TRAIN_VOICES, TEST_VOICES)
        absolute = enc.vectors(feats)
        acc, per = nearest_prototype_accuracy(
            absolute[train], np.array(labels)[train], absolute[test], np.array(labels)[test]
        )
        self.add("style", task.name, "egemaps", "accuracy (absolute)", acc, int(test.sum()))
        for label, value in per.items():
            self.add(
                "style",
                task.name,
                "egemaps",
                f"accuracy {label}",
                value,
                int(np.sum(np.array(labels)[test] == label)),
            )
        if all(speakers):
            baselines = {s: feats[np.array(speakers) == s].mean(axis=0) for s in set(speakers)}
            relative = np.stack(
                [enc.vectors(f, baselines[s])[0] for f, s in zip(feats, speakers, strict=True)]
            )
            acc_rel, _ = nearest_prototype_accuracy(
                relative[train], np.array(labels)[train], relative[test], np.array(labels)[test]
            )
            self.add(
                "style",
                task.name,
                "egemaps",
                "accuracy (speaker-relative)",
                acc_rel,
                int(test.sum()),
            )

    def environment(self, task: Task) -> None:
        enc = factory.environment_encoder(self.settings)
        clips = self.clips(task)
        enc.embed(clips[:1])
        with self.timing("environment:yamnet", sum(c.duration for c in clips)):
            vectors = enc.embed(clips)
        labels = np.array([str(r["label"]) for r in task.rows])
        speakers = [str(r.get("speaker") or "") for r in task.rows]
        train, test = _split(task, speakers, TRAIN_VOICES, TEST_VOICES)
        acc, per = nearest_prototype_accuracy(
            vectors[train], labels[train], vectors[test], labels[test]
        )
        self.add(
            "environment",
            task.name,
            "yamnet",
            "top-1 accuracy",
            acc,
            int(test.sum()),
            TARGETS["environment_top1"],
        )
        kinds = np.array([str(r.get("kind") or "") for r in task.rows])
        if (kinds == "real").any():
            real = test & (kinds == "real")
            pred_ok = [per[lab] for lab in sorted(set(labels[real]))]
            self.add(
                "environment",
                task.name,
                "yamnet",
                "top-1 accuracy (real sounds)",
                float(np.mean(pred_ok)),
                int(real.sum()),
            )
        for label, value in per.items():
            self.add(
                "environment",
                task.name,
                "yamnet",
                f"accuracy {label}",
                value,
                int(np.sum(labels[test] == label)),
            )

    def asr(self, task: Task) -> None:
        clips = self.clips(task)
        refs = [str(r["label"]) for r in task.rows]
        seconds = sum(c.duration for c in clips)
        target = TARGETS["asr_wer_clean"] if task.name.endswith("Clean") else ""
        for variant in ("base", "tiny.en"):
            s = self.settings.model_copy(
                update={"asr": self.settings.asr.model_copy(update={"variant": variant})}
            )
            asr = factory.transcriber(s)
            asr.transcribe(clips[0])
            with self.timing(f"asr:whisper-{variant}", seconds):
                hyps = [asr.transcribe(c).text for c in clips]
            self.add(
                "asr",
                task.name,
                f"whisper-{variant}",
                "WER",
                word_error_rate(refs, hyps),
                len(refs),
                target,
            )

    def diarization(self, task: Task) -> None:
        from pyannote.core import Annotation, Segment
        from pyannote.metrics.diarization import DiarizationErrorRate

        diarize = factory.diarizer(self.settings)
        clips = self.clips(task)
        by_count: dict[str, Any] = {}
        counts_right: dict[str, list[bool]] = {}
        for row, clip in zip(task.rows, clips, strict=True):
            ref = Annotation()
            spans = json.loads(row["label"])
            for start, end, who in spans:
                ref[Segment(start, end)] = who
            hyp = Annotation()
            with self.timing("diarization:clustering", clip.duration):
                turns = diarize(clip)
            for t in turns:
                hyp[Segment(t.start, t.end)] = t.speaker
            key = f"{len({w for _, _, w in spans})} speakers"
            metric = by_count.setdefault(key, DiarizationErrorRate(collar=0.25))
            metric(ref, hyp)
            counts_right.setdefault(key, []).append(
                len({t.speaker for t in turns}) == len({w for _, _, w in spans})
            )
        for key, metric in sorted(by_count.items()):
            self.add(
                "diarization",
                task.name,
                "clustering",
                f"DER ({key}, collar 0.25)",
                abs(metric),
                len(counts_right[key]),
                TARGETS["der"],
            )
            self.add(
                "diarization",
                task.name,
                "clustering",
                f"speaker count right ({key})",
                float(np.mean(counts_right[key])),
                len(counts_right[key]),
            )

    def throughput(self) -> None:
        for name, (audio_s, wall_s) in sorted(self.encode_time.items()):
            self.add(
                "throughput", "", name, "seconds per audio second", wall_s / audio_s, int(audio_s)
            )

    def ingest_cost(self, clips: list[Audio]) -> None:
        """Wall time to perceive one typical segment with every default encoder."""
        s = self.settings
        asr, spk = factory.transcriber(s), factory.speaker_encoder(s)
        style, env, text = (
            factory.style_encoder(s),
            factory.environment_encoder(s),
            factory.text_encoder(s),
        )
        text.passages(["warm up"])
        asr.transcribe(clips[0])
        start = time.perf_counter()
        transcripts = [asr.transcribe(c).text for c in clips]
        spk.embed(clips)
        style.embed(clips)
        env.embed(clips)
        text.passages(transcripts)
        took = time.perf_counter() - start
        mean_len = float(np.mean([c.duration for c in clips]))
        self.add(
            "ingest",
            "",
            "all default encoders",
            "seconds per segment",
            took / len(clips),
            len(clips),
        )
        self.add("ingest", "", "all default encoders", "mean segment seconds", mean_len, len(clips))


def _split(
    task: Task, speakers: list[str], train_voices: tuple[str, ...], test_voices: tuple[str, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Speakers held out when the task names them; otherwise alternate rows."""
    spk = np.array(speakers)
    if all(speakers) and set(spk) & set(train_voices) and set(spk) & set(test_voices):
        return np.isin(spk, train_voices), np.isin(spk, test_voices)
    if all(speakers):
        names = sorted(set(spk))
        held = set(names[len(names) // 2 :])
        return ~np.isin(spk, list(held)), np.isin(spk, list(held))
    idx = np.arange(len(task.rows))
    return idx % 2 == 0, idx % 2 == 1


PROBES: dict[str, str] = {
    "SpeakerVerification": "speaker_verification",
    "SpeakingStyleRecognition": "style",
    "EmotionRecognition": "style",
    "SuperbER": "style",
    "DialogueEmotionClassification": "style",
    "EnvironmentRecognition": "environment",
    "EnvironmentalSoundClassification": "environment",
    "SpeechRecognition": "asr",
    "SuperbASR": "asr",
    "SpeakerDiarization": "diarization",
}


def probe_for(task_name: str) -> str | None:
    prefix = task_name.split("_", 1)[0]
    return PROBES.get(prefix)


def run_probes(
    *,
    out: Path,
    seed: int,
    quick: bool,
    console: Console,
    data_dir: Path | None = None,
    settings: Settings | None = None,
) -> Report:
    settings = settings or Settings()
    start = time.perf_counter()
    with Progress(console=console, transient=True) as progress:
        run = ProbeRun(settings, console, progress)
        if data_dir is None:
            step = progress.add_task("generating the mini edition", total=None)
            root = build_mini(
                settings.cache_dir / "probes",
                ClipCache(settings.cache_dir / "synth"),
                quick,
                seed,
                progress=lambda n: progress.update(step, description=f"building {n}"),
            )
            progress.remove_task(step)
            run.report.edition = f"mini edition ({'quick' if quick else 'full'}, seed {seed})"
        else:
            root = data_dir
            run.report.edition = f"task folders in {data_dir}"
        folders = sorted(p for p in root.iterdir() if p.is_dir() and probe_for(p.name))
        if not folders:
            raise TaskFormatError(
                f"{root} holds no task folders named like {', '.join(f'{k}_*' for k in PROBES)}"
            )
        overall = progress.add_task("probes", total=len(folders))
        style_clips: list[Audio] = []
        for folder in folders:
            progress.update(overall, description=f"probe {folder.name}")
            task = read_task(folder)
            probe = probe_for(folder.name)
            assert probe is not None
            getattr(run, probe)(task)
            if probe == "style" and not style_clips:
                style_clips = [task.audio(r) for r in task.rows[:10]]
            progress.advance(overall)
        if style_clips:
            run.ingest_cost(style_clips)
        run.throughput()
    run.report.timings["total_s"] = time.perf_counter() - start
    run.report.meta["threads"] = settings.threads
    run.report.meta["torch_threads"] = settings.torch_threads
    run.report.notes += [
        "Throughput is wall seconds per second of audio on the configured threads "
        f"({settings.threads}; torch's {settings.torch_threads}); lower is faster.",
        "Style and environment accuracy: nearest class mean (cosine), prototypes from "
        f"{', '.join(TRAIN_VOICES)}, tested on {', '.join(TEST_VOICES)}.",
        "Speaker-relative style: each speaker's mean functionals over their clips in the task "
        "are the baseline, as the memory keeps per speaker.",
        "DER: pyannote.metrics, 0.25 s collar, overlap scored.",
    ]
    return run.report
