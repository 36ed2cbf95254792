"""A process that transcribes a clip under loud white noise (-5 dB), which whisper
decodes again by sampling, and prints each segment's temperature and words as JSON.
ORDER is the noises' seeds in the order transcribed, ``r`` restarting the sampling.

    python -m tests.asr_child CLIP.wav [ORDER, default 0,1]
"""

from __future__ import annotations

import json
import sys

import numpy as np

from voxmem.audio import load_audio
from voxmem.memory.encoders import factory
from voxmem.settings import Settings

if __name__ == "__main__":
    asr = factory.transcriber(Settings())
    clean = load_audio(sys.argv[1]).samples.astype(np.float32)
    out = []
    order = (sys.argv[2] if len(sys.argv) > 2 else "0,1").split(",")
    for step in order:
        if step == "r":
            asr.restart_sampling()
            continue
        seed = int(step)
        noise = np.random.default_rng(seed).standard_normal(len(clean)).astype(np.float32)
        noisy = clean + np.sqrt(np.mean(clean**2) / 10 ** (-5 / 10) / np.mean(noise**2)) * noise
        # the transcriber's own options (WhisperTranscriber.transcribe), with each
        # segment's temperature, which its Transcript does not keep
        segments, _ = asr._model.transcribe(
            noisy,
            beam_size=asr.beam_size,
            language=asr.language,
            word_timestamps=True,
            vad_filter=True,
            condition_on_previous_text=False,
        )
        out.append([(s.temperature, s.text) for s in segments])
    print(json.dumps(out), flush=True)
