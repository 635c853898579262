"""The general tool-using agent's role: its system prompt and how a reply becomes state."""

from __future__ import annotations

from paperworks.models.types import Message

SYSTEM_PROMPT = (
    "You are a careful assistant that solves the user's task. When a tool helps (arithmetic, files), "
    "call it, read its result, and then answer. Give the final answer plainly once you have it."
)


def build_messages(history: list[Message], system: str | None = None) -> list[Message]:
    """The conversation sent to the model: the system prompt, then the history."""
    return [{"role": "system", "content": system or SYSTEM_PROMPT}, *history]


def tool_message(call_id: str, name: str, observation: str) -> Message:
    """The message that answers one tool call."""
    return {"role": "tool", "tool_call_id": call_id, "name": name, "content": observation}
