"""How whisper's decoding options hear noisy dev speech: word error rate by SNR, time,
and how many clips another draw of the sampled retry hears differently.

    python -m voxmem.benchmarks.asr_dev [--facts 30] [--seed 11]

The clips are ``fusion_dev``'s answer sentences said by the distinct voices over its dev
backgrounds at 10, 5 and 0 dB: no mini edition's words or noise, but its voices (the
distinct voices are theirs too), so every figure here is a dev figure. Options, each
with the transcriber's own settings (greedy first pass, word times, VAD, no previous
text):

- ``sampled``: faster-whisper's default, a clip that fails its checks (compression ratio
  above 2.4, mean log-probability below -1) decoded again at temperatures 0.2 to 1.0 by
  sampling; then ``sampled, another draw`` (the same, the sampler having moved on);
- ``greedy``: temperature 0 only, no retry;
- ``greedy, beam-5 retry``: a clip failing those checks decoded again with a beam of 5 at
  temperature 0, the likelier of the two kept.
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from voxmem.benchmarks.fusion_dev import DEV_FACTS, DEV_NOISES
from voxmem.benchmarks.probes.metrics import edit_distance
from voxmem.benchmarks.retrieval.common import bench_settings
from voxmem.benchmarks.synth import ClipCache, Utterance, distinct_voices, render

SNRS = (10.0, 5.0, 0.0)


def word_errors(ref: str, hyp: str) -> tuple[int, int]:
    """Word edits from ``ref`` to ``hyp`` (lower case, punctuation dropped, hyphenated
    words kept whole), and the reference's length."""
    r = re.findall(r"[a-z0-9']+", ref.lower())
    h = re.findall(r"[a-z0-9']+", hyp.lower())
    return edit_distance(r, h), len(r)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--facts", type=int, default=30, help="dev sentences (x3 SNRs)")
    ap.add_argument("--seed", type=int, default=11, help="draws each clip's background")
    args = ap.parse_args()
    from voxmem.memory.encoders import factory

    settings = bench_settings(mini=True)
    cache = ClipCache(settings.cache_dir / "synth")
    voices = [v.id for v in distinct_voices()]
    rng = np.random.default_rng(args.seed)
    clips = []
    for i, fact in enumerate(DEV_FACTS[: args.facts]):
        for snr in SNRS:
            noise = DEV_NOISES[int(rng.integers(len(DEV_NOISES)))]
            u = Utterance(
                fact[1], voices[i % len(voices)], background=noise, snr_db=snr, seed=9000 + i
            )
            clips.append((fact[1], snr, np.ascontiguousarray(render(u, cache).samples, np.float32)))
    model = factory.transcriber(settings)._model
    base: dict[str, Any] = dict(
        beam_size=1, word_timestamps=True, vad_filter=True, condition_on_previous_text=False
    )

    def sampled(a: np.ndarray) -> list[Any]:
        return list(model.transcribe(a, **base)[0])

    def greedy(a: np.ndarray) -> list[Any]:
        return list(model.transcribe(a, **base, temperature=0.0)[0])

    def beam_retry(a: np.ndarray) -> list[Any]:
        first = greedy(a)
        if not any(s.compression_ratio > 2.4 or s.avg_logprob < -1.0 for s in first):
            return first
        again = list(model.transcribe(a, **{**base, "beam_size": 5}, temperature=0.0)[0])

        def likely(ss: list[Any]) -> float:
            return float(np.mean([s.avg_logprob for s in ss])) if ss else -9.0

        return again if likely(again) >= likely(first) else first

    options: list[tuple[str, Callable[[np.ndarray], list[Any]]]] = [
        ("sampled", sampled),
        ("sampled, another draw", sampled),
        ("greedy", greedy),
        ("greedy, beam-5 retry", beam_retry),
    ]
    print(f"{len(clips)} dev clips ({args.facts} sentences at {', '.join(map(str, SNRS))} dB)")
    first: list[str] = []
    for name, decode in options:
        began = time.perf_counter()
        errors = {snr: [0, 0] for snr in SNRS}
        texts = []
        for ref, snr, samples in clips:
            text = " ".join(s.text.strip() for s in decode(samples))
            texts.append(text)
            e, n = word_errors(ref, text)
            errors[snr][0] += e
            errors[snr][1] += n
        total = sum(e for e, _ in errors.values()) / sum(n for _, n in errors.values())
        by = ", ".join(f"{snr:g} dB {e / n:.3f}" for snr, (e, n) in errors.items())
        line = f"{name:22s} WER {total:.3f} ({by}) in {time.perf_counter() - began:.0f} s"
        if name == "sampled":
            first = texts
        elif name == "sampled, another draw":
            line += (
                f"; {sum(a != b for a, b in zip(first, texts, strict=True))} clips heard otherwise"
            )
        print(line, flush=True)


if __name__ == "__main__":
    main()
