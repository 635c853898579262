"""Tool calling for the embedded model, in text: the prompt that offers tools, and a tolerant parser.

SmolLM2-Instruct was fine-tuned on function calling written as
``<tool_call>[{"name": ..., "arguments": {...}}]</tool_call>``; we use that convention both ways.
Pure Python: nothing heavy is imported here.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from paperworks.models.local.lenient_json import json_values, loads_lenient
from paperworks.models.types import Message, ToolCall

TOOL_CALL_OPEN = "<tool_call>"
TOOL_CALL_CLOSE = "</tool_call>"

_PLACEHOLDERS: dict[str, Any] = {"string": "...", "number": 0, "integer": 0, "boolean": True, "array": [], "object": {}}
_TAG_RE = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
_FENCE_RE = re.compile(r"```[ \t]*(?:json|JSON|tool_call)?[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)
_BARE_RE = re.compile(r"(?:\[\s*)?\{\s*[\"'](?:name|arguments|parameters|function)[\"']\s*:")
_DEBRIS_RE = re.compile(r"^[\s\[\]{},>]+|[\s\[\]{},>]+$")


def _functions(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The ``function`` parts of OpenAI tool schemas (plain function dicts are accepted too)."""
    return [t.get("function", t) for t in tools or [] if isinstance(t, dict)]


def _example_call(fn: dict[str, Any]) -> dict[str, Any]:
    props = (fn.get("parameters") or {}).get("properties") or {}
    args = {k: _PLACEHOLDERS.get(str((v or {}).get("type")), "...") for k, v in props.items()}
    return {"name": fn.get("name", ""), "arguments": args}


def tools_system_prompt(tools: list[dict[str, Any]]) -> str:
    """The system-prompt block that offers ``tools`` (OpenAI schemas) and shows how to call them.

    One example call per tool (up to eight) works best with SmolLM2-135M: a single example biases it
    toward that tool, and one list of all tools gets copied whole.
    """
    fns = _functions(tools)
    examples = [f"{TOOL_CALL_OPEN}{json.dumps([_example_call(f)])}{TOOL_CALL_CLOSE}" for f in fns[:8]]
    return (
        "You are an expert in composing functions. You are given a question and a set of possible "
        "functions. Based on the question, you will need to make one or more function/tool calls to "
        "achieve the purpose. If no function is needed, answer normally.\n\n"
        f"You have access to the following tools:\n<tools>{json.dumps(fns)}</tools>\n\n"
        "To call tools, the output MUST strictly adhere to the following format, and NO other text "
        "MUST be included. Examples:\n" + "\n".join(examples)
    )


def _text_of(content: Any) -> str:
    """Message content as a string; OpenAI content-part lists keep only their text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") if isinstance(p, dict) else str(p) for p in content]
        return "\n".join(p for p in parts if p)
    return str(content)


def render_tool_calls(calls: list[dict[str, Any]]) -> str:
    """OpenAI ``tool_calls`` entries rendered in the textual convention the model reads and writes."""
    items = []
    for call in calls:
        fn = call.get("function", call)
        args = fn.get("arguments", {})
        if isinstance(args, str):
            parsed = loads_lenient(args) if args.strip() else {}
            args = parsed if isinstance(parsed, dict) else args
        items.append({"name": fn.get("name", ""), "arguments": args})
    return f"{TOOL_CALL_OPEN}{json.dumps(items)}{TOOL_CALL_CLOSE}"


def _signature(name: str, args: Any) -> str:
    return f"{name}({json.dumps(args) if not isinstance(args, str) else args})"


def _observation(calls: list[tuple[str, str, Any]], results: dict[str, str], orphans: list[str]) -> str:
    """Tool calls and their results as one user-side note."""
    lines = []
    for call_id, name, args in calls:
        result = results.get(call_id)
        lines.append(
            f"{_signature(name, args)} returned:\n{result}"
            if result is not None
            else f"{_signature(name, args)} has no result yet."
        )
    lines += orphans
    head = "A tool was called for you: " if len(lines) == 1 else "Tools were called for you:\n"
    return head + "\n".join(lines)


def to_plain_messages(
    messages: list[Message], tools: list[dict[str, Any]] | None, style: str = "observation"
) -> list[dict[str, str]]:
    """An OpenAI-style conversation as plain system/user/assistant string messages for the chat template.

    The tools prompt joins the first system message (one is created when absent); content-part lists
    keep their text parts; ``developer`` becomes ``system``. Tool traffic is rendered by ``style``:

    - ``"observation"`` (default; SmolLM2-135M answers from it best): each assistant tool-call turn and
      its results become a user-side note, ``A tool was called for you: name({...}) returned:\n...``,
      appended to the preceding user message (or its own user turn after assistant text).
    - ``"tags"``: assistant calls as ``<tool_call>[...]</tool_call>`` and results as a user turn of
      ``<tool_response name="...">...</tool_response>`` blocks.
    """
    out: list[dict[str, str]] = []
    calls: list[tuple[str, str, Any]] = []
    results: dict[str, str] = {}
    orphans: list[str] = []
    names: dict[str, str] = {}

    def flush() -> None:
        """Pending tool calls and results become a note in the user's turn (or a user turn of its own)."""
        if calls or orphans:
            note = _observation(calls, results, orphans)
            if out and out[-1]["role"] == "user":
                out[-1]["content"] = f"{out[-1]['content']}\n\n{note}" if out[-1]["content"] else note
            else:
                out.append({"role": "user", "content": note})
        calls.clear()
        results.clear()
        orphans.clear()

    for msg in messages:
        role = msg.get("role", "user")
        text = _text_of(msg.get("content"))
        if role == "tool":
            call_id = str(msg.get("tool_call_id", ""))
            name = msg.get("name") or names.get(call_id, "tool")
            if style == "tags":
                block = f'<tool_response name="{name}">\n{text}\n</tool_response>'
                if out and out[-1]["content"].startswith("<tool_response"):
                    out[-1]["content"] += "\n" + block
                else:
                    out.append({"role": "user", "content": block})
            elif call_id in names and any(i == call_id for i, _, _ in calls):
                results[call_id] = text
            else:
                orphans.append(f"{name} returned:\n{text}")
            continue
        flush()
        if role == "assistant" and msg.get("tool_calls"):
            for call in msg["tool_calls"]:
                names[str(call.get("id", ""))] = call.get("function", call).get("name", "")
            if style == "tags":
                rendered = render_tool_calls(msg["tool_calls"])
                text = f"{text}\n{rendered}" if text.strip() else rendered
            else:
                for call in msg["tool_calls"]:
                    fn = call.get("function", call)
                    args = fn.get("arguments", {})
                    parsed = loads_lenient(args) if isinstance(args, str) and args.strip() else args
                    calls.append((str(call.get("id", "")), fn.get("name", ""), parsed if parsed is not None else args))
                if not text.strip():
                    continue
        if role == "developer":
            role = "system"
        elif role not in ("system", "user", "assistant"):
            role = "user"
        out.append({"role": role, "content": text})
    flush()
    if tools:
        block = tools_system_prompt(tools)
        if out and out[0]["role"] == "system":
            out[0]["content"] = f"{out[0]['content']}\n\n{block}" if out[0]["content"].strip() else block
        else:
            out.insert(0, {"role": "system", "content": block})
    return out


# ---------------------------------------------------------------------------------------------- parsing


def _as_call(item: Any) -> tuple[str, dict[str, Any]] | None:
    """``(name, arguments)`` when ``item`` looks like a tool call, else None."""
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("function"), dict):
        item = item["function"]
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        return None
    args = item.get("arguments", item.get("parameters", {}))
    if isinstance(args, str):
        args = loads_lenient(args) if args.strip() else {}
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return None
    return name.strip(), args


def _calls_in(value: Any) -> tuple[list[tuple[str, dict[str, Any]]], bool]:
    """Calls in a parsed value (one call or a list of them) and whether every item was call-shaped."""
    items = value if isinstance(value, list) else [value]
    calls = [c for c in (_as_call(x) for x in items) if c is not None]
    return calls, bool(items) and len(calls) == len(items)


def _call_id(n: int, name: str, args: dict[str, Any]) -> str:
    digest = hashlib.sha1(f"{name}:{json.dumps(args, sort_keys=True, default=str)}".encode()).hexdigest()
    return f"call_{n}_{digest[:8]}"


def parse_tool_calls(text: str, tool_names: set[str] | None = None) -> tuple[str, list[ToolCall]]:
    """Split model output into ``(remaining_text, tool_calls)``; never raises.

    Understands ``<tool_call>`` blocks (one object, a list, or several objects; the closing tag may be
    missing), JSON in code fences, and bare JSON calls. A call item has ``name`` and ``arguments`` (or
    ``parameters``; a JSON string is accepted). Calls to names outside ``tool_names`` stay in the text.
    Ids are ``call_<n>_<hash>``, derived from the content, so replays reproduce them.
    """
    if not isinstance(text, str) or not text:
        return (text if isinstance(text, str) else ""), []
    try:
        return _parse(text, tool_names)
    except Exception:  # noqa: BLE001 - garbage in, text out
        return text.strip(), []


def _parse(text: str, tool_names: set[str] | None) -> tuple[str, list[ToolCall]]:
    found: list[tuple[str, dict[str, Any]]] = []

    def take(segment: str, tagged: bool) -> str:
        """Calls in ``segment`` go to ``found``; returns what is left of it as text."""
        kept: list[str] = []
        pos = 0

        def keep_text(piece: str) -> None:
            # in a tag block, bracket debris around the calls of a malformed value is dropped
            kept.append(_DEBRIS_RE.sub("", piece) if tagged else piece)

        for start, end, value in json_values(segment):
            calls, all_calls = _calls_in(value)
            if not calls or (not tagged and not all_calls):
                continue
            unknown = [c for c in calls if tool_names is not None and c[0] not in tool_names]
            found.extend(c for c in calls if c not in unknown)
            keep_text(segment[pos:start])
            if unknown:
                leftover = [{"name": n, "arguments": a} for n, a in unknown]
                kept.append(json.dumps(leftover if len(leftover) > 1 else leftover[0]))
            pos = end
        keep_text(segment[pos:])
        return "\n".join(k for k in kept if k) if tagged else "".join(kept)

    def replace(pattern: re.Pattern[str], s: str, tagged: bool) -> str:
        def sub(m: re.Match[str]) -> str:
            before = len(found)
            rest = take(m.group(1), tagged)
            return rest if len(found) > before or tagged else m.group(0)

        return pattern.sub(sub, s)

    remaining = replace(_TAG_RE, text, tagged=True)
    remaining = replace(_FENCE_RE, remaining, tagged=False)
    if _BARE_RE.search(remaining):
        remaining = take(remaining, tagged=False)
    remaining = remaining.replace(TOOL_CALL_OPEN, "").replace(TOOL_CALL_CLOSE, "")
    remaining = re.sub(r"\n{3,}", "\n\n", remaining).strip()
    calls = [ToolCall(id=_call_id(i, name, args), name=name, arguments=args) for i, (name, args) in enumerate(found)]
    return remaining, calls
