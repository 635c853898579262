"""A sample's transcript as Inspect messages and events: what the models were sent and replied, and the tools.

paperworks records each model call and tool call as an event (``model_call``, ``tool_call``, ``limit``)
whose full prompt and observation are stored beside the run (``eval/transcript.py`` loads them).
This module turns those into Inspect's own pydantic types: OpenAI-style message dicts into
``ChatMessage``s, a sample's events into its ``messages`` (``conversation``) and into ``ModelEvent``,
``ToolEvent`` and ``SampleLimitEvent`` objects (``inspect_events``), and a reply with its token counts
into a ``ModelOutput``. inspect_ai is imported inside the functions.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspect_ai.model import ChatMessage, ModelOutput, StopReason

_LIMIT = {"time": "time", "working_time": "working", "tokens": "token", "cost": "cost"}
"""paperworks' limit kinds → Inspect's ``EvalSampleLimitType``."""


def _text(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in value)
    return "" if value is None else str(value)


def _arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return {"value": value}
    return value if isinstance(value, dict) else ({} if value is None else {"value": value})


def _tool_calls(calls: list[Any] | None) -> list[Any] | None:
    from inspect_ai.tool import ToolCall

    out = []
    for i, call in enumerate(calls or []):
        if not isinstance(call, dict):
            continue
        fn: dict[str, Any] = call["function"] if isinstance(call.get("function"), dict) else call
        out.append(ToolCall(id=str(call.get("id") or f"call_{i}"), function=str(fn.get("name")),
                            arguments=_arguments(fn.get("arguments"))))
    return out or None


def chat_message(msg: dict[str, Any]) -> ChatMessage:
    """One OpenAI-style message dict (what paperworks sends its models) as an Inspect ``ChatMessage``."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageTool, ChatMessageUser

    role, content = msg.get("role"), _text(msg.get("content"))
    if role == "system":
        return ChatMessageSystem(content=content)
    if role == "assistant":
        return ChatMessageAssistant(content=content, tool_calls=_tool_calls(msg.get("tool_calls")))
    if role == "tool":
        return ChatMessageTool(content=content, tool_call_id=msg.get("tool_call_id"), function=msg.get("name"))
    return ChatMessageUser(content=content)


def _model_output(model: str, text: str, calls: list[Any] | None, finish: Any, prompt_tokens: int = 0,
                  completion_tokens: int = 0, cost: float | None = None, time_s: float | None = None) -> ModelOutput:
    from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, ModelOutput, ModelUsage

    stops: dict[Any, StopReason] = {"stop": "stop", "max_tokens": "max_tokens", "length": "max_tokens",
                                    "model_length": "model_length", "tool_calls": "tool_calls",
                                    "content_filter": "content_filter"}
    stop: StopReason = stops.get(finish, "unknown")
    message = ChatMessageAssistant(content=text, tool_calls=_tool_calls(calls), model=model)
    usage = ModelUsage(input_tokens=prompt_tokens, output_tokens=completion_tokens,
                       total_tokens=prompt_tokens + completion_tokens, total_cost=cost)
    return ModelOutput(model=model, choices=[ChatCompletionChoice(message=message, stop_reason=stop)],
                       usage=usage, time=time_s)


def _tool_infos(tools: Any) -> list[Any]:
    from inspect_ai.tool import ToolInfo

    out = []
    for tool in tools or []:
        fn = tool.get("function", tool) if isinstance(tool, dict) else None
        if not isinstance(fn, dict) or not fn.get("name"):
            continue
        try:
            out.append(ToolInfo.model_validate({"name": fn["name"], "description": fn.get("description") or "",
                                                "parameters": fn.get("parameters") or {}}))
        except ValueError:  # a schema Inspect's ToolParams cannot hold: keep the name and description
            out.append(ToolInfo(name=fn["name"], description=fn.get("description") or ""))
    return out


def _when(t: Any) -> datetime:
    return datetime.fromtimestamp(float(t), tz=UTC) if isinstance(t, int | float) else datetime.now(tz=UTC)


def _prompt(run_dir: Path, event: dict[str, Any]) -> dict[str, Any]:
    from paperworks.eval.transcript import load_prompt

    return load_prompt(run_dir, event) or {}


def conversation(events: list[dict[str, Any]], run_dir: Path) -> list[ChatMessage]:
    """A sample's messages: the last model call's full prompt plus its reply, then any tool results after
    it; without a stored prompt, rebuilt turn by turn from the events."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool

    calls = [i for i, e in enumerate(events) if e.get("type") == "model_call"]
    if not calls:
        return []
    last = events[calls[-1]]
    prompt = _prompt(run_dir, last).get("messages")
    messages: list[ChatMessage] = []
    if isinstance(prompt, list):
        messages = [chat_message(m) for m in prompt if isinstance(m, dict)]
        tail = events[calls[-1]:]
    else:
        first = _prompt(run_dir, events[calls[0]]).get("messages") or []
        messages = [chat_message(m) for m in first if isinstance(m, dict)]
        tail = events[calls[0]:]
    from paperworks.eval.transcript import load_observation

    for event in tail:
        if event.get("type") == "model_call":
            messages.append(ChatMessageAssistant(content=str(event.get("text") or ""), model=event.get("model"),
                                                 tool_calls=_tool_calls(event.get("tool_calls"))))
        elif event.get("type") == "tool_call":
            ok = event.get("ok", True)
            messages.append(ChatMessageTool(
                content=load_observation(run_dir, event), function=str(event.get("tool")),
                tool_call_id=event.get("id"),
                error=None if ok else _tool_error(load_observation(run_dir, event))))
    return messages


def _tool_error(text: str) -> Any:
    from inspect_ai.tool import ToolCallError

    return ToolCallError(type="unknown", message=text or "tool failed")


def inspect_events(events: list[dict[str, Any]], run_dir: Path, start: float | None = None) -> list[Any]:
    """The sample's model calls, tool calls and limits as Inspect events (in order)."""
    from inspect_ai.event import ModelEvent, SampleLimitEvent, ToolEvent
    from inspect_ai.model import GenerateConfig

    out: list[Any] = []
    t0 = start if start is not None else next((e["t"] for e in events if isinstance(e.get("t"), int | float)), 0.0)
    pending: dict[str, str] = {}  # tool name -> id of the last call of that tool the model asked for
    for event in events:
        kind, t = event.get("type"), event.get("t")
        working = max(0.0, float(t) - float(t0)) if isinstance(t, int | float) else 0.0
        if kind == "model_call":
            prompt = _prompt(run_dir, event)
            model = str(event.get("model") or prompt.get("model") or "unknown")
            latency = event.get("latency_s")
            output = _model_output(model, str(event.get("text") or ""), event.get("tool_calls"),
                                   event.get("finish_reason"), int(event.get("prompt_tokens") or 0),
                                   int(event.get("completion_tokens") or 0), event.get("cost"), latency)
            for call in event.get("tool_calls") or []:
                if isinstance(call, dict) and call.get("name"):
                    pending[str(call["name"])] = str(call.get("id") or "")
            settings = {k: v for k, v in (prompt.get("settings") or {}).items()
                        if k in ("max_tokens", "temperature", "top_p", "top_k", "seed", "stop_seqs")}
            out.append(ModelEvent(
                model=model, input=[chat_message(m) for m in prompt.get("messages") or [] if isinstance(m, dict)],
                tools=_tool_infos(prompt.get("tools")), tool_choice="auto", config=GenerateConfig(**settings),
                output=output, timestamp=_when(t), working_start=working,
                working_time=float(latency) if isinstance(latency, int | float) else None,
                cache="read" if event.get("cached") else None,
                metadata={"waiting_s": event.get("waiting_s"), "sample": event.get("sample")}))
        elif kind == "tool_call":
            from paperworks.eval.transcript import load_observation

            name = str(event.get("tool"))
            observation = load_observation(run_dir, event)
            ok = event.get("ok", True)
            out.append(ToolEvent(
                id=str(event.get("id") or pending.get(name) or f"tool_{len(out)}"), function=name,
                arguments=_arguments(event.get("arguments")), result=observation,
                error=None if ok else _tool_error(observation), failed=None if ok else True,
                timestamp=_when(t), working_start=working,
                working_time=event.get("latency_s") if isinstance(event.get("latency_s"), int | float) else None))
        elif kind == "limit":
            limit_type = _LIMIT.get(str(event.get("kind")), "custom")
            out.append(SampleLimitEvent(type=limit_type, message=str(event.get("message") or "limit"),  # type: ignore[arg-type]
                                        timestamp=_when(t), working_start=working))
    return out
