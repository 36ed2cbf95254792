"""Encoders: what the memory sees of each turn.

An encoder declares ``name``, ``dim`` and ``sample_rate`` and embeds a batch.
Every role has real backends and a deterministic fake for fast unit tests;
``voxmem.memory.encoders.factory`` picks the backend the settings name.
"""

from voxmem.memory.encoders.base import AudioEncoder, TextEncoder, l2_normalize

__all__ = ["AudioEncoder", "TextEncoder", "l2_normalize"]
