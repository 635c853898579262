"""Helpers shared by our in-process litellm custom providers (local model, scripted mock).

Imports litellm: only import this module from inside ``paperworks.models``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from paperworks.core.paths import set_offline_env

set_offline_env()

import litellm  # noqa: E402
from litellm.types.utils import ChatCompletionMessageToolCall, Function, GenericStreamingChunk  # noqa: E402

from paperworks.models.types import ToolCall  # noqa: E402


def fill_response(
    model_response: litellm.ModelResponse,
    model: str,
    text: str,
    tool_calls: list[ToolCall],
    prompt_tokens: int,
    completion_tokens: int,
    finish_reason: str | None = None,
) -> litellm.ModelResponse:
    """Fill litellm's pre-made ``model_response`` with our result and return it."""
    message = model_response.choices[0].message
    message.content = text
    if tool_calls:
        message.tool_calls = [
            ChatCompletionMessageToolCall(
                id=tc.id,
                type="function",
                function=Function(name=tc.name, arguments=json.dumps(tc.arguments)),
            )
            for tc in tool_calls
        ]
    model_response.choices[0].finish_reason = finish_reason or ("tool_calls" if tool_calls else "stop")  # type: ignore[assignment]
    model_response.model = model
    model_response.usage = litellm.Usage(  # type: ignore[attr-defined]
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=prompt_tokens + completion_tokens,
    )
    return model_response


def text_chunk(text: str) -> GenericStreamingChunk:
    """A streaming chunk carrying a piece of text."""
    return {"text": text, "is_finished": False, "finish_reason": "", "usage": None, "index": 0, "tool_use": None}


def final_chunks(
    tool_calls: list[ToolCall], prompt_tokens: int, completion_tokens: int, finish_reason: str = "stop"
) -> Iterator[GenericStreamingChunk]:
    """The closing chunks of a stream: one per tool call, then the finish chunk with usage."""
    for i, tc in enumerate(tool_calls):
        yield {
            "text": "",
            "is_finished": False,
            "finish_reason": "",
            "usage": None,
            "index": 0,
            "tool_use": {
                "id": tc.id,
                "type": "function",
                "function": {"name": tc.name, "arguments": json.dumps(tc.arguments)},
                "index": i,
            },
        }
    usage: Any = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    yield {
        "text": "",
        "is_finished": True,
        "finish_reason": "tool_calls" if tool_calls else finish_reason,
        "usage": usage,
        "index": 0,
        "tool_use": None,
    }
