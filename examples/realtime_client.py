"""Talk to ``voxmem serve`` as a Realtime client would: stream audio files in real time
(100 ms chunks, then silence), print what the server heard, recalled and answered, and
the latency from the end of speech to the first reply audio as the server measured it.

    .venv/bin/voxmem token acme --file tokens.txt > token.txt
    .venv/bin/voxmem serve --token-file tokens.txt &
    .venv/bin/python examples/realtime_client.py --token "$(cat token.txt)" a.wav b.wav
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import statistics
import time
from pathlib import Path

import numpy as np
from websockets.asyncio.client import connect

from voxmem.audio import load_audio

RATE = 24_000
CHUNK_S = 0.1


def pcm24k(path: Path) -> bytes:
    from scipy.signal import resample_poly

    clip = load_audio(path)  # 16 kHz mono float32
    x = resample_poly(clip.samples, 3, 2)
    x = np.concatenate([np.zeros(int(0.3 * RATE)), x, np.zeros(int(1.0 * RATE))])
    return (np.clip(x, -1, 1) * 32767).astype("<i2").tobytes()


async def turn(ws: object, pcm: bytes) -> dict[str, object]:
    """Stream one file in real time; return the response.done event."""
    step = 2 * int(RATE * CHUNK_S)
    began = time.perf_counter()
    for i in range(0, len(pcm), step):
        await ws.send(  # type: ignore[attr-defined]
            json.dumps(
                {
                    "type": "input_audio_buffer.append",
                    "audio": base64.b64encode(pcm[i : i + step]).decode(),
                }
            )
        )
        await asyncio.sleep(max(0.0, began + (i // step + 1) * CHUNK_S - time.perf_counter()))
    while True:
        event = json.loads(await ws.recv())  # type: ignore[attr-defined]
        kind = event["type"]
        if kind == "conversation.item.input_audio_transcription.completed":
            who = event.get("speaker_name") or event.get("speaker_id") or "new voice"
            print(f"  heard ({who}): {event['transcript']}")
        elif kind == "memory.retrieval.completed":
            for h in event["hits"][:3]:
                who = h["speaker_name"] or h["role"]
                print(f"  recalled {h['turn_id']} ({who}): {h['transcript']}")
        elif kind == "response.done":
            r = event["response"]
            said = r["output"][0]["content"][0]["transcript"] if r["output"] else ""
            print(f"  reply [{r['status']}]: {said}")
            print(f"  latency: {r['voxmem'].get('latency')}")
            print(f"  agent timings (s): {r['voxmem'].get('timings')}")
            return event


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--url", default="ws://127.0.0.1:8765/v1/realtime")
    ap.add_argument("--token", required=True)
    ap.add_argument("--repeat", type=int, default=1, help="play the files this many times")
    args = ap.parse_args()
    clips = [pcm24k(f) for f in args.files]
    latencies: list[float] = []
    async with connect(
        args.url, additional_headers={"Authorization": f"Bearer {args.token}"}
    ) as ws:
        created = json.loads(await ws.recv())
        print(f"session {created['session']['voxmem']}")
        for _ in range(args.repeat):
            for path, pcm in zip(args.files, clips, strict=True):
                print(f"{path.name}:")
                done = await turn(ws, pcm)
                lat = done["response"]["voxmem"].get("latency", {})  # type: ignore[index]
                if "speech_end_to_first_audio_ms" in lat:
                    latencies.append(lat["speech_end_to_first_audio_ms"])
    if latencies:
        q = statistics.quantiles(latencies, n=20) if len(latencies) > 1 else latencies * 19
        print(
            f"end of speech -> first audio: p50 {statistics.median(latencies):.0f} ms, "
            f"p95 {q[18]:.0f} ms over {len(latencies)} turns"
        )


if __name__ == "__main__":
    asyncio.run(main())
