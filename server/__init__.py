"""voxmem.server: the websocket voice server (a Realtime-compatible protocol) and the
browser page. The public names load lazily, so ``import voxmem.server`` stays light."""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "VoiceServer": "voxmem.server.app",
    "TokenTable": "voxmem.server.auth",
    "hash_token": "voxmem.server.auth",
    "new_token": "voxmem.server.auth",
    "ProtocolError": "voxmem.server.events",
    "SessionConfig": "voxmem.server.events",
}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'voxmem.server' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
