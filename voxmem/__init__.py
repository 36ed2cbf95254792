"""voxmem: a memory made of sound for voice agents.

The core (``voxmem.settings``, ``voxmem.audio``, ``voxmem.models``,
``voxmem.errors``) imports nothing else of the project. Public names are
loaded lazily so that importing the core stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Audio", "Settings", "load_audio"]

_LAZY = {
    "Audio": "voxmem.audio",
    "load_audio": "voxmem.audio",
    "Settings": "voxmem.settings",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'voxmem' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
