"""voxmem.agent: the LangGraph voice agent, its responders and its voice.

The public names load lazily, so ``import voxmem.agent`` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "VoiceAgent": "voxmem.agent.agent",
    "TurnControl": "voxmem.agent.events",
    "TurnResult": "voxmem.agent.events",
    "TurnDone": "voxmem.agent.events",
    "Heard": "voxmem.agent.events",
    "Recalled": "voxmem.agent.events",
    "TextDelta": "voxmem.agent.events",
    "AudioChunk": "voxmem.agent.events",
    "AgentEvent": "voxmem.agent.events",
    "Router": "voxmem.agent.route",
    "Route": "voxmem.agent.route",
    "Prompt": "voxmem.agent.respond",
    "RecalledTurn": "voxmem.agent.respond",
    "Responder": "voxmem.agent.respond",
    "ResponderUnavailable": "voxmem.agent.respond",
    "ExtractiveResponder": "voxmem.agent.respond",
    "LocalLLMResponder": "voxmem.agent.respond",
    "OpenAIResponder": "voxmem.agent.respond",
    "Synthesizer": "voxmem.agent.speak",
    "PiperSynthesizer": "voxmem.agent.speak",
    "EspeakSynthesizer": "voxmem.agent.speak",
    "MemoryWriter": "voxmem.agent.remember",
}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'voxmem.agent' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
