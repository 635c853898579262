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

from paperworks.core.events import emit  # noqa: E402
from paperworks.models.local.engine_types import DeadlineExceeded  # noqa: E402
from paperworks.models.local.engines import Engine, get_engine  # noqa: E402
from paperworks.models.local.generation import ContextWindowError, GenerationResult  # noqa: E402
from paperworks.models.local.smollm import (  # noqa: E402
    LOCAL_MODELS,
    LocalModelError,
    check_adapter_dir,
    local_model_spec,
    split_adapter,
)
from paperworks.models.local.streaming import Shaper, threaded  # noqa: E402
from paperworks.models.local.toolcalls import (  # noqa: E402
    TOOL_CALL_CLOSE,
    TOOL_CALL_OPEN,
    parse_tool_calls,
    to_plain_messages,
)
from paperworks.models.provider_util import fill_response  # noqa: E402
from paperworks.models.types import ToolCall  # noqa: E402

litellm.suppress_debug_info = True

PROVIDER = "local"
AUTO_TOOL_THRESHOLD = -8.0
"""Default ``tool_gate``: log-probability the opener ``<tool_call>[`` needs for an unforced tool call.

Measured with SmolLM2-135M on 20 prompts and three tools: 8 of 10 requests that need a tool pass it,
and 2 of 10 that don't ("Hi!", "Thanks, that's all.")."""
_OPENER = TOOL_CALL_OPEN + "["


LITELLM_DEFAULT_TIMEOUTS = (600.0, float(getattr(litellm, "request_timeout", 6000.0)))
"""Timeouts litellm passes when the caller gave none (not limits the caller asked for)."""


@dataclass
class _Request:
    """A chat request translated for the embedded model."""

    model: Engine
    messages: list[dict[str, str]]
    options: dict[str, Any] = field(default_factory=dict)
    tool_names: set[str] | None = None
    """Names of the offered tools; None when tool calls are not parsed."""
    name: str = ""
    """The local model name asked for (``smollm2-135m-torch`` shares its torch model with ``smollm2-135m``)."""
    logprobs: bool = False
    """Record the request's token ids and log-probabilities (``model_tokens`` event)."""


def _known() -> str:
    return ", ".join(f"{PROVIDER}/{n}" for n in sorted(LOCAL_MODELS))


def _check(model: str) -> str:
    """The local model name in ``model``, after the cheap checks (known name, weights installed)."""
    name = model.split("/", 1)[1] if model.startswith(f"{PROVIDER}/") else model
    if name.partition("@")[0] not in LOCAL_MODELS:
        raise CustomLLMError(status_code=404, message=f"unknown local model {name!r}; known: {_known()}")
    try:
        local_model_spec(name).source_gguf()  # cheap: the weights are installed (a derived copy is made on load)
        adapter = split_adapter(name)[1]  # <name>@<DIR>: a saved PEFT adapter is there
        if adapter is not None:
            check_adapter_dir(adapter)
    except LocalModelError as exc:
        raise CustomLLMError(status_code=400, message=str(exc)) from exc
    return name


def _prepare(model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> _Request:
    """Translate litellm's arguments; raises ``CustomLLMError`` for unknown models or load failures.

    ``params`` is litellm's ``optional_params`` plus ``timeout`` (litellm's own argument).
    """
    name = _check(model)
    try:
        local = get_engine(name)
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
    if hasattr(local, "astream"):  # the llama.cpp engine stops at a deadline; the torch one cannot
        timeout = params.get("timeout")
        # litellm hands a custom provider its own default (600 s, or litellm.request_timeout) when the
        # caller gave none: that is no limit here (a long local generation under load passed 600 s and was
        # cut). The gateway's --timeout is enforced around the call, and deadlines come as ``deadline``.
        options["timeout"] = None
        if isinstance(timeout, int | float) and timeout > 0 and timeout not in LITELLM_DEFAULT_TIMEOUTS:
            options["timeout"] = float(timeout)
        deadline = params.get("deadline")
        options["deadline"] = float(deadline) if isinstance(deadline, int | float) else None
    request = _Request(local, to_plain_messages(messages, tools), options, name=name,
                       logprobs=params.get("logprobs") is True)
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


def _reply(request: _Request, model_response: Any, result: GenerationResult) -> Any:
    """litellm's response object filled from a finished generation (tool calls parsed). With the generation
    setting ``logprobs``, the exact token ids and sampling log-probabilities go to the run's events first."""
    if request.logprobs:
        _record_tokens(request, result)
    text, calls = result.text, list[ToolCall]()
    if request.tool_names is not None:
        text, calls = parse_tool_calls(text, request.tool_names)
    return fill_response(
        model_response,
        f"{PROVIDER}/{request.name}",
        text,
        calls,
        result.prompt_tokens,
        result.completion_tokens,
        "tool_calls" if calls else result.finish_reason,
    )


def _record_tokens(request: _Request, result: GenerationResult) -> None:
    """A ``model_tokens`` event: what was fed (``prompt_ids``, the forced prefix's tokens included when it
    was used), what was sampled (``completion_ids``) and each sampled token's log-probability. Training
    reads these, so it learns from the tokens sampled, never from re-tokenised text."""
    emit("model_tokens", model=f"{PROVIDER}/{request.name}", prompt_ids=result.prompt_ids,
         completion_ids=result.completion_ids, logprobs=[round(x, 6) for x in result.logprobs],
         proxies=[round(x, 6) for x in result.proxies],
         prefix=result.prefix, finish_reason=result.finish_reason,
         temperature=request.options.get("temperature"), top_p=request.options.get("top_p"),
         top_k=request.options.get("top_k"), repetition_penalty=request.options.get("repetition_penalty"))


def _provider_error(exc: BaseException) -> BaseException:
    """The litellm error for a generation failure (the original when it is not ours)."""
    if isinstance(exc, ContextWindowError):
        return CustomLLMError(status_code=400, message=str(exc))
    if isinstance(exc, DeadlineExceeded):
        return litellm.Timeout(message=str(exc), model=PROVIDER, llm_provider=PROVIDER)
    return exc


def _note_cancelled(request: _Request, completion_tokens: int) -> None:
    """Record in the run's events how far a cancelled generation got."""
    emit("model_cancelled", model=f"{PROVIDER}/{request.name}", completion_tokens=completion_tokens)


class LocalProvider(CustomLLM):
    """Serves ``local/<name>`` through litellm: completion, streaming and their async variants.

    On the llama.cpp engine the async variants need no worker thread: requests in flight decode together,
    and cancelling the task that awaits one stops its decoding at the engine's next step. A ``timeout``
    (litellm's own argument) or ``deadline`` (optional parameter, ``time.monotonic()``) ends a generation
    that runs past it with ``litellm.Timeout``.
    """

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        """Blocking chat completion."""
        model_response, params = _unpack(args, kwargs)
        request = _prepare(model, messages, params)
        try:
            result = request.model.generate(request.messages, **request.options)
        except (ContextWindowError, DeadlineExceeded) as exc:
            raise _provider_error(exc) from exc
        return _reply(request, model_response, result)

    def streaming(
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> Generator[GenericStreamingChunk, None, None]:
        """Streamed chat completion: text chunks as decoded, then tool calls and usage.

        An unknown model or missing weights fail here, before the stream starts.
        """
        _check(model)
        return self._stream(model, messages, *args, **kwargs)

    def _stream(
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> Generator[GenericStreamingChunk, None, None]:
        _, params = _unpack(args, kwargs)
        request = _prepare(model, messages, params)
        shaper = Shaper(request.tool_names)
        try:
            stream = request.model.stream(request.messages, **request.options)
        except ContextWindowError as exc:
            raise _provider_error(exc) from exc
        try:
            for piece in stream:
                yield from shaper.push(piece)
        except DeadlineExceeded as exc:
            raise _provider_error(exc) from exc
        finally:
            stream.close()
        assert stream.result is not None
        yield from shaper.finish(stream.result)

    async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        """Chat completion; on the llama.cpp engine cancellation stops decoding, else it runs in a thread."""
        model_response, params = _unpack(args, kwargs)
        request = _prepare(model, messages, params)
        if not hasattr(request.model, "astream"):
            return await asyncio.to_thread(self.completion, model, messages, *args, **kwargs)
        try:
            stream = request.model.astream(request.messages, **request.options)
        except ContextWindowError as exc:
            raise _provider_error(exc) from exc
        try:
            async for _ in stream:
                pass
        except asyncio.CancelledError:
            _note_cancelled(request, stream.completion_tokens)
            raise
        except DeadlineExceeded as exc:
            raise _provider_error(exc) from exc
        assert stream.result is not None
        return _reply(request, model_response, stream.result)

    def astreaming(  # type: ignore[override]  # litellm iterates what this returns; it does not await it
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> AsyncIterator[GenericStreamingChunk]:
        """Streamed chat completion; an unknown model or missing weights fail here, before the stream starts."""
        _check(model)
        return self._astream(model, messages, *args, **kwargs)

    async def _astream(
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> AsyncIterator[GenericStreamingChunk]:
        _, params = _unpack(args, kwargs)
        request = _prepare(model, messages, params)
        if not hasattr(request.model, "astream"):
            async for chunk in threaded(lambda: self._stream(model, messages, *args, **kwargs)):
                yield chunk
            return
        shaper = Shaper(request.tool_names)
        try:
            stream = request.model.astream(request.messages, **request.options)
        except ContextWindowError as exc:
            raise _provider_error(exc) from exc
        try:
            async for piece in stream:
                for chunk in shaper.push(piece):
                    yield chunk
        except asyncio.CancelledError:
            _note_cancelled(request, stream.completion_tokens)
            raise
        except DeadlineExceeded as exc:
            raise _provider_error(exc) from exc
        finally:
            await stream.aclose()
        assert stream.result is not None
        for chunk in shaper.finish(stream.result):
            yield chunk


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
    params = dict(bound.get("optional_params") or {})
    if "timeout" in bound and "timeout" not in params:
        params["timeout"] = bound["timeout"]
    return bound.get("model_response"), params


_lock = threading.Lock()


def register() -> None:
    """Route ``local/<name>`` model strings to :class:`LocalProvider` (idempotent; keeps other entries)."""
    with _lock:
        entries = litellm.custom_provider_map
        if not any(e.get("provider") == PROVIDER for e in entries):
            entries.append({"provider": PROVIDER, "custom_handler": LocalProvider()})
