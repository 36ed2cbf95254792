"""Server VAD and the audio plumbing under it: turn taking over frame probabilities,
the streaming resampler, the input buffer's timeline, and Silero on real speech."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from voxmem.server.audio import InputBuffer, StreamResampler, chunk_pcm
from voxmem.server.vad import FRAME_MS, StreamingVad, TurnDetector, TurnTaking


def _run(probs: list[float], params: TurnTaking) -> list[tuple[str, float, bool]]:
    det = TurnDetector(params)
    out = []
    for i, p in enumerate(probs):
        e = det.push(p, i * 32.0, (i + 1) * 32.0)
        if e is not None:
            out.append((e.kind, e.at_ms, e.is_turn))
    return out


def test_turns_start_above_threshold_and_stop_after_the_silence() -> None:
    params = TurnTaking(threshold=0.5, prefix_padding_ms=100, silence_duration_ms=320)
    probs = [0.1] * 10 + [0.9] * 20 + [0.05] * 12
    events = _run(probs, params)
    # onset at frame 10 (320 ms) minus 100 ms of prefix; speech ends at frame 30 (960 ms);
    # the stop is known 320 ms of silence later
    assert events == [("started", 220.0, True), ("stopped", 960.0, True)]


def test_hysteresis_keeps_a_dip_inside_the_turn() -> None:
    params = TurnTaking(threshold=0.5, silence_duration_ms=200)
    probs = [0.9] * 10 + [0.4] * 20 + [0.9] * 5 + [0.0] * 10  # 0.4 > 0.5 - 0.15
    assert [e[0] for e in _run(probs, params)] == ["started", "stopped"]


def test_a_click_is_not_a_turn_and_a_long_silence_is_needed() -> None:
    params = TurnTaking(silence_duration_ms=500, min_speech_ms=160)
    assert _run([0.9] * 2 + [0.0] * 20, params)[-1] == ("stopped", 64.0, False)
    # a pause shorter than the silence window does not end the turn
    probs = [0.9] * 10 + [0.0] * 10 + [0.9] * 10 + [0.0] * 20
    assert [e[0] for e in _run(probs, params)] == ["started", "stopped"]


def test_streaming_resampler_matches_one_pass_and_keeps_pitch() -> None:
    rate = 24_000
    t = np.arange(rate) / rate
    x = (0.5 * np.sin(2 * np.pi * 1000 * t)).astype(np.float32)
    whole = StreamResampler(rate)(x)
    r = StreamResampler(rate)
    pieces = np.concatenate([r(x[i : i + 997]) for i in range(0, len(x), 997)])
    assert len(pieces) == len(whole) == 16_000
    assert np.allclose(pieces, whole, atol=1e-6)
    spec = np.abs(np.fft.rfft(whole[2000:]))
    assert abs(np.fft.rfftfreq(len(whole) - 2000, 1 / 16_000)[np.argmax(spec)] - 1000) < 5
    # unity gain in the pass band (the upsampling's zeros are made up for)
    assert abs(np.sqrt(np.mean(whole[2000:] ** 2)) - 0.5 / np.sqrt(2)) < 0.01


def test_input_buffer_keeps_the_session_timeline() -> None:
    buf = InputBuffer(16_000)
    buf.append(bytes(2 * 16_000))  # 1 s
    buf.drop_before(400)
    assert buf.start_ms == 400 and buf.end_ms == 1000
    buf.append(bytes(2 * 8_000))
    piece = buf.take(500, 1200)
    assert len(piece) == 2 * int(0.7 * 16_000)
    assert buf.start_ms == 1200 and buf.end_ms == 1500
    assert [len(c) for c in chunk_pcm(bytes(2 * 24_000), 24_000, 160)][:2] == [7680, 7680]


@pytest.mark.synth
def test_silero_streams_turns_of_real_speech(clip_cache: Any) -> None:
    from voxmem.benchmarks.synth import Utterance, render
    from voxmem.server.vad import SileroStream
    from voxmem.settings import Settings

    speech = render(
        Utterance(text="The budget is forty thousand dollars.", voice="flite-slt"), clip_cache
    )
    assert speech.sample_rate == 16_000
    x = np.concatenate([np.zeros(8000), speech.samples, np.zeros(16_000)]).astype(np.float32)
    make = SileroStream.factory(Settings())
    params = TurnTaking(prefix_padding_ms=0, silence_duration_ms=500)

    def events(chunk: int) -> list[Any]:
        vad = StreamingVad(make(), params)
        out = []
        for i in range(0, len(x), chunk):
            out += vad.feed(x[i : i + chunk])
        return out

    one, streamed = events(len(x)), events(1600)  # at once, and in 100 ms pieces
    assert [(e.kind, e.at_ms) for e in one] == [(e.kind, e.at_ms) for e in streamed]
    assert [e.kind for e in one] == ["started", "stopped"]
    loud = np.flatnonzero(np.abs(speech.samples) > 0.05 * np.abs(speech.samples).max())
    speech_start, speech_end = 500.0 + loud[0] / 16.0, 500.0 + loud[-1] / 16.0
    assert abs(one[0].at_ms - speech_start) < 100
    assert abs(one[1].at_ms - speech_end) < 200
    assert one[1].at_ms % FRAME_MS == 0
