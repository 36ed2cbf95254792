"""voxmem.memory: the audio memory (records, catalog, vector index, encoders).

The public names load lazily, so ``import voxmem.memory`` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "AudioMemory": "voxmem.memory.store",
    "Hit": "voxmem.memory.store",
    "SessionSummary": "voxmem.memory.store",
    "PerceivedTurn": "voxmem.memory.perception",
    "VerifyReport": "voxmem.memory.store",
    "Segment": "voxmem.memory.records",
    "Recording": "voxmem.memory.records",
    "Speaker": "voxmem.memory.records",
    "Word": "voxmem.memory.records",
    "NewSegment": "voxmem.memory.records",
    "SPACES": "voxmem.memory.records",
    "StoreError": "voxmem.memory.records",
    "TenantRequired": "voxmem.memory.records",
    "UnknownTenant": "voxmem.memory.records",
    "UnknownSpeaker": "voxmem.memory.records",
    "UnknownSegment": "voxmem.memory.records",
    "UnknownSession": "voxmem.memory.records",
    "IndexDamaged": "voxmem.memory.records",
    "WrongDimension": "voxmem.memory.records",
    "SchemaTooNew": "voxmem.memory.records",
    "Perception": "voxmem.memory.perception",
}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'voxmem.memory' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
