"""Embed voxmem's audio memory in your own assistant.

    .venv/bin/python examples/embed_memory.py [AUDIO_FILE ...]

Without files it synthesises a short two-voice conversation. Everything runs
offline on the shipped models; the memory lives in ./example-memory.
"""

from __future__ import annotations

import sys
from pathlib import Path

from voxmem.memory import AudioMemory


def demo_audio() -> list[Path]:
    from voxmem.audio import write_wav
    from voxmem.benchmarks.synth import Utterance
    from voxmem.benchmarks.synth.conversation import conversation

    audio, _ = conversation(
        [
            Utterance("The budget for the launch was cut by ten percent.", "flite-rms"),
            Utterance("Then we should move the launch party to the office.", "piper-joe"),
        ],
        cache=None,
    )
    return [write_wav(audio, Path("example-conversation.wav"))]


def main() -> None:
    files = [Path(f) for f in sys.argv[1:]] or demo_audio()
    with AudioMemory.open("example-memory") as memory:
        for f in files:
            # Every call names a tenant: one per end user of your assistant.
            for turn in memory.ingest(f, tenant="user-42", session="call-1", role="user"):
                print(f"{turn.speaker_id}  {turn.start:5.2f}-{turn.end:5.2f}  {turn.transcript}")

        # Recall by meaning, in one space at a time (text, speaker, style, environment).
        for hit in memory.search("user-42", "text", memory.embed_query("the money"), k=1):
            print(f"best match ({hit.score:.2f}): {hit.segment.transcript}")
            memory.audio("user-42", hit.segment.id)  # the turn's own audio, as stored

        print(memory.stats("user-42"))
        # Forget erases audio, rows, vectors and their bytes on disk.
        memory.forget("user-42", session="call-1")


if __name__ == "__main__":
    main()
