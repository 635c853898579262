"""Model tokens into LangGraph's stream modes, for a served run.

The workflows call the paperworks gateway (``ctx.get_model().generate(...)``), not a LangChain chat model,
so LangGraph's ``messages`` mode (which listens to chat-model callbacks) saw nothing. A served run's
context hands out ``CallbackModel`` instead: each ``generate`` is reported to the node's LangChain
callbacks as one chat-model run (``on_chat_model_start``, one ``on_llm_new_token`` per text piece the
gateway streams, ``on_llm_end`` with the whole reply and its tool calls). That feeds

- ``messages`` / ``messages-tuple``: ``AIMessageChunk`` pieces as they are generated (one message id per
  model call), and the whole ``AIMessage`` for a reply that was not streamed (a cache hit, a workflow
  that asks for no streaming);
- ``events``: ``on_chat_model_start`` / ``on_chat_model_stream`` / ``on_chat_model_end``.

``custom`` mode carries the run's paperworks events from inside the nodes (``token``, ``model_call``,
``tool_call``, ``model_retry``: the events ``paperworks run`` shows live), through ``forward_event``.

The gateway emits text pieces as ``token`` events, synchronously; ``forward_event`` puts them on the
queue of the model call in flight in the same task (a context variable), and a pump task awaits the
callbacks in order, so tokens reach the client while the model is still generating.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

_sink: ContextVar[Callable[[str], None] | None] = ContextVar("paperworks_serve_token_sink", default=None)


def _node_config() -> dict[str, Any] | None:
    """The running node's config (None outside a LangGraph node)."""
    try:
        from langgraph.config import get_config

        return dict(get_config())
    except Exception:
        return None


def forward_event(event: dict[str, Any]) -> None:
    """A listener of the served run's event log: token pieces to the model call in flight, every event
    emitted inside a node to LangGraph's ``custom`` stream."""
    if event.get("type") == "token":
        sink = _sink.get()
        if sink is not None and event.get("text"):
            sink(str(event["text"]))
    if _node_config() is None:
        return
    try:
        from langgraph.config import get_stream_writer

        get_stream_writer()(dict(event))
    except Exception:  # no custom stream here: nothing to do
        pass


def _to_langchain(messages: list[dict[str, Any]]) -> list[Any]:
    from langchain_core.messages import convert_to_messages

    try:
        return list(convert_to_messages(messages))
    except Exception:  # a message LangChain cannot read: show the text, not nothing
        from langchain_core.messages import ChatMessage

        return [ChatMessage(role=str(m.get("role", "user")), content=str(m.get("content") or "")) for m in messages]


class CallbackModel:
    """A gateway ``Model`` whose ``generate`` is reported to the running node's LangChain callbacks;
    everything else is the model's own."""

    def __init__(self, model: Any) -> None:
        self._model = model

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    async def generate(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, *,
                       stream: bool = False, **config: Any) -> Any:
        node_config = _node_config()
        if node_config is None:
            return await self._model.generate(messages, tools, stream=stream, **config)
        from langchain_core.messages import AIMessage, AIMessageChunk
        from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, LLMResult
        from langchain_core.runnables.config import get_async_callback_manager_for_config

        name = str(self._model.name)
        metadata = {**(node_config.get("metadata") or {}), "ls_provider": name.split("/", 1)[0],
                    "ls_model_name": name, "ls_model_type": "chat"}
        manager = get_async_callback_manager_for_config({**node_config, "metadata": metadata})  # type: ignore[typeddict-item]
        run_id = uuid.uuid4()
        message_id = f"run-{run_id}"
        params = {"model": name, "stream": stream, **config, **({"tools": tools} if tools else {})}
        (run,) = await manager.on_chat_model_start(
            {"name": "paperworks", "id": ["paperworks", "models", "gateway", "Model"]}, [_to_langchain(messages)],
            run_id=run_id, name=name, invocation_params=params)
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        streamed = 0

        async def pump() -> None:
            nonlocal streamed
            while (piece := await queue.get()) is not None:
                streamed += 1
                chunk = AIMessageChunk(content=piece, id=message_id)
                await run.on_llm_new_token(piece, chunk=ChatGenerationChunk(message=chunk))

        pumping = asyncio.create_task(pump())
        token = _sink.set(queue.put_nowait)
        try:
            reply = await self._model.generate(messages, tools, stream=stream, **config)
        except BaseException as exc:
            _sink.reset(token)
            pumping.cancel()
            await asyncio.gather(pumping, return_exceptions=True)
            await run.on_llm_error(exc)
            raise
        _sink.reset(token)
        queue.put_nowait(None)
        await pumping
        calls = [{"name": c.name, "args": dict(c.arguments), "id": c.id, "type": "tool_call"} for c in reply.tool_calls]
        if streamed and calls:  # the tool calls close the streamed message, as a provider's last chunks do
            chunk = AIMessageChunk(content="", id=message_id, tool_call_chunks=[
                {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i, "type": "tool_call_chunk"}
                for i, c in enumerate(calls)])
            await run.on_llm_new_token("", chunk=ChatGenerationChunk(message=chunk))
        usage = {"input_tokens": reply.usage.prompt_tokens, "output_tokens": reply.usage.completion_tokens,
                 "total_tokens": reply.usage.prompt_tokens + reply.usage.completion_tokens}
        final = AIMessage(content=reply.text, id=message_id, tool_calls=calls, usage_metadata=usage,
                          response_metadata={"model_name": name, "finish_reason": reply.finish_reason})
        await run.on_llm_end(LLMResult(generations=[[ChatGeneration(message=final)]],
                                       llm_output={"model_name": name}))
        return reply
