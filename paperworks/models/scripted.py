"""A scripted mock model for tests and demos: ``scripted/<name>`` replies from a script, in order.

A script is a list of replies. Which reply a request gets is decided by the number of assistant
messages already in the conversation, so a script is stateless and survives resumed runs.
A reply is a string (text), or an object::

    {"text": "...", "tool_calls": [{"name": "calc", "arguments": {"expression": "2+2"}}],
     "delay_s": 0.5,                 # sleep before answering (cancellable, like a network call)
     "block_s": 5,                   # block a worker thread that long first (like a decode that
                                     # ignores cancellation; tests that the process still exits)
     "fail_first": 2, "error": "rate_limit",   # raise that provider error on the first 2 attempts
     "echo": true,                             # answer with the last user message instead of "text"
     "when": "some text"}                      # see below

A reply with ``"when"`` is chosen, out of order, for any request whose messages contain that text
(or every text of a list; the first such reply wins); replies without ``"when"`` are taken in order
as above. Scripts that replay known answers per task (e.g. reference solutions) use ``when`` with a
task's unique text.

Scripts are registered in-process with ``register_script`` or named by a JSON file path
(``scripted/path/to/script.json`` holding a list, or ``{"replies": [...], "repeat_last": true}``).
A script can stand for a vision model (``register_script(..., vision=True)``, or ``"vision": true`` in
the file): the gateway's ``supports_vision`` then says yes, so workflows send it images as content
parts (the replies stay scripted; tests read the parts back from the run's prompt records).
``scripted/echo`` is built in: it answers with the last user message. Past the end of a script the
last reply repeats when ``repeat_last`` is set; otherwise the request fails with a clear error.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from paperworks.core.paths import set_offline_env

set_offline_env()

import litellm  # noqa: E402
from litellm.llms.custom_llm import CustomLLM, CustomLLMError  # noqa: E402

from paperworks.models.provider_util import fill_response, final_chunks, text_chunk  # noqa: E402
from paperworks.models.types import ToolCall  # noqa: E402

_SCRIPTS: dict[str, tuple[list[Any], bool]] = {}
_VISION: set[str] = set()
"""Registered scripts that stand for vision models."""
_ATTEMPTS: dict[tuple[str, int], int] = {}
_lock = threading.Lock()

_ERRORS = {
    "rate_limit": lambda m: litellm.RateLimitError("scripted rate limit", llm_provider="scripted", model=m),
    "server": lambda m: litellm.InternalServerError("scripted server error", llm_provider="scripted", model=m),
    "connection": lambda m: litellm.APIConnectionError("scripted connection error", llm_provider="scripted",
                                                       model=m),
    "bad_request": lambda m: litellm.BadRequestError("scripted bad request", llm_provider="scripted", model=m),
}


def register_script(name: str, replies: list[Any], repeat_last: bool = False, vision: bool = False) -> str:
    """Register a script; returns the model string ``scripted/<name>`` to use it. ``vision``: the model
    counts as accepting images (``supports_vision``)."""
    with _lock:
        _SCRIPTS[name] = (list(replies), repeat_last)
        if vision:
            _VISION.add(name)
        else:
            _VISION.discard(name)
        for key in [k for k in _ATTEMPTS if k[0] == name]:
            del _ATTEMPTS[key]
    return f"scripted/{name}"


def _load(name: str) -> tuple[list[Any], bool]:
    if name in _SCRIPTS:
        return _SCRIPTS[name]
    path = Path(name)
    if path.suffix == ".json" and path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise CustomLLMError(400, f"script {path}: invalid JSON ({exc})") from exc
        if isinstance(data, list):
            return data, False
        if isinstance(data, dict) and isinstance(data.get("replies"), list):
            return data["replies"], bool(data.get("repeat_last", False))
        raise CustomLLMError(400, f"script {path}: expected a list of replies or {{\"replies\": [...]}}")
    raise CustomLLMError(404, f"no script named '{name}' (register_script() it, or give a .json path)")


def sees_images(name: str) -> bool:
    """Whether ``scripted/<name>`` stands for a vision model: registered with ``vision=True``, or a
    ``.json`` script file holding ``{"replies": [...], "vision": true}``."""
    if name in _SCRIPTS:
        return name in _VISION
    path = Path(name)
    if path.suffix != ".json" or not path.is_file():
        return False
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("vision") is True


def check_script(name: str) -> None:
    """A one-line ``UserError`` unless ``scripted/<name>`` can answer: ``echo``, a registered script,
    or a readable ``.json`` script file."""
    from paperworks.core.errors import UserError

    if name == "echo" or name in _SCRIPTS:
        return
    if Path(name).suffix != ".json":
        raise UserError(f"unknown scripted model 'scripted/{name}': give scripted/echo, a registered script "
                        "or a path to a .json script")
    if not Path(name).is_file():
        raise UserError(f"scripted model 'scripted/{name}': no script file {name}")
    try:
        _load(name)
    except CustomLLMError as exc:
        raise UserError(f"scripted model 'scripted/{name}': {exc.message}") from None


def _block(reply: Any) -> float:
    return float(reply.get("block_s", 0.0)) if isinstance(reply, dict) else 0.0


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    for msg in reversed(messages):
        if msg.get("role") == "user":
            return _content_text(msg.get("content"))
    return ""


def _call_id(name: str, index: int, j: int) -> str:
    return "call_" + hashlib.sha256(f"{name}:{index}:{j}".encode()).hexdigest()[:10]


def scripted_reply(model: str, messages: list[dict[str, Any]]) -> tuple[str, list[ToolCall], float]:
    """The reply the script gives to ``messages``: (text, tool calls, delay in seconds)."""
    if model == "echo":
        return _last_user_text(messages), [], 0.0
    replies, repeat_last = _load(model)
    conversation = " ".join(_content_text(m.get("content")) for m in messages)
    for i, reply in enumerate(replies):
        if isinstance(reply, dict) and reply.get("when") and _matches(reply["when"], conversation):
            return _reply_at(model, replies, i, messages)
    replies = [r for r in replies if not (isinstance(r, dict) and r.get("when"))]
    index = sum(1 for m in messages if m.get("role") == "assistant")
    if index >= len(replies):
        if not repeat_last or not replies:
            raise CustomLLMError(400, f"script '{model}' has {len(replies)} replies; reply {index + 1} was asked")
        index = len(replies) - 1
    return _reply_at(model, replies, index, messages)


def _matches(when: Any, conversation: str) -> bool:
    """``when`` is a text, or a list of texts that must all occur."""
    needles = when if isinstance(when, list) else [when]
    return all(str(n) in conversation for n in needles)


def _content_text(content: Any) -> str:
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content or "")


def _reply_at(model: str, replies: list[Any], index: int,
              messages: list[dict[str, Any]]) -> tuple[str, list[ToolCall], float]:
    reply = replies[index]
    if isinstance(reply, str):
        return reply, [], 0.0
    if not isinstance(reply, dict):
        raise CustomLLMError(400, f"script '{model}' reply {index + 1}: expected a string or an object")
    fail_first = int(reply.get("fail_first", 0))
    if fail_first:
        with _lock:
            attempts = _ATTEMPTS.get((model, index), 0)
            _ATTEMPTS[(model, index)] = attempts + 1
        if attempts < fail_first:
            raise _ERRORS[reply.get("error", "server")](model)
    calls = [
        ToolCall(id=_call_id(model, index, j), name=tc["name"], arguments=dict(tc.get("arguments", {})))
        for j, tc in enumerate(reply.get("tool_calls", []))
    ]
    text = _last_user_text(messages) if reply.get("echo") else str(reply.get("text", ""))
    return text, calls, float(reply.get("delay_s", 0.0))


def _current_reply(model: str, messages: list[dict[str, Any]]) -> Any:
    """The raw script entry ``scripted_reply`` answers with (None for echo or past the end)."""
    if model == "echo":
        return None
    replies, repeat_last = _load(model)
    conversation = " ".join(_content_text(m.get("content")) for m in messages)
    for reply in replies:
        if isinstance(reply, dict) and reply.get("when") and _matches(reply["when"], conversation):
            return reply
    ordered = [r for r in replies if not (isinstance(r, dict) and r.get("when"))]
    index = sum(1 for m in messages if m.get("role") == "assistant")
    if index >= len(ordered):
        index = len(ordered) - 1 if repeat_last and ordered else -1
    return ordered[index] if index >= 0 else None


def _count(text: str) -> int:
    return max(1, len(text.split()))


class ScriptedProvider(CustomLLM):
    """litellm custom provider behind ``scripted/...`` model strings."""

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> litellm.ModelResponse:
        text, calls, delay = scripted_reply(model, messages)
        time.sleep(delay)
        model_response = kwargs.get("model_response") or args[3]
        prompt = sum(_count(str(m.get("content") or "")) for m in messages)
        return fill_response(model_response, model, text, calls, prompt, _count(text))

    async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> litellm.ModelResponse:
        text, calls, delay = scripted_reply(model, messages)
        block = _block(_current_reply(model, messages))
        if block:
            await asyncio.get_running_loop().run_in_executor(None, time.sleep, block)
        await asyncio.sleep(delay)
        model_response = kwargs.get("model_response") or args[3]
        prompt = sum(_count(str(m.get("content") or "")) for m in messages)
        return fill_response(model_response, model, text, calls, prompt, _count(text))

    def streaming(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Iterator[Any]:
        text, calls, delay = scripted_reply(model, messages)
        time.sleep(delay)
        yield from _chunks(text, calls, messages)

    async def astreaming(self, model: str, messages: list, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:  # type: ignore[override]
        text, calls, delay = scripted_reply(model, messages)
        await asyncio.sleep(delay)
        for chunk in _chunks(text, calls, messages):
            yield chunk
            await asyncio.sleep(0)


def _chunks(text: str, calls: list[ToolCall], messages: list[dict[str, Any]]) -> Iterator[Any]:
    words = text.split(" ")
    for i, word in enumerate(words):
        if word or i < len(words) - 1:
            yield text_chunk(word + (" " if i < len(words) - 1 else ""))
    yield from final_chunks(calls, sum(_count(str(m.get("content") or "")) for m in messages), _count(text))
