"""Tools from typed functions: schemas, injected context, errors as observations."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from paperworks.core.artifacts import ArtifactStore
from paperworks.core.errors import UserError
from paperworks.models.types import ToolCall
from paperworks.tools.base import tool
from paperworks.tools.registry import BUILTIN, TOOLS, Tool, ToolContext, execute_call, get_tools, load_tool


def _sample(count: int, label: str = "x", ctx: ToolContext | None = None) -> str:
    """Repeat a label.

    Args:
        count: how many times.
        label: what to repeat.
    """
    return label * count


def test_schema_from_signature_and_docstring() -> None:
    t = Tool(_sample)
    fn = t.schema()["function"]
    assert fn["name"] == "_sample" and fn["description"] == "Repeat a label."
    props = fn["parameters"]["properties"]
    assert props["count"]["type"] == "integer" and props["count"]["description"] == "how many times."
    assert props["label"]["default"] == "x"
    assert fn["parameters"]["required"] == ["count"]


def test_context_parameter_is_hidden_and_injected(tmp_path: Path) -> None:
    tools = {t.name: t for t in get_tools(["write_file", "read_file", "list_files"])}
    assert "ctx" not in tools["write_file"].schema()["function"]["parameters"]["properties"]
    ctx = ToolContext(artifacts=ArtifactStore(tmp_path / "artifacts"))
    obs, ok = asyncio.run(execute_call(ToolCall("1", "write_file", {"path": "n/a.txt", "content": "hi"}), tools, ctx))
    assert ok and (tmp_path / "artifacts" / "n" / "a.txt").read_text() == "hi"
    obs, ok = asyncio.run(execute_call(ToolCall("2", "read_file", {"path": "n/a.txt"}), tools, ctx))
    assert ok and obs == "hi"
    obs, ok = asyncio.run(execute_call(ToolCall("3", "list_files", {}), tools, ctx))
    assert obs == "n/a.txt"


def test_file_tools_cannot_escape_the_artifact_folder(tmp_path: Path) -> None:
    tools = {t.name: t for t in get_tools(["write_file", "read_file"])}
    ctx = ToolContext(artifacts=ArtifactStore(tmp_path / "artifacts"))
    obs, ok = asyncio.run(execute_call(ToolCall("1", "write_file", {"path": "../evil.txt", "content": "x"}),
                                       tools, ctx))
    assert not ok and "outside" in obs and not (tmp_path / "evil.txt").exists()
    obs, ok = asyncio.run(execute_call(ToolCall("2", "read_file", {"path": "/etc/passwd"}), tools, ctx))
    assert not ok and obs.startswith("error:")


def test_errors_come_back_as_observations() -> None:
    tools = {t.name: t for t in get_tools(["calculate"])}
    cases = [
        (ToolCall("1", "calculate", {}), "invalid arguments for calculate: expression: Field required"),
        (ToolCall("2", "calculate", {"_unparsed": "{oops"}), "arguments are not valid JSON"),
        (ToolCall("3", "nope", {}), "no tool named 'nope'"),
        (ToolCall("4", "calculate", {"expression": "1/0"}), "undefined"),
    ]
    for call, expected in cases:
        obs, ok = asyncio.run(execute_call(call, tools, None))
        assert not ok and obs.startswith("error:") and expected in obs, obs


def test_artifact_store_is_content_addressed(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path / "a")
    first = store.put(b"same", "x.png")
    assert store.put(b"same", "x.png") == first and first.startswith("artifacts/")
    assert store.put(b"other", "x.png") != first


def test_long_observations_are_recorded_whole(tmp_path: Path) -> None:
    from paperworks.core.events import EventLog, current_events, read_events
    from paperworks.eval.transcript import build_transcript

    tools = {t.name: t for t in [Tool(_sample)]}
    log = EventLog(tmp_path / "events.jsonl")
    token = current_events.set(log)
    try:
        long_obs, _ = asyncio.run(execute_call(ToolCall("1", "_sample", {"count": 9000, "label": "ab"}), tools, None))
        short_obs, _ = asyncio.run(execute_call(ToolCall("2", "_sample", {"count": 3}), tools, None))
    finally:
        current_events.reset(token)
    events = [e for e in read_events(tmp_path / "events.jsonl") if e["type"] == "tool_call"]
    assert len(long_obs) == 18000 and events[0]["observation_chars"] == 18000
    assert len(events[0]["observation"]) < 1000 and "observation_ref" in events[0]
    assert events[1]["observation"] == "xxx" and "observation_ref" not in events[1]
    turns = [t for t in build_transcript(events, tmp_path) if t.role == "tool"]
    assert [t.text for t in turns] == [long_obs, short_obs]


def test_the_table_names_every_tool_under_its_own_name() -> None:
    """``BUILTIN`` is the whole registry: each entry loads a ``Tool`` of that name, nothing else is added."""
    assert list(TOOLS) == list(BUILTIN) and len(TOOLS) == len(BUILTIN) and "calculate" in TOOLS
    for name in BUILTIN:
        assert isinstance(load_tool(name), Tool) and TOOLS[name].name == name
    assert [t.name for t in get_tools()] == list(BUILTIN)
    assert "nope" not in TOOLS


def test_the_decorator_registers_nothing() -> None:
    @tool
    def _not_listed(x: int) -> str:
        """Echo."""
        return str(x)

    assert isinstance(_not_listed, Tool) and "_not_listed" not in TOOLS


def test_unknown_tool_names_are_a_user_error() -> None:
    with pytest.raises(UserError, match=r"unknown tool\(s\) \['nope'\]; known: .*'calculate'"):
        get_tools(["calculate", "nope"])
