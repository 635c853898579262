"""The model gateway: one ``Model`` per litellm model string, with retries, a concurrency limit,
an optional on-disk response cache, per-run accounting and event logging.

This is the only module (with the providers beside it) that imports litellm.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import asdict, dataclass
from typing import Any

from paperworks.core.paths import set_offline_env

set_offline_env()

import litellm  # noqa: E402

from paperworks.core.budget import Usage, current_budget  # noqa: E402
from paperworks.core.errors import ModelError, UserError, one_line  # noqa: E402
from paperworks.core.events import emit  # noqa: E402
from paperworks.models.cache import cache_key, shared_cache  # noqa: E402
from paperworks.models.types import Message, ModelResponse, ToolCall, parse_arguments  # noqa: E402

litellm.suppress_debug_info = True
litellm.telemetry = False

RETRYABLE: tuple[type[BaseException], ...] = (
    litellm.RateLimitError,
    litellm.APIConnectionError,
    litellm.Timeout,
    litellm.ServiceUnavailableError,
    litellm.InternalServerError,
)
GENERATION_KEYS = {
    "max_tokens", "temperature", "top_p", "top_k", "seed", "stop", "repetition_penalty",
    "presence_penalty", "frequency_penalty", "tool_choice", "response_format", "timeout", "tool_gate",
}
"""Generation settings ``generate`` passes through (also the response-cache key)."""


@dataclass
class GatewayConfig:
    """How the gateway treats one model."""

    max_retries: int = 4
    """Retries after a retryable provider error (rate limit, timeout, 5xx, connection)."""
    backoff_s: float = 1.0
    """First backoff; doubles each retry, with jitter."""
    backoff_max_s: float = 30.0
    """Longest single backoff."""
    concurrency: int = 8
    """Most requests in flight to this model at once (per event loop)."""
    cache: bool = False
    """Answer identical requests from the on-disk response cache."""


LOCAL_GENERATION_DEFAULTS: dict[str, Any] = {"max_tokens": 512, "repetition_penalty": 1.15}
"""Defaults for the embedded model (explicit settings win): greedy decoding of a 135M model falls
into repetition loops without a penalty, and an unbounded reply costs minutes on a CPU."""


def default_config(name: str) -> GatewayConfig:
    """Defaults per model: the in-process local model serves one request at a time and is not
    retried (its failures are bugs or bad input, not transient provider trouble)."""
    if name.startswith("local/"):
        return GatewayConfig(concurrency=1, max_retries=0)
    return GatewayConfig()


def _register_provider(name: str) -> None:
    """Make our in-process providers known to litellm, on first use of their prefix."""
    prefix = name.split("/", 1)[0]
    if any(e.get("provider") == prefix for e in litellm.custom_provider_map):
        return
    if prefix == "scripted":
        from paperworks.models.scripted import ScriptedProvider

        litellm.custom_provider_map.append({"provider": "scripted", "custom_handler": ScriptedProvider()})
    elif prefix == "local":
        from paperworks.models.local.provider import register

        register()


def supports_vision(name: str) -> bool:
    """Whether litellm knows ``name`` to accept images (our local and scripted models do not)."""
    if name.startswith(("local/", "scripted/")):
        return False
    try:
        return bool(litellm.supports_vision(model=name))
    except Exception:
        return False


def validate_model_name(name: str) -> None:
    """Raise a one-line ``UserError`` if litellm cannot route ``name`` to a provider."""
    _register_provider(name)
    try:
        litellm.get_llm_provider(name)
    except Exception as exc:
        raise UserError(
            f"unknown model '{name}': give a litellm model string such as 'local/smollm2-135m', "
            "'openai/gpt-4o-mini' or 'ollama_chat/qwen2.5'"
        ) from exc


def _to_response(name: str, raw: Any, latency: float) -> ModelResponse:
    choice = raw.choices[0]
    message = choice.message
    calls = [
        ToolCall(
            id=tc.id or f"call_{i}",
            name=tc.function.name,
            arguments=parse_arguments(tc.function.arguments),
        )
        for i, tc in enumerate(message.tool_calls or [])
    ]
    usage = getattr(raw, "usage", None)
    try:
        cost = float(litellm.completion_cost(completion_response=raw) or 0.0)
    except Exception:  # unknown price (local, scripted, self-hosted): count as free
        cost = 0.0
    return ModelResponse(
        text=message.content or "",
        tool_calls=calls,
        usage=Usage(
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost=cost,
            calls=1,
        ),
        latency_s=latency,
        model=name,
        finish_reason=str(choice.finish_reason or ""),
    )


class Model:
    """A model behind a litellm model string. Get one with ``paperworks.models.get_model``."""

    _semaphores: dict[tuple[int, str], asyncio.Semaphore] = {}

    def __init__(self, name: str, config: GatewayConfig | None = None) -> None:
        validate_model_name(name)
        self.name = name
        self.config = config or default_config(name)
        self.usage = Usage()
        """Everything this ``Model`` object has spent, over all runs (cache hits excluded)."""

    def _semaphore(self) -> asyncio.Semaphore:
        key = (id(asyncio.get_running_loop()), self.name)
        if key not in Model._semaphores:
            Model._semaphores[key] = asyncio.Semaphore(self.config.concurrency)
        return Model._semaphores[key]

    async def generate(
        self, messages: list[Message], tools: list[dict[str, Any]] | None = None, *, stream: bool = False,
        **config: Any,
    ) -> ModelResponse:
        """One chat completion: text, tool calls, usage, cost and latency.

        ``config`` takes generation settings (``max_tokens``, ``temperature``, ``top_p``, ``top_k``,
        ``seed``, ``stop``, ...). With ``stream=True`` text pieces are emitted as ``token`` events
        while the reply is produced. Raises ``LimitExceeded`` if the run's budget is spent and
        ``ModelError`` when the provider fails for good.
        """
        unknown = set(config) - GENERATION_KEYS
        if unknown:
            raise UserError(f"unknown generation setting(s) {sorted(unknown)}; known: {sorted(GENERATION_KEYS)}")
        if self.name.startswith("local/"):
            config = {**LOCAL_GENERATION_DEFAULTS, **config}
        elif "tool_gate" in config:
            config = {k: v for k, v in config.items() if k != "tool_gate"}  # only the local model has it
        budget = current_budget.get()
        if budget is not None:
            budget.check()
        key = cache_key(self.name, messages, tools, config) if self.config.cache else None
        if key is not None:
            hit = shared_cache().get(key)
            if hit is not None:
                self._account(hit, messages)
                return hit
        async with self._semaphore():
            response = await self._call_with_retries(messages, tools, stream, config)
        if key is not None:
            shared_cache().put(key, response)
        self._account(response, messages)
        return response

    def _account(self, response: ModelResponse, messages: list[Message]) -> None:
        budget = current_budget.get()
        if not response.cached:
            self.usage.add(response.usage)
            if budget is not None:
                budget.record(response.usage)
        emit(
            "model_call", model=self.name, n_messages=len(messages), cached=response.cached,
            prompt_tokens=response.usage.prompt_tokens, completion_tokens=response.usage.completion_tokens,
            cost=response.usage.cost, latency_s=round(response.latency_s, 3),
            tool_calls=[tc.name for tc in response.tool_calls], text=response.text[:500],
        )

    async def _call_with_retries(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, stream: bool, config: dict[str, Any]
    ) -> ModelResponse:
        kwargs: dict[str, Any] = dict(config)
        if tools:
            kwargs["tools"] = tools
        start = time.monotonic()
        attempt = 0
        while True:
            try:
                if stream:
                    raw = await self._stream(messages, kwargs)
                else:
                    raw = await litellm.acompletion(model=self.name, messages=messages, **kwargs)
                return _to_response(self.name, raw, time.monotonic() - start)
            except RETRYABLE as exc:
                attempt += 1
                if attempt > self.config.max_retries:
                    raise ModelError(
                        f"model '{self.name}' failed after {attempt} attempts: {one_line(exc, 200)}"
                    ) from exc
                delay = min(self.config.backoff_max_s, self.config.backoff_s * 2 ** (attempt - 1))
                delay *= 0.5 + random.random() / 2
                emit("model_retry", model=self.name, attempt=attempt, delay_s=round(delay, 2),
                     error=one_line(exc, 200))
                await asyncio.sleep(delay)
            except (ModelError, UserError):
                raise
            except Exception as exc:
                raise ModelError(f"model '{self.name}': {one_line(exc, 250)}") from exc

    async def _stream(self, messages: list[Message], kwargs: dict[str, Any]) -> Any:
        chunks = []
        response = await litellm.acompletion(
            model=self.name, messages=messages, stream=True, stream_options={"include_usage": True}, **kwargs
        )
        async for chunk in response:
            chunks.append(chunk)
            if chunk.choices and chunk.choices[0].delta.content:
                emit("token", model=self.name, text=chunk.choices[0].delta.content)
        return litellm.stream_chunk_builder(chunks, messages=messages)

    def generate_sync(self, messages: list[Message], tools: list[dict[str, Any]] | None = None,
                      **config: Any) -> ModelResponse:
        """``generate`` for code without an event loop."""
        return asyncio.run(self.generate(messages, tools, **config))

    def describe(self) -> dict[str, Any]:
        """Name and gateway settings, for run records."""
        return {"name": self.name, **asdict(self.config)}
