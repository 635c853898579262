"""Streaming helpers of the local provider: tool-call hold-back in streamed text, and threaded streams.

Imports litellm (through :mod:`paperworks.models.provider_util`).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Generator
from dataclasses import dataclass
from typing import Any

from litellm.types.utils import GenericStreamingChunk

from paperworks.models.local.generation import GenerationResult
from paperworks.models.local.toolcalls import TOOL_CALL_OPEN, parse_tool_calls
from paperworks.models.provider_util import final_chunks, text_chunk
from paperworks.models.types import ToolCall

__all__ = ["Shaper", "held_back", "threaded"]


def held_back(text: str) -> int:
    """How many characters at the end of ``text`` may begin a ``<tool_call>`` opener."""
    for n in range(min(len(text), len(TOOL_CALL_OPEN) - 1), 0, -1):
        if TOOL_CALL_OPEN.startswith(text[-n:]):
            return n
    return 0


class Shaper:
    """Turns a generation's text pieces into streaming chunks, holding back and parsing tool calls.

    With tools, text from a ``<tool_call>`` opener on is held back and parsed at the end (calls written as
    bare JSON are only recognised at the end, after their text was streamed).
    """

    def __init__(self, tool_names: set[str] | None) -> None:
        self.tool_names = tool_names
        self.full = ""
        self.sent = 0

    def push(self, piece: str) -> list[GenericStreamingChunk]:
        """The chunks to send for a new piece of text."""
        self.full += piece
        if self.tool_names is None:
            return [text_chunk(piece)]
        opener = self.full.find(TOOL_CALL_OPEN)
        safe = opener if opener >= 0 else len(self.full) - held_back(self.full)
        if safe <= self.sent:
            return []
        chunk = text_chunk(self.full[self.sent : safe])
        self.sent = safe
        return [chunk]

    def finish(self, result: GenerationResult) -> list[GenericStreamingChunk]:
        """The closing chunks: held-back text, tool calls, finish reason and usage."""
        out: list[GenericStreamingChunk] = []
        calls: list[ToolCall] = []
        if self.tool_names is not None:
            text, calls = parse_tool_calls(self.full, self.tool_names)
            shown = self.full[: self.sent].strip()
            rest = text[len(shown) :] if text.startswith(shown) else ""
            if rest:
                out.append(text_chunk(rest if self.sent else rest.lstrip()))
        finish = "tool_calls" if calls else result.finish_reason
        out.extend(final_chunks(calls, result.prompt_tokens, result.completion_tokens, finish))
        return out


async def threaded(
    make: Callable[[], Generator[GenericStreamingChunk, None, None]],
) -> AsyncIterator[GenericStreamingChunk]:
    """A blocking chunk generator run in a worker thread, fed through an asyncio queue."""
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
        chunks = make()
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
