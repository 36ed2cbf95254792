"""``VoiceServer``: the websocket voice server and the browser page, in one process.

    from voxmem.agent import VoiceAgent
    from voxmem.server import VoiceServer

    async with VoiceAgent.open(data_dir) as agent:
        async with VoiceServer(agent, tokens=TokenTable({...}), port=8765) as server:
            await server.serve_forever()

Routes: ``GET /v1/realtime`` (the websocket; ``Authorization: Bearer``, or the browser
subprotocol ``openai-insecure-api-key.<token>``; a bad token gets 401 before the
upgrade), ``GET /`` and its scripts (the page), ``GET /v1/memory/turns/<id>/audio``
(a stored turn's original audio as WAV, for the token's tenant only), ``GET /healthz``.
"""

from __future__ import annotations

import asyncio
import http
import io
import logging
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.typing import Subprotocol

from voxmem.agent.agent import VoiceAgent
from voxmem.memory.records import UnknownSegment, UnknownTenant
from voxmem.server import events as ev
from voxmem.server.auth import TokenTable, bearer
from voxmem.server.session import RealtimeSession
from voxmem.server.vad import detector_factory
from voxmem.settings import Settings

log = logging.getLogger("voxmem.server")

STATIC = Path(__file__).parent / "static"
PAGES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/capture-worklet.js": ("capture-worklet.js", "text/javascript; charset=utf-8"),
}
_TURN_AUDIO = re.compile(r"/v1/memory/turns/([A-Za-z0-9_.:-]{1,128})/audio")
_CONVERSATION = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: a closing session waits this long for its reply to finish remembering
CLOSE_WAIT_S = 30.0


class VoiceServer:
    """Serves one ``VoiceAgent`` (its models loaded once) to many websocket sessions."""

    def __init__(
        self,
        agent: VoiceAgent,
        *,
        tokens: TokenTable,
        settings: Settings | None = None,
        host: str | None = None,
        port: int | None = None,
        detector: Any = None,
    ) -> None:
        self.agent = agent
        self.settings = settings or agent.settings
        self.tokens = tokens
        self.host = host if host is not None else self.settings.server.host
        self.port = port if port is not None else self.settings.server.port
        self._detector = detector
        self._server: Server | None = None
        self._tenants: dict[ServerConnection, tuple[str, str]] = {}
        self.sessions: set[RealtimeSession] = set()
        #: what bad input did to sessions since start: errors sent, sessions closed by it
        self.stats = {"sessions": 0, "errors": 0, "closed_slow": 0}

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> VoiceServer:
        if self._detector is None:
            self._detector = await asyncio.to_thread(detector_factory, self.settings)
        await self.agent.start()
        limits = self.settings.server
        self._server = await serve(
            self._handle,
            self.host,
            self.port,
            process_request=self._process_request,
            select_subprotocol=_select_subprotocol,
            max_size=limits.max_frame_bytes,
            max_queue=16,
            write_limit=256 * 1024,
            ping_interval=20,
            ping_timeout=20,
            close_timeout=2,
            compression=None,
        )
        sock = next(iter(self._server.sockets))
        self.port = sock.getsockname()[1]
        log.info("voxmem server on http://%s:%d", self.host, self.port)
        return self

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def serve_forever(self) -> None:
        assert self._server is not None, "start() first"
        await self._server.serve_forever()

    async def close(self) -> None:
        """Stop accepting, close every session (each reply's turn still remembers)."""
        if self._server is not None:
            self._server.close(close_connections=True)
            await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> VoiceServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- HTTP, before any upgrade ------------------------------------------------------------

    async def _process_request(self, conn: ServerConnection, request: Request) -> Response | None:
        url = urlsplit(request.path)
        path = url.path.rstrip("/") or "/"
        if path == "/v1/realtime":
            return self._admit(conn, request, parse_qs(url.query))
        if path in PAGES:
            name, kind = PAGES[path]
            return _response(200, (STATIC / name).read_bytes(), kind)
        if path == "/healthz":
            return _response(200, b"ok\n", "text/plain")
        m = _TURN_AUDIO.fullmatch(path)
        if m is not None:
            return await self._turn_audio(request, m.group(1))
        return _response(404, b"not found\n", "text/plain")

    def _admit(
        self, conn: ServerConnection, request: Request, query: dict[str, list[str]]
    ) -> Response | None:
        token = bearer(
            request.headers.get("Authorization"), request.headers.get("Sec-WebSocket-Protocol")
        )
        tenant = self.tokens.tenant(token)
        if tenant is None:
            return _unauthorized()
        if len(self._tenants) >= self.settings.server.max_sessions:
            body = b"the server is at its session limit; try again later\n"
            resp = _response(503, body, "text/plain")
            resp.headers["Retry-After"] = "5"
            return resp
        conversation = (query.get("session") or [""])[0]
        if conversation and not _CONVERSATION.fullmatch(conversation):
            return _response(
                400, b"session: letters, digits, '_', '.', '-', up to 64\n", "text/plain"
            )
        self._tenants[conn] = (tenant, conversation or ev.new_id("conv"))
        return None

    async def _turn_audio(self, request: Request, turn_id: str) -> Response:
        tenant = self.tokens.tenant(bearer(request.headers.get("Authorization"), None))
        if tenant is None:
            return _unauthorized()
        try:
            audio = await asyncio.to_thread(self.agent.memory.audio, tenant, turn_id)
        except (UnknownSegment, UnknownTenant):
            return _response(404, b"no such turn\n", "text/plain")
        import soundfile as sf

        buf = io.BytesIO()
        sf.write(buf, audio.samples, audio.sample_rate, format="WAV", subtype="PCM_16")
        resp = _response(200, buf.getvalue(), "audio/wav")
        resp.headers["Cache-Control"] = "private, no-store"
        return resp

    # -- a session ---------------------------------------------------------------------------

    async def _handle(self, ws: ServerConnection) -> None:
        tenant, conversation = self._tenants.get(ws, ("", ""))
        if not tenant:  # admitted by nothing: cannot happen through _process_request
            await ws.close(1008, "unauthorized")
            return
        session = RealtimeSession(self.agent, tenant, conversation, self.settings, self._detector)
        closing: list[asyncio.Task[None]] = []

        def stalled(why: str) -> None:
            self.stats["closed_slow"] += 1
            log.warning("closing session %s: %s", conversation, why)
            closing.append(asyncio.ensure_future(ws.close(1008, why[:120])))

        session.outbox.on_stall = stalled
        self.sessions.add(session)
        self.stats["sessions"] += 1
        sender = asyncio.create_task(self._send_loop(ws, session), name="sender")
        limit = self.settings.server.max_session_seconds
        began = time.monotonic()
        reason: tuple[int, str] | None = None
        try:
            await session.start()
            async with asyncio.timeout(limit):
                async for message in ws:
                    await session.handle(message)
                    if sender.done():
                        break
        except TimeoutError:
            reason = (1000, f"session length limit ({limit:.0f} s) reached")
            log.info("session %s closed after %.0f s", conversation, time.monotonic() - began)
        except ConnectionClosed:
            pass
        finally:
            self.stats["errors"] += session.errors
            if reason is not None:
                await ws.close(*reason)
            await session.aclose(CLOSE_WAIT_S)
            sender.cancel()
            await asyncio.gather(sender, *closing, return_exceptions=True)
            self.sessions.discard(session)
            self._tenants.pop(ws, None)

    async def _send_loop(self, ws: ServerConnection, session: RealtimeSession) -> None:
        box = session.outbox
        try:
            while True:
                event = await box.queue.get()
                if event is None:
                    return
                if box.wanted(event):
                    await ws.send(event.wire())
        except ConnectionClosed:
            return


def _select_subprotocol(
    conn: ServerConnection, offered: Sequence[Subprotocol]
) -> Subprotocol | None:
    return Subprotocol("realtime") if "realtime" in offered else None


def _response(status: int, body: bytes, kind: str) -> Response:
    code = http.HTTPStatus(status)
    headers = Headers(
        [
            ("Content-Type", kind),
            ("Content-Length", str(len(body))),
            ("X-Content-Type-Options", "nosniff"),
        ]
    )
    return Response(code.value, code.phrase, headers, body)


def _unauthorized() -> Response:
    resp = _response(401, b"missing or unknown bearer token\n", "text/plain")
    resp.headers["WWW-Authenticate"] = 'Bearer realm="voxmem"'
    return resp


__all__ = ["VoiceServer"]
