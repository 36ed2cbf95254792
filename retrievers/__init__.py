"""voxmem.retrievers: instructions to plans to ranked turns; baselines; metrics.

``recall`` is the one entry point the agent and the benchmarks use.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "recall": "voxmem.retrievers.recall",
    "Reference": "voxmem.retrievers.recall",
    "RecallResult": "voxmem.retrievers.recall",
    "RetrievedTurn": "voxmem.retrievers.recall",
    "RetrievedDocument": "voxmem.retrievers.recall",
    "FusionParams": "voxmem.retrievers.recall",
    "RetrievalPlan": "voxmem.retrievers.plan",
    "Constraint": "voxmem.retrievers.plan",
    "InstructionParser": "voxmem.retrievers.instruction",
}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'voxmem.retrievers' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
