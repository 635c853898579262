"""The litellm custom provider that serves ``local/<name>`` model strings from the embedded models.

Tool calls are text (see :mod:`.toolcalls`). ``tool_choice``: ``"none"`` hides the tools;
``"required"`` or a named function makes the reply start with a ``<tool_call>`` opener; ``"auto"``
(the default) starts it only when the model itself gives that opener a total log-probability of at
least ``tool_gate`` (optional parameter, default :data:`AUTO_TOOL_THRESHOLD`; ``False`` turns the gate
off), and never right after tool results, when the model should answer. Without a ``temperature``
the reply is greedy (deterministic). Imports litellm.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Generator
from dataclasses import dataclass, field
from typing import Any

from paperworks.core.paths import set_offline_env

set_offline_env()

import litellm  # noqa: E402 - the offline environment must be set first
from litellm.llms.custom_llm import CustomLLM, CustomLLMError  # noqa: E402
from litellm.types.utils import GenericStreamingChunk  # noqa: E402

from paperworks.models.local.generation import ContextWindowError  # noqa: E402
from paperworks.models.local.smollm import (  # noqa: E402
    LOCAL_MODELS,
    LocalModel,
    LocalModelError,
    get_local_model,
    local_model_spec,
)
from paperworks.models.local.toolcalls import (  # noqa: E402
    TOOL_CALL_CLOSE,
    TOOL_CALL_OPEN,
    parse_tool_calls,
    to_plain_messages,
)
from paperworks.models.provider_util import fill_response, final_chunks, text_chunk  # noqa: E402
from paperworks.models.types import ToolCall  # noqa: E402

litellm.suppress_debug_info = True

PROVIDER = "local"
AUTO_TOOL_THRESHOLD = -8.0
"""Default ``tool_gate``: log-probability the opener ``<tool_call>[`` needs for an unforced tool call.

Measured with SmolLM2-135M on 20 prompts and three tools: 8 of 10 requests that need a tool pass it,
and 2 of 10 that don't ("Hi!", "Thanks, that's all.")."""
_OPENER = TOOL_CALL_OPEN + "["


@dataclass
class _Request:
    """A chat request translated for the embedded model."""

    model: LocalModel
    messages: list[dict[str, str]]
    options: dict[str, Any] = field(default_factory=dict)
    tool_names: set[str] | None = None
    """Names of the offered tools; None when tool calls are not parsed."""


def _known() -> str:
    return ", ".join(f"{PROVIDER}/{n}" for n in sorted(LOCAL_MODELS))


def _check(model: str) -> str:
    """The local model name in ``model``, after the cheap checks (known name, weights installed)."""
    name = model.split("/", 1)[1] if model.startswith(f"{PROVIDER}/") else model
    if name not in LOCAL_MODELS:
        raise CustomLLMError(status_code=404, message=f"unknown local model {name!r}; known: {_known()}")
    try:
        local_model_spec(name).gguf_path()
    except LocalModelError as exc:
        raise CustomLLMError(status_code=400, message=str(exc)) from exc
    return name


def _prepare(model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> _Request:
    """Translate litellm's arguments; raises ``CustomLLMError`` for unknown models or load failures."""
    name = _check(model)
    try:
        local = get_local_model(name)
    except LocalModelError as exc:
        raise CustomLLMError(status_code=500, message=str(exc)) from exc
    choice = params.get("tool_choice") or "auto"
    tools = (params.get("tools") or None) if choice != "none" else None
    stop = params.get("stop") or []
    options: dict[str, Any] = {
        "max_tokens": int(params.get("max_tokens") or params.get("max_completion_tokens") or 512),
        "temperature": float(params.get("temperature") or 0.0),
        "top_p": params.get("top_p"),
        "top_k": params.get("top_k"),
        "seed": params.get("seed"),
        "stop": [stop] if isinstance(stop, str) else list(stop),
        "repetition_penalty": params.get("repetition_penalty"),
    }
    request = _Request(local, to_plain_messages(messages, tools), options)
    if not tools:
        return request
    request.tool_names = {t.get("function", t).get("name", "") for t in tools}
    options["stop"].append(TOOL_CALL_CLOSE)
    if isinstance(choice, dict) and choice.get("function", {}).get("name"):
        options["prefix"] = f'{_OPENER}{{"name": {json.dumps(choice["function"]["name"])}, "arguments": '
    elif choice == "required":
        options["prefix"] = _OPENER
    elif messages and messages[-1].get("role") != "tool":
        gate = params.get("tool_gate", AUTO_TOOL_THRESHOLD)
        if gate is not None and gate is not False:
            options["prefix"], options["prefix_threshold"] = _OPENER, float(gate)
    return request


def _held_back(text: str) -> int:
    """How many characters at the end of ``text`` may begin a ``<tool_call>`` opener."""
    for n in range(min(len(text), len(TOOL_CALL_OPEN) - 1), 0, -1):
        if TOOL_CALL_OPEN.startswith(text[-n:]):
            return n
    return 0


class LocalProvider(CustomLLM):
    """Serves ``local/<name>`` through litellm: completion, streaming and their async variants."""

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        """Blocking chat completion."""
        model_response, params = _unpack(args, kwargs)
        request = _prepare(model, messages, params)
        try:
            result = request.model.generate(request.messages, **request.options)
        except ContextWindowError as exc:
            raise CustomLLMError(status_code=400, message=str(exc)) from exc
        text, calls = result.text, list[ToolCall]()
        if request.tool_names is not None:
            text, calls = parse_tool_calls(text, request.tool_names)
        return fill_response(
            model_response,
            f"{PROVIDER}/{request.model.name}",
            text,
            calls,
            result.prompt_tokens,
            result.completion_tokens,
            "tool_calls" if calls else result.finish_reason,
        )

    def streaming(
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> Generator[GenericStreamingChunk, None, None]:
        """Streamed chat completion: text chunks as decoded, then tool calls and usage.

        With tools, text from a ``<tool_call>`` opener on is held back and parsed at the end (calls
        written as bare JSON are only recognised at the end, after their text was streamed). An unknown
        model or missing weights fail here, before the stream starts.
        """
        _check(model)
        return self._stream(model, messages, *args, **kwargs)

    def _stream(
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> Generator[GenericStreamingChunk, None, None]:
        _, params = _unpack(args, kwargs)
        request = _prepare(model, messages, params)
        try:
            stream = request.model.stream(request.messages, **request.options)
        except ContextWindowError as exc:
            raise CustomLLMError(status_code=400, message=str(exc)) from exc
        full, sent = "", 0
        try:
            for piece in stream:
                full += piece
                if request.tool_names is None:
                    yield text_chunk(piece)
                    continue
                opener = full.find(TOOL_CALL_OPEN)
                safe = opener if opener >= 0 else len(full) - _held_back(full)
                if safe > sent:
                    yield text_chunk(full[sent:safe])
                    sent = safe
        finally:
            stream.close()
        result = stream.result
        assert result is not None
        calls: list[ToolCall] = []
        if request.tool_names is not None:
            text, calls = parse_tool_calls(full, request.tool_names)
            shown = full[:sent].strip()
            rest = text[len(shown) :] if text.startswith(shown) else ""
            if rest:
                yield text_chunk(rest if sent else rest.lstrip())
        finish = "tool_calls" if calls else result.finish_reason
        yield from final_chunks(calls, result.prompt_tokens, result.completion_tokens, finish)

    async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        """Chat completion run in a worker thread, so the event loop stays free."""
        return await asyncio.to_thread(self.completion, model, messages, *args, **kwargs)

    def astreaming(  # type: ignore[override]  # litellm iterates what this returns; it does not await it
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> AsyncIterator[GenericStreamingChunk]:
        """Streamed chat completion; generation runs in a worker thread feeding an asyncio queue.

        Like :meth:`streaming`, an unknown model or missing weights fail here, before the stream starts.
        """
        _check(model)
        return self._astream(model, messages, *args, **kwargs)

    async def _astream(
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> AsyncIterator[GenericStreamingChunk]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        stop = threading.Event()
        done = object()

        def put(item: Any) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop is gone: nobody is listening
                stop.set()

        def produce() -> None:
            chunks = self._stream(model, messages, *args, **kwargs)
            try:
                for chunk in chunks:
                    if stop.is_set():
                        break
                    put(chunk)
            except BaseException as exc:  # noqa: BLE001 - re-raised in the consumer
                put(_Failure(exc))
            finally:
                chunks.close()
                put(done)

        worker = asyncio.ensure_future(asyncio.to_thread(produce))
        try:
            while (item := await queue.get()) is not done:
                if isinstance(item, _Failure):
                    raise item.error
                yield item
        finally:
            stop.set()
            await asyncio.shield(worker)


@dataclass
class _Failure:
    error: BaseException


def _unpack(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """``(model_response, optional_params)`` from litellm's call, positional or by keyword."""
    names = (
        "api_base",
        "custom_prompt_dict",
        "model_response",
        "print_verbose",
        "encoding",
        "api_key",
        "logging_obj",
        "optional_params",
    )
    bound = dict(zip(names, args, strict=False)) | kwargs
    return bound.get("model_response"), dict(bound.get("optional_params") or {})


_lock = threading.Lock()


def register() -> None:
    """Route ``local/<name>`` model strings to :class:`LocalProvider` (idempotent; keeps other entries)."""
    with _lock:
        entries = litellm.custom_provider_map
        if not any(e.get("provider") == PROVIDER for e in entries):
            entries.append({"provider": PROVIDER, "custom_handler": LocalProvider()})
