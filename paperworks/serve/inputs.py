"""A served run's input: what ``paperworks run NAME -i`` takes, or a graph state update (``graph_input``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from paperworks.core.errors import UserError
from paperworks.workflows.registry import get_workflow


def state_keys(workflow: str) -> frozenset[str]:
    from paperworks.serve.schemas import state_keys as keys

    return frozenset(keys(workflow))


def graph_input(workflow: str, raw: Any) -> tuple[Any, Any]:
    """``(graph input, parsed workflow input or None)`` for a served run's input.

    The workflow's input as ``paperworks run NAME -i`` takes it (a JSON object of its fields, or plain
    text for a one-field input) becomes the initial state; an object of graph state keys only, that is
    not also the workflow input, is a state update as LangGraph takes it (``{"messages": [...]}``); None
    (continue the thread) and commands pass through. Anything else fails with the CLI's one-line error.

    Messages in LangChain's form (``{"type": "human", ...}``) are taken in the workflows' OpenAI form, and an
    update that is one user message is a chat turn (fresh step budget) where the workflow chats, as
    ``paperworks chat`` takes it: what Studio's chat sends."""
    if raw is None or not isinstance(raw, str | Mapping):
        return raw, None
    spec = get_workflow(workflow)
    if isinstance(raw, Mapping) and raw:
        keys = set(raw)
        if keys <= state_keys(workflow) and not keys <= set(spec.input_model.model_fields):
            update = {k: _openai_messages(v) if k in _MESSAGE_KEYS else v for k, v in raw.items()}
            turn = _chat_text(update)
            if turn is not None and spec.chat_turn is not None:
                try:  # recorded as the workflow input it amounts to, where it is one
                    parsed = spec.parse_input(turn)
                except UserError:
                    parsed = None
                return spec.chat_turn(turn), parsed  # a chat turn, as `paperworks chat` takes it
            return update, None
    parsed = spec.parse_input(dict(raw) if isinstance(raw, Mapping) else raw)
    return spec.make_state(parsed), parsed


def _chat_text(update: dict[str, Any]) -> str | None:
    """The text of an update that is one user message and nothing else (what Studio's chat sends)."""
    messages = update.get("messages")
    if set(update) != {"messages"} or not isinstance(messages, list) or len(messages) != 1:
        return None
    msg = messages[0]
    ok = isinstance(msg, Mapping) and msg.get("role") == "user" and isinstance(msg.get("content"), str)
    return str(msg["content"]) if ok and set(msg) <= {"role", "content", "id", "name"} else None


_MESSAGE_KEYS = ("messages", "sub_messages")
_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool",
          "HumanMessage": "user", "AIMessage": "assistant", "SystemMessage": "system", "ToolMessage": "tool"}


def _openai_messages(value: Any) -> Any:
    """Messages in LangChain's form (``{"type": "human", "content": ...}``, what Studio's chat sends) in the
    OpenAI form the workflows keep (``{"role": "user", ...}``); messages with a role are left as they are."""
    if not isinstance(value, list):
        return value
    out = []
    for msg in value:
        if isinstance(msg, Mapping) and "role" not in msg and msg.get("type") in _ROLES:
            role = _ROLES[str(msg["type"])]
            new: dict[str, Any] = {"role": role, "content": msg.get("content", "")}
            if role == "tool":
                new.update(tool_call_id=msg.get("tool_call_id", ""), name=msg.get("name") or "")
            if role == "assistant" and msg.get("tool_calls"):
                new["tool_calls"] = [{"id": c.get("id", ""), "type": "function", "function": {
                    "name": c.get("name", ""), "arguments": json.dumps(c.get("args", {}))}} for c in msg["tool_calls"]]
            out.append(new)
        else:
            out.append(msg)
    return out
