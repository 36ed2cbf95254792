"""An optional planner behind an OpenAI-compatible chat endpoint.

The model is asked for one JSON object; its answer is validated (pydantic) into the
same choices the trained planner makes, and goes through the same rules
(:func:`voxmem.retrievers.planner.assemble`). Any failure (endpoint down, timeout,
not JSON, a label outside the vocabulary) raises :class:`PlannerUnavailable`, which
the instruction parser answers by falling back. Never required; reads any language
its model reads.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from voxmem.retrievers.plan import RetrievalPlan
from voxmem.retrievers.planner import (
    ENV_LABELS,
    STYLE_LABELS,
    TIME_LABELS,
    PlannerUnavailable,
    assemble,
)


class LlmChoices(BaseModel):
    """What the model must answer, field by field."""

    model_config = ConfigDict(extra="forbid")

    speaker: Literal["any", "same", "target"] = "any"
    speaker_name: str | None = None
    style: str = "any"
    environment: str = "any"
    content: Literal["none", "present", "reference"] = "none"
    content_words: str | None = None
    role: Literal["none", "user", "agent"] = "none"
    time: str = "none"

    @field_validator("style")
    @classmethod
    def _style(cls, v: str) -> str:
        return _one_of(v, ("any", "same", *STYLE_LABELS), "style")

    @field_validator("environment")
    @classmethod
    def _environment(cls, v: str) -> str:
        return _one_of(v, ("any", "same", *ENV_LABELS), "environment")

    @field_validator("time")
    @classmethod
    def _time(cls, v: str) -> str:
        return _one_of(v, ("none", *TIME_LABELS), "time")


def _one_of(value: str, allowed: Sequence[str], what: str) -> str:
    v = value.strip().lower()
    if v not in allowed:
        raise ValueError(f"{what} {value!r} is not one of {', '.join(allowed)}")
    return v


_STYLES, _ENVS, _TIMES = ", ".join(STYLE_LABELS), ", ".join(ENV_LABELS), ", ".join(TIME_LABELS)
SYSTEM_PROMPT = f"""You turn a request to search recorded speech into a JSON object.
Fields (answer every one, nothing else):
- "speaker": "any"; "same" (the voice of the reference clip: "this speaker", "the same
  person"); or "target" (a named person)
- "speaker_name": the person's name when speaker is "target", else null
- "style": how it was said: "any", "same" (as in the reference clip), or one of {_STYLES}
- "environment": the background sound: "any", "same" (as in the reference clip), or one
  of {_ENVS}
- "content": "present" when the request names what was said (then "content_words" holds
  only those words, in the request's language, never the request's own wording);
  "reference" when it asks for what the reference clip's own speech asks or continues
  ("the answer to this question", "what comes next"); else "none"
- "content_words": the words to match, or null
- "role": "user" when it asks for what the requester said ("I said"), "agent" for what
  the assistant said ("you told me"), else "none"
- "time": "none" or one of {_TIMES}
The request may be in any language."""


#: the most tokens a plan may take by default (``PlannerSettings.max_tokens``): one is
#: under 150 (every field, a few content words), and a model that rambles instead stops
#: here rather than at the timeout
MAX_TOKENS = 300


class LlmPlanner:
    """Plans from an OpenAI-compatible endpoint (``/v1/chat/completions``)."""

    def __init__(
        self,
        base_url: str,
        model: str = "gpt-4o-mini",
        api_key: str | None = None,
        timeout_s: float = 10.0,
        client: Any | None = None,
        max_tokens: int = MAX_TOKENS,
    ) -> None:
        self.base_url, self.model, self.max_tokens = base_url, model, max_tokens
        if client is None:
            from openai import OpenAI

            client = OpenAI(
                base_url=base_url, api_key=api_key or "none", timeout=timeout_s, max_retries=0
            )
        self._client = client

    def choices(self, instruction: str, has_reference: bool) -> LlmChoices:
        clip = "A reference clip is given." if has_reference else "No reference clip is given."
        cap = {"max_tokens": self.max_tokens} if self.max_tokens > 0 else {}
        try:
            reply = self._client.chat.completions.create(
                model=self.model,
                temperature=0,
                response_format={"type": "json_object"},
                messages=[
                    {"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": f"{clip}\nRequest: {instruction}"},
                ],
                **cap,
            )
            text = reply.choices[0].message.content or ""
            cut = reply.choices[0].finish_reason == "length"
        except Exception as exc:  # the client raises many types; all mean "no plan"
            raise PlannerUnavailable(
                f"the LLM planner at {self.base_url} failed ({type(exc).__name__}: {exc}); "
                "check the endpoint, or use the trained planner"
            ) from exc
        try:
            return LlmChoices.model_validate(json.loads(_json_part(text)))
        except (json.JSONDecodeError, ValidationError) as exc:
            if cut and self.max_tokens > 0:
                raise PlannerUnavailable(
                    f"the LLM planner at {self.base_url} was cut off at {self.max_tokens} "
                    "tokens before its plan was whole; raise VOXMEM_PLANNER__MAX_TOKENS "
                    "(a model that thinks first needs more), or 0 to send no limit"
                ) from exc
            if cut:
                raise PlannerUnavailable(
                    f"the LLM planner at {self.base_url} was cut off by the endpoint's own "
                    "token limit before its plan was whole"
                ) from exc
            raise PlannerUnavailable(
                f"the LLM planner at {self.base_url} answered something that is not a valid "
                f"plan: {str(exc)[:300]}"
            ) from exc

    def plan(
        self, instruction: str, has_reference: bool = False, speaker_names: Sequence[str] = ()
    ) -> RetrievalPlan:
        c = self.choices(instruction, has_reference)
        return assemble(
            instruction,
            has_reference,
            speaker_names,
            speaker=c.speaker,
            name=c.speaker_name,
            style=c.style,
            environment=c.environment,
            content=c.content,
            content_words=c.content_words,
            role=c.role,
            time=c.time,
        )


def _json_part(text: str) -> str:
    """The JSON object in a reply, also when a model wraps it in a code fence."""
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else text


__all__ = ["MAX_TOKENS", "SYSTEM_PROMPT", "LlmChoices", "LlmPlanner"]
