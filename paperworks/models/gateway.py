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
from paperworks.core.errors import ModelError, UserError  # noqa: E402
from paperworks.core.events import emit, store_blob  # noqa: E402
from paperworks.models.cache import cache_key, shared_cache  # noqa: E402
from paperworks.models.checks import (  # noqa: E402,F401  (re-exported: the gateway's API)
    check_credentials,
    check_model,
    provider_message,
    register_provider,
    supports_vision,
    validate_model_name,
)
from paperworks.models.types import (  # noqa: E402
    Message,
    ModelResponse,
    ToolCall,
    parse_arguments,
    validate_generation,
)

litellm.suppress_debug_info = True
litellm.telemetry = False

RETRYABLE: tuple[type[BaseException], ...] = (
    litellm.RateLimitError,
    litellm.APIConnectionError,
    litellm.Timeout,
    litellm.ServiceUnavailableError,
    litellm.InternalServerError,
)
_RETRIED: tuple[type[BaseException], ...] = (*RETRYABLE, TimeoutError)
"""Retried errors: the provider's transient ones and an attempt over ``--timeout``."""
GENERATION_KEYS = {
    "max_tokens", "temperature", "top_p", "top_k", "seed", "stop", "repetition_penalty",
    "presence_penalty", "frequency_penalty", "tool_choice", "response_format", "timeout", "tool_gate",
    "logprobs",
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
    timeout_s: float | None = None
    """Seconds one attempt may take before it is abandoned (and retried, as a provider timeout)."""


LOCAL_GENERATION_DEFAULTS: dict[str, Any] = {"max_tokens": 512, "repetition_penalty": 1.15}
"""Defaults for the embedded model (explicit settings win): greedy decoding of a 135M model falls
into repetition loops without a penalty, and an unbounded reply costs minutes on a CPU."""


def default_config(name: str) -> GatewayConfig:
    """Defaults per model. The in-process local models are not retried (their failures are bugs or bad
    input, not transient provider trouble). The llama.cpp engine batches requests in flight, so it takes
    8 at once; the torch engine (``-torch``, or the fallback when llama-cpp-python is missing) serves one
    at a time, so queueing for it is counted as waiting, not working."""
    if name.startswith("local/"):
        import importlib.util

        batched = not name.endswith("-torch") and importlib.util.find_spec("llama_cpp") is not None
        return GatewayConfig(concurrency=8 if batched else 1, max_retries=0)
    return GatewayConfig()


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


async def _acquire(semaphore: asyncio.Semaphore, budget: Any) -> float:
    """Take a model-concurrency slot; the seconds spent queued count as the run's waiting time."""
    if not semaphore.locked():
        await semaphore.acquire()
        return 0.0
    start = time.monotonic()
    if budget is not None:
        budget.begin_wait()
    try:
        await semaphore.acquire()
    finally:
        if budget is not None:
            budget.end_wait()
    return time.monotonic() - start


_configured: dict[tuple[str, bool, int | None, float | None], Model] = {}


def model_for(name: str, *, cache: bool = False, max_retries: int | None = None,
              timeout_s: float | None = None) -> Model:
    """The shared ``Model`` for a name and the run's gateway settings (``--max-retries``, ``--timeout``)."""
    key = (name, cache, max_retries, timeout_s)
    if key not in _configured:
        config = default_config(name)
        config.cache = cache
        if max_retries is not None:
            config.max_retries = max_retries
        config.timeout_s = timeout_s
        _configured[key] = Model(name, config)
    return _configured[key]


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
        validate_generation(config, where=f"model '{self.name}'")  # bad values fail here, not deep in a provider
        config = {k: v for k, v in config.items() if v is not None}  # None: not set
        if self.name.startswith("local/"):
            config = {**LOCAL_GENERATION_DEFAULTS, **config}
        elif "tool_gate" in config:
            config = {k: v for k, v in config.items() if k != "tool_gate"}  # only the local model has it
        budget = current_budget.get()
        if budget is not None:
            budget.check_call()  # the limits, and the message limit (which counts this call)
        key = cache_key(self.name, messages, tools, config) if self.config.cache else None
        if key is not None:
            hit = shared_cache().get(key)
            if hit is not None:
                self._account(hit, messages, tools, config)
                return hit
        semaphore = self._semaphore()
        waited = await _acquire(semaphore, budget)
        try:
            response = await self._call_with_retries(messages, tools, stream, config)
        finally:
            semaphore.release()
        if key is not None:
            shared_cache().put(key, response)
        self._account(response, messages, tools, config, waited)
        return response

    def _account(self, response: ModelResponse, messages: list[Message], tools: list[dict[str, Any]] | None = None,
                 config: dict[str, Any] | None = None, waited: float = 0.0) -> None:
        budget = current_budget.get()
        if not response.cached:
            self.usage.add(response.usage)
            if budget is not None:
                budget.record(response.usage)
        prompt = store_blob({"model": self.name, "messages": messages, "tools": tools, "settings": config or {}})
        emit(
            "model_call", model=self.name, n_messages=len(messages), cached=response.cached,
            prompt_tokens=response.usage.prompt_tokens, completion_tokens=response.usage.completion_tokens,
            cost=response.usage.cost, latency_s=round(response.latency_s, 3), waiting_s=round(waited, 3),
            prompt=prompt, text=response.text, finish_reason=response.finish_reason,
            tool_calls=[{"id": tc.id, "name": tc.name, "arguments": tc.arguments} for tc in response.tool_calls],
        )

    async def _call_with_retries(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, stream: bool, config: dict[str, Any]
    ) -> ModelResponse:
        kwargs: dict[str, Any] = dict(config)
        if tools:
            kwargs["tools"] = tools
        if self.config.timeout_s is not None and "timeout" not in kwargs \
                and not self.name.startswith(("local/", "scripted/")):
            kwargs["timeout"] = self.config.timeout_s  # the HTTP client gives up too
        start = time.monotonic()
        attempt = 0
        while True:
            try:
                async with asyncio.timeout(self.config.timeout_s):
                    if stream:
                        raw = await self._stream(messages, kwargs)
                    else:
                        raw = await litellm.acompletion(model=self.name, messages=messages, **kwargs)
                return _to_response(self.name, raw, time.monotonic() - start)
            except _RETRIED as exc:
                attempt += 1
                if isinstance(exc, TimeoutError):
                    exc = TimeoutError(f"no reply within --timeout {self.config.timeout_s:g} s")
                if attempt > self.config.max_retries:
                    raise ModelError(f"model '{self.name}' failed after {attempt} attempt"
                                     f"{'s' if attempt > 1 else ''}: {provider_message(exc)}") from exc
                delay = min(self.config.backoff_max_s, self.config.backoff_s * 2 ** (attempt - 1))
                delay *= 0.5 + random.random() / 2
                emit("model_retry", model=self.name, attempt=attempt, delay_s=round(delay, 2),
                     error=provider_message(exc))
                await asyncio.sleep(delay)
            except (ModelError, UserError):
                raise
            except Exception as exc:
                raise ModelError(f"model '{self.name}': {provider_message(exc)}") from exc

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
