"""The voice server's protocol, with plain websockets clients against a real server on
loopback (a fake agent behind it: fake encoders, a pitch-keyed transcriber, a hum)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.server_helpers import (
    OTHER_TOKEN,
    TOKEN,
    Client,
    client,
    fake_server,
    masked_frame,
    pcm16,
    spoken,
    stalled_socket,
    tone,
)

MiB = 1 << 20


def _by_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


async def _flush(served: Any, tenant: str = "acme") -> None:
    assert await asyncio.to_thread(served.agent.flush, tenant, 10)


async def test_session_created_then_update_round_trips(tmp_path: Path) -> None:
    async with fake_server(tmp_path) as s, client(s.url) as c:
        created = c.seen[0]["session"]
        assert created["type"] == "realtime"
        assert created["audio"]["input"]["format"] == {"type": "audio/pcm", "rate": 24000}
        assert created["audio"]["input"]["turn_detection"]["type"] == "server_vad"
        assert created["voxmem"]["tenant"] == "acme"
        await c.send(
            {
                "type": "session.update",
                "event_id": "ev1",
                "session": {
                    "type": "realtime",
                    "instructions": "Answer in one sentence.",
                    "audio": {
                        "input": {
                            "format": {"type": "audio/pcm", "rate": 16000},
                            "turn_detection": {
                                "type": "server_vad",
                                "threshold": 0.6,
                                "silence_duration_ms": 300,
                                "create_response": False,
                            },
                        }
                    },
                },
            }
        )
        updated = (await c.until("session.updated"))["session"]
        td = updated["audio"]["input"]["turn_detection"]
        assert updated["audio"]["input"]["format"]["rate"] == 16000
        assert td["threshold"] == 0.6 and td["silence_duration_ms"] == 300
        assert td["create_response"] is False and td["prefix_padding_ms"] == 300
        assert updated["instructions"] == "Answer in one sentence."
        conv = created["voxmem"]["conversation"]
        assert s.agent.instructions("acme", conv) == "Answer in one sentence."


async def test_a_spoken_turn_with_server_vad(tmp_path: Path) -> None:
    async with fake_server(tmp_path) as s, client(s.url) as c:
        s.asr.register(300, "hello there")
        await c.append(spoken(300, seconds=1.0))  # 0.3 s silence, 1 s speech, 0.8 s silence
        done = await c.until("response.done")
        started = _by_type(c.seen, "input_audio_buffer.speech_started")[0]
        stopped = _by_type(c.seen, "input_audio_buffer.speech_stopped")[0]
        committed = _by_type(c.seen, "input_audio_buffer.committed")[0]
        assert started["item_id"] == stopped["item_id"] == committed["item_id"]
        # speech at 300 ms, reported with the 300 ms prefix padding; it ends at 1300 ms
        assert started["audio_start_ms"] <= 40
        assert abs(stopped["audio_end_ms"] - 1300) <= 70
        heard = _by_type(c.seen, "conversation.item.input_audio_transcription.completed")[0]
        assert heard["transcript"] == "hello there"
        assert heard["item_id"] == committed["item_id"]
        assert {"speaker_id", "speaker_name", "style", "environment", "segments"} <= set(heard)
        deltas = _by_type(c.seen, "response.output_audio.delta")
        assert deltas, c.types()
        sizes = [len(base64.b64decode(d["delta"])) / 48 for d in deltas]  # ms at 24 kHz
        assert max(sizes) <= 200 and np.median(sizes) >= 100
        assert _by_type(c.seen, "response.output_audio_transcript.done")[0]["transcript"]
        assert done["response"]["status"] == "completed"
        assert done["response"]["output"][0]["role"] == "assistant"
        order = c.types()
        assert (
            order.index("input_audio_buffer.speech_started")
            < order.index("input_audio_buffer.committed")
            < order.index("response.created")
            < order.index("response.output_audio.delta")
        )


async def test_recall_sends_hits_and_their_audio_is_served_to_the_tenant_only(
    tmp_path: Path,
) -> None:
    import urllib.request

    async with fake_server(tmp_path) as s, client(s.url) as c:
        s.asr.register(300, "the budget for the garden is forty thousand dollars")
        s.asr.register(520, "what did I say about the budget")
        await c.append(spoken(300, seconds=1.4))
        await c.until("response.done")
        await _flush(s)
        await c.append(spoken(520, seconds=1.0))
        recalled = await c.until("memory.retrieval.completed")
        await c.until("response.done")
        hits = recalled["hits"]
        assert recalled["intent"] == "recall"
        assert hits and "budget" in hits[0]["transcript"]
        assert {"turn_id", "speaker_id", "start", "end", "score", "evidence"} <= set(hits[0])

        def get(token: str | None) -> tuple[int, bytes]:
            req = urllib.request.Request(
                f"{s.server.url}/v1/memory/turns/{hits[0]['turn_id']}/audio"
            )
            if token:
                req.add_header("Authorization", f"Bearer {token}")
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    return r.status, r.read()
            except urllib.error.HTTPError as e:
                return e.code, b""

        status, body = await asyncio.to_thread(get, TOKEN)
        assert status == 200 and body[:4] == b"RIFF" and len(body) > 10_000
        assert (await asyncio.to_thread(get, OTHER_TOKEN))[0] == 404
        assert (await asyncio.to_thread(get, None))[0] == 401
        assert (await asyncio.to_thread(get, "wrong"))[0] == 401


async def test_push_to_talk_commits_by_hand(tmp_path: Path) -> None:
    async with fake_server(tmp_path) as s, client(s.url) as c:
        s.asr.register(300, "hello there")
        await c.send(
            {"type": "session.update", "session": {"audio": {"input": {"turn_detection": None}}}}
        )
        updated = await c.until("session.updated")
        assert updated["session"]["audio"]["input"]["turn_detection"] is None
        await c.send({"type": "input_audio_buffer.commit", "event_id": "empty"})
        err = await c.until("error")
        assert err["error"]["code"] == "input_audio_buffer_commit_empty"
        assert err["error"]["event_id"] == "empty"
        await c.append(spoken(300))
        await c.send({"type": "input_audio_buffer.commit"})
        committed = await c.until("input_audio_buffer.committed")
        await c.until("conversation.item.added")
        await c.send({"type": "response.create"})
        await c.until("response.done")
        assert "input_audio_buffer.speech_started" not in c.types()
        heard = _by_type(c.seen, "conversation.item.input_audio_transcription.completed")
        assert heard[0]["item_id"] == committed["item_id"]
        assert heard[0]["transcript"] == "hello there"


async def test_sixteen_khz_input(tmp_path: Path) -> None:
    async with fake_server(tmp_path) as s, client(s.url) as c:
        s.asr.register(300, "hello at sixteen kilohertz")
        fmt = {"type": "audio/pcm", "rate": 16000}
        await c.send({"type": "session.update", "session": {"audio": {"input": {"format": fmt}}}})
        await c.until("session.updated")
        await c.append(spoken(300, rate=16_000), rate=16_000)
        await c.until("response.done")
        heard = _by_type(c.seen, "conversation.item.input_audio_transcription.completed")[0]
        assert heard["transcript"] == "hello at sixteen kilohertz"
        assert abs(heard["usage"]["seconds"] - 1.5) < 0.1  # prefix + speech + tail


async def test_text_items_answered_on_response_create(tmp_path: Path) -> None:
    async with fake_server(tmp_path) as s, client(s.url) as c:
        await c.send({"type": "response.create", "event_id": "nothing"})
        err = await c.until("error")
        assert err["error"]["code"] == "no_input" and err["error"]["event_id"] == "nothing"
        item = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "hi"}],
        }
        await c.send({"type": "conversation.item.create", "item": item})
        added = await c.until("conversation.item.added")
        assert added["item"]["content"][0]["text"] == "hi"
        await c.send({"type": "response.create"})
        created = await c.until("response.created")
        await c.send({"type": "response.create", "event_id": "again"})
        busy = await c.until("error")
        assert busy["error"]["code"] == "conversation_already_has_active_response"
        done = await c.until("response.done")
        assert done["response"]["id"] == created["response"]["id"]
        assert done["response"]["status"] == "completed"
        assert _by_type(c.seen, "response.output_audio_transcript.delta")
        assert not _by_type(c.seen, "conversation.item.input_audio_transcription.completed")
        dialogue = await s.agent.dialogue("acme", c.seen[0]["session"]["voxmem"]["conversation"])
        assert dialogue[0]["text"] == "hi" and dialogue[1]["role"] == "agent"


async def test_text_only_output(tmp_path: Path) -> None:
    async with fake_server(tmp_path) as s, client(s.url) as c:
        await c.send({"type": "session.update", "session": {"output_modalities": ["text"]}})
        await c.until("session.updated")
        item = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "hi"}],
        }
        await c.send({"type": "conversation.item.create", "item": item})
        await c.send({"type": "response.create"})
        await c.until("response.done")
        assert _by_type(c.seen, "response.output_text.delta")
        assert _by_type(c.seen, "response.output_text.done")[0]["text"]
        assert not _by_type(c.seen, "response.output_audio.delta")


async def test_auth_is_refused_before_the_upgrade(tmp_path: Path) -> None:
    async with fake_server(tmp_path) as s:
        for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": TOKEN}):
            with pytest.raises(InvalidStatus) as info:
                async with connect(s.url, additional_headers=headers):
                    pass
            assert info.value.response.status_code == 401
        # the browser's way: the token as a subprotocol
        async with connect(
            s.url, subprotocols=["realtime", f"openai-insecure-api-key.{OTHER_TOKEN}"]
        ) as ws:
            assert ws.subprotocol == "realtime"
            first = json.loads(await ws.recv())
            assert first["session"]["voxmem"]["tenant"] == "globex"


async def test_session_limit_refuses_with_503(tmp_path: Path) -> None:
    async with fake_server(tmp_path, max_sessions=2) as s:
        async with client(s.url), client(s.url):
            with pytest.raises(InvalidStatus) as info:
                async with client(s.url):
                    pass
            assert info.value.response.status_code == 503
        await asyncio.sleep(0.1)
        async with client(s.url) as c:  # a slot is free again
            assert c.seen[0]["type"] == "session.created"


async def test_the_page_and_health_are_served(tmp_path: Path) -> None:
    import urllib.request

    async with fake_server(tmp_path) as s:

        def get(path: str) -> tuple[int, str, bytes]:
            try:
                with urllib.request.urlopen(s.server.url + path, timeout=10) as r:
                    return r.status, r.headers["Content-Type"], r.read()
            except urllib.error.HTTPError as e:
                return e.code, "", b""

        status, kind, body = await asyncio.to_thread(get, "/")
        assert status == 200 and kind.startswith("text/html") and b"<script" in body
        for path in ("/app.js", "/capture-worklet.js"):
            status, kind, _ = await asyncio.to_thread(get, path)
            assert status == 200 and "javascript" in kind
        assert (await asyncio.to_thread(get, "/healthz"))[0] == 200
        assert (await asyncio.to_thread(get, "/../../etc/passwd"))[0] == 404
        assert (await asyncio.to_thread(get, "/v1/memory/turns/x/audio"))[0] == 401


BAD: list[tuple[str | bytes, str, str | None]] = [
    # (message, expected code, expected param)
    ("{not json", "invalid_json", None),
    ("[1, 2]", "invalid_json", None),
    ('{"event_id": "e1"}', "missing_required_parameter", "type"),
    ('{"type": 5, "event_id": "e2"}', "missing_required_parameter", "type"),
    ('{"type": "conversation.item.delete", "event_id": "e3"}', "unknown_event_type", "type"),
    (
        '{"type": "input_audio_buffer.append", "event_id": "e4"}',
        "missing_required_parameter",
        "audio",
    ),
    (
        '{"type": "input_audio_buffer.append", "audio": "@@@", "event_id": "e5"}',
        "invalid_value",
        "audio",
    ),
    (
        '{"type": "input_audio_buffer.append", "audio": "AAAA", "event_id": "e6"}',
        "invalid_value",
        "audio",
    ),
    (
        '{"type": "input_audio_buffer.append", "audio": 12, "event_id": "e7"}',
        "invalid_value",
        "audio",
    ),
    ('{"type": "session.update", "session": "x", "event_id": "e8"}', "invalid_type", "session"),
    (
        '{"type": "session.update", "event_id": "e9", "session": {"audio": {"input": '
        '{"format": {"type": "audio/pcm", "rate": 44100}}}}}',
        "invalid_value",
        "session.audio.input.format.rate",
    ),
    (
        '{"type": "session.update", "event_id": "e10", "session": {"audio": {"input": '
        '{"turn_detection": {"type": "server_vad", "threshold": "high"}}}}}',
        "invalid_type",
        "session.audio.input.turn_detection.threshold",
    ),
    (
        '{"type": "session.update", "event_id": "e11", "session": {"audio": {"input": '
        '{"turn_detection": {"type": "semantic_vad"}}}}}',
        "invalid_value",
        "session.audio.input.turn_detection.type",
    ),
    (
        '{"type": "conversation.item.truncate", "item_id": "nope", "content_index": 0, '
        '"audio_end_ms": 10, "event_id": "e12"}',
        "item_not_found",
        "item_id",
    ),
    (
        '{"type": "conversation.item.truncate", "item_id": "x", "event_id": "e13"}',
        "missing_required_parameter",
        "content_index",
    ),
    ('{"type": "response.cancel", "event_id": "e14"}', "response_cancel_not_active", None),
    (
        '{"type": "conversation.item.create", "event_id": "e15", "item": {"type": "message", '
        '"role": "user", "content": []}}',
        "invalid_value",
        "item.content",
    ),
    (
        '{"type": "conversation.item.create", "event_id": "e16", "item": {"type": "message", '
        '"role": "wizard", "content": [{"type": "input_text", "text": "x"}]}}',
        "invalid_value",
        "item.role",
    ),
    (b"\x00\xff binary", "invalid_json", None),
    ("[" * 100_000 + "]" * 100_000, "invalid_json", None),
]


def test_a_message_nested_too_deeply_says_so() -> None:
    from voxmem.server.events import ProtocolError, parse_client_event

    with pytest.raises(ProtocolError, match="nests too deeply"):
        # deeper than any Python's JSON reader goes (3.13 reads 5,000 levels), under 1 MiB
        parse_client_event('{"type": ' + "[" * 100_000 + "]" * 100_000 + "}", MiB)
    with pytest.raises(ProtocolError, match="not valid JSON"):
        parse_client_event("{not json", MiB)


async def test_bad_events_get_typed_errors_and_the_session_goes_on(tmp_path: Path) -> None:
    async with fake_server(tmp_path) as s, client(s.url) as c:
        for message, code, param in BAD:
            await c.send(message)
            err = (await c.until("error"))["error"]
            assert (err["code"], err["param"]) == (code, param), message
            assert err["type"] in ("invalid_request_error", "rate_limit_error")
            if isinstance(message, str) and '"event_id": "e' in message:
                assert err["event_id"] == json.loads(message)["event_id"]
            assert err["message"]
        # still a working session
        s.asr.register(300, "still here")
        await c.append(spoken(300))
        await c.until("response.done")
        heard = _by_type(c.seen, "conversation.item.input_audio_transcription.completed")
        assert heard[0]["transcript"] == "still here"
        assert s.server.stats["errors"] == 0  # counted when the session ends


async def test_an_oversized_message_is_refused_and_the_session_goes_on(tmp_path: Path) -> None:
    async with fake_server(tmp_path) as s, client(s.url) as c:
        big = base64.b64encode(bytes(int(1.2 * MiB))).decode()
        await c.send({"type": "input_audio_buffer.append", "audio": big, "event_id": "big"})
        err = (await c.until("error"))["error"]
        assert err["code"] == "message_too_large"
        item = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "hi"}],
        }
        await c.send({"type": "conversation.item.create", "item": item})
        await c.send({"type": "response.create"})
        assert (await c.until("response.done"))["response"]["status"] == "completed"
        # and nothing the server sends is over 1 MiB
        assert max(len(json.dumps(e)) for e in c.seen) < MiB


async def test_audio_faster_than_allowed_is_rate_limited(tmp_path: Path) -> None:
    limits = {"max_audio_rate": 1.0, "audio_burst_seconds": 2.0}
    async with fake_server(tmp_path, **limits) as s, client(s.url) as c:
        await c.send(
            {
                "type": "session.update",
                "session": {"audio": {"input": {"turn_detection": None}}},
            }
        )
        await c.until("session.updated")
        await c.append(pcm16(tone(300, 3.0)), chunk_ms=500)
        err = (await c.until("error"))["error"]
        assert err["code"] == "rate_limited" and err["type"] == "rate_limit_error"


async def _barge_in(c: Client, s: Any, truncate_ms: int | None) -> dict[str, Any]:
    s.asr.register(300, "tell me something")
    s.asr.register(700, "stop")
    item = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "hello, who are you and what can you do?"}],
    }
    await c.send({"type": "conversation.item.create", "item": item})
    await c.send({"type": "response.create"})
    first = await c.until("response.output_audio.delta")
    rid, item_id = first["response_id"], first["item_id"]
    await asyncio.sleep(0.4)  # the listener hears 0.4 s, then speaks
    await c.append(spoken(700, seconds=0.6), chunk_ms=40)
    await c.until("input_audio_buffer.speech_started")
    stop_index = len(c.seen)
    if truncate_ms is not None:
        await c.send(
            {
                "type": "conversation.item.truncate",
                "item_id": item_id,
                "content_index": 0,
                "audio_end_ms": truncate_ms,
            }
        )
    done = await c.until(lambda e: e["type"] == "response.done" and e["response"]["id"] == rid)
    late = [
        e
        for e in c.seen[stop_index:]
        if e["type"] == "response.output_audio.delta" and e["response_id"] == rid
    ]
    assert late == [], "audio was sent after speech started"
    await c.until(lambda e: e["type"] == "response.done" and e["response"]["id"] != rid)
    return done


async def test_barge_in_stops_the_reply_and_stores_what_was_played(tmp_path: Path) -> None:
    async with fake_server(tmp_path) as s, client(s.url) as c:
        done = await _barge_in(c, s, truncate_ms=None)
        r = done["response"]
        assert r["status"] == "cancelled"
        assert r["status_details"]["reason"] == "turn_detected"
        played = r["voxmem"]["played_ms"]
        assert 300 <= played <= 1000, played  # what the server could have played by then
        # paced: no more than the lead (500 ms) and one delta ahead of playback
        assert r["voxmem"]["sent_audio_ms"] <= played + 500 + 200
        await _flush(s)
        agent_turns = s.agent.memory.list("acme", role="agent", limit=10)
        assert abs(agent_turns[0].duration * 1000 - played) < 50


async def test_truncate_after_barge_in_sets_what_is_stored(tmp_path: Path) -> None:
    async with fake_server(tmp_path, truncate_wait_ms=2000) as s, client(s.url) as c:
        done = await _barge_in(c, s, truncate_ms=250)
        truncated = _by_type(c.seen, "conversation.item.truncated")[0]
        assert truncated["audio_end_ms"] == 250
        assert done["response"]["voxmem"]["played_ms"] == 250
        await _flush(s)
        agent_turns = s.agent.memory.list("acme", role="agent", limit=10)
        assert abs(agent_turns[0].duration - 0.25) < 0.03


async def test_response_cancel_by_the_client(tmp_path: Path) -> None:
    async with fake_server(tmp_path) as s, client(s.url) as c:
        item = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "hello"}],
        }
        await c.send({"type": "conversation.item.create", "item": item})
        await c.send({"type": "response.create"})
        created = await c.until("response.created")
        await c.until("response.output_audio.delta")
        await c.send({"type": "response.cancel", "response_id": created["response"]["id"]})
        done = await c.until("response.done")
        assert done["response"]["status"] == "cancelled"
        assert done["response"]["status_details"]["reason"] == "client_cancelled"


async def test_sessions_are_isolated_and_concurrent(tmp_path: Path) -> None:
    async with fake_server(tmp_path) as s:
        s.asr.register(300, "first caller")
        s.asr.register(520, "second caller")
        s.asr.register(800, "third caller")

        async def one(freq: int, token: str) -> tuple[str, str]:
            async with client(s.url, token=token) as c:
                await c.append(spoken(freq))
                await c.until("response.done", timeout=30)
                heard = _by_type(c.seen, "conversation.item.input_audio_transcription.completed")
                return c.seen[0]["session"]["voxmem"]["tenant"], heard[0]["transcript"]

        got = await asyncio.gather(one(300, TOKEN), one(520, OTHER_TOKEN), one(800, TOKEN))
        assert got == [
            ("acme", "first caller"),
            ("globex", "second caller"),
            ("acme", "third caller"),
        ]
        await _flush(s, "acme")
        await _flush(s, "globex")
        acme = {t.transcript for t in s.agent.memory.list("acme", role="user", limit=10)}
        globex = {t.transcript for t in s.agent.memory.list("globex", role="user", limit=10)}
        assert acme == {"first caller", "third caller"} and globex == {"second caller"}


async def test_a_stalled_client_is_closed_and_others_go_on(tmp_path: Path) -> None:
    async with fake_server(tmp_path, send_queue=8, send_timeout_s=0.5) as s:
        # a client that sends and never reads: each unknown event earns an error event
        sock = stalled_socket(s.server.port)
        burst = masked_frame(json.dumps({"type": "x" * 80}).encode()) * 50
        async with client(s.url) as c:
            loop = asyncio.get_running_loop()
            end = loop.time() + 20
            while not s.server.stats["closed_slow"] and loop.time() < end:
                with contextlib.suppress(BlockingIOError):
                    sock.send(burst)
                await asyncio.sleep(0.001)
            assert s.server.stats["closed_slow"] == 1
            # meanwhile and after, another session is served as usual
            item = {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "hi"}],
            }
            await c.send({"type": "conversation.item.create", "item": item})
            await c.send({"type": "response.create"})
            assert (await c.until("response.done", timeout=20))["response"]["status"] == "completed"
        sock.close()


async def test_a_turn_heard_while_spoken_goes_to_the_agent_listener(tmp_path: Path) -> None:
    async with fake_server(tmp_path, listen_while_speaking=True) as s, client(s.url) as c:
        s.asr.register(300, "hello there")
        await c.append(spoken(300, seconds=0.8))
        await c.until("response.done")
        heard = _by_type(c.seen, "conversation.item.input_audio_transcription.completed")
        assert heard[0]["transcript"] == "hello there"
        await _flush(s)
        stored = s.agent.memory.list("acme", role="user", limit=5)
        # the listener keeps the speech it heard, trimmed to its loud part
        assert len(stored) == 1 and 0.7 < stored[0].duration < 1.3
