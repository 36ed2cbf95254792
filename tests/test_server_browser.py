"""The browser page in a real headless Chromium (Debian's ``chromium``), driven over the
DevTools protocol: a fake microphone fed from a wav file speaks into the page, whose
AudioWorklet sends PCM16 to the server; the transcript and a recalled turn must show
up, and the recalled turn's original clip must play. A screenshot is kept in pytest's
cache folder (``.pytest_cache/d/voxmem-browser/page.png``)."""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from websockets.asyncio.client import connect

from tests.server_helpers import TOKEN, fake_server, silence, tone

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="needs Debian's chromium package (scripts/setup.sh installs it)"
)


class DevTools:
    """The few DevTools protocol calls the test needs, over one page's websocket."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self._id = 0

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._id += 1
        await self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            msg = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
            if msg.get("id") == self._id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})  # type: ignore[no-any-return]

    async def js(self, expression: str, gesture: bool = False) -> Any:
        result = await self.call(
            "Runtime.evaluate",
            expression=expression,
            returnByValue=True,
            awaitPromise=True,
            userGesture=gesture,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = 60.0) -> Any:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        guarded = f"(() => {{ try {{ return ({expression}); }} catch (e) {{ return null; }} }})()"
        while True:
            value = await self.js(guarded)
            if value:
                return value
            if loop.time() > end:
                log = await self.js("document.getElementById('log').textContent")
                status = await self.js("document.getElementById('status').textContent")
                raise AssertionError(f"timed out on {expression!r}; status {status!r}; log {log!r}")
            await asyncio.sleep(0.25)


def _debugger_port(profile: Path, timeout: float = 30.0) -> int:
    import time

    end = time.monotonic() + timeout
    active = profile / "DevToolsActivePort"
    while time.monotonic() < end:
        if active.exists() and active.read_text().strip():
            return int(active.read_text().split()[0])
        time.sleep(0.1)
    raise AssertionError("chromium did not open its DevTools port")


def _page_socket(port: int, url_prefix: str) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
        pages = json.load(r)
    page = next(p for p in pages if p.get("type") == "page" and p["url"].startswith(url_prefix))
    return str(page["webSocketDebuggerUrl"])


async def test_the_page_hears_the_microphone_and_shows_recalled_turns(
    tmp_path: Path, pytestconfig: pytest.Config
) -> None:
    # the microphone says (as the pitch-keyed fake ASR hears it) a question about the past
    mic = tmp_path / "mic.wav"
    rate = 48_000
    sf.write(
        mic,
        np.concatenate([silence(1.0, rate), tone(520, 1.2, rate, 0.5), silence(3.0, rate)]),
        rate,
        subtype="PCM_16",
    )
    async with fake_server(tmp_path / "server") as s:
        s.asr.register(300, "the budget for the garden is forty thousand dollars")
        s.asr.register(520, "what did I say about the budget")
        # an earlier conversation of this tenant that the question should recall
        said = np.concatenate([silence(0.3), tone(300, 1.4), silence(0.3)])
        await s.agent.turn("acme", "yesterday", audio=said, sample_rate=24_000)
        assert await asyncio.to_thread(s.agent.flush, "acme", 10)

        page_url = f"{s.server.url}/#token={TOKEN}&autoconnect=1"
        profile = tmp_path / "chromium-profile"
        assert CHROMIUM is not None
        proc = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--use-fake-device-for-media-stream",
                "--use-fake-ui-for-media-stream",
                f"--use-file-for-fake-audio-capture={mic}",
                "--autoplay-policy=no-user-gesture-required",
                "--remote-debugging-port=0",
                f"--user-data-dir={profile}",
                "--window-size=1200,800",
                page_url,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            port = await asyncio.to_thread(_debugger_port, profile)
            target = await asyncio.to_thread(_page_socket, port, s.server.url)
            async with connect(target, max_size=64 << 20) as ws:
                page = DevTools(ws)
                await page.wait_for(
                    "document.getElementById('status').textContent.includes('acme')"
                )
                await page.js("document.getElementById('mic').click()", gesture=True)
                heard = await page.wait_for(
                    "[...document.querySelectorAll('#transcript .turn.user .text')]"
                    ".map(e => e.textContent).find(t => t.includes('budget'))"
                )
                assert heard == "what did I say about the budget"
                hit = await page.wait_for(
                    "document.querySelector('#recalled .hit .text')?.textContent"
                )
                assert "forty thousand" in hit
                assert await page.wait_for(
                    "[...document.querySelectorAll('#transcript .turn.agent .text')]"
                    ".map(e => e.textContent).join(' ')"
                )
                # the play button fetches the original clip with the token and plays it
                await page.js("document.querySelector('#recalled .hit button.play').click()", True)
                await page.wait_for(
                    "document.querySelector('#recalled .hit button.play').dataset.played === '1'",
                    timeout=20,
                )
                shot = await page.call("Page.captureScreenshot", format="png")
                out = pytestconfig.cache.mkdir("voxmem-browser") / "page.png"
                out.write_bytes(base64.b64decode(shot["data"]))
                assert out.stat().st_size > 10_000
                rate_used = await page.js("window.voxmem.ctx.sampleRate")
                assert rate_used in (44_100, 48_000, 24_000, 16_000)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
