"""The ``agent`` workflow through the runner, with scripted models."""

from __future__ import annotations

import asyncio
import json

from paperworks.core.budget import Limits
from paperworks.core.events import read_events
from paperworks.models.scripted import register_script
from paperworks.workflows import runner
from paperworks.workflows.registry import get_workflow

CALC = {"text": "", "tool_calls": [{"name": "calculate", "arguments": {"expression": "17*23"}}]}


def _run(model: str, task: str = "What is 17*23?", **kw):  # type: ignore[no-untyped-def]
    spec = get_workflow("agent")
    run = runner.create_run(spec, task, model=model, **kw)
    outcome = asyncio.run(runner.execute(run, spec.make_state(spec.parse_input(task))))
    return run, outcome


def test_agent_calls_a_tool_and_finishes() -> None:
    model = register_script("agent-ok", [CALC, "17*23 = 391"])
    run, outcome = _run(model)
    assert outcome.status == "succeeded"
    assert outcome.output == {"answer": "17*23 = 391", "status": "done", "steps": 2}
    events = read_events(run.events_path)
    tools = [e for e in events if e["type"] == "tool_call"]
    assert tools == [{**tools[0], "tool": "calculate", "ok": True, "observation": "391"}]
    nodes = [e["node"] for e in events if e["type"] == "node_end"]
    assert nodes == ["call_model", "run_tools", "call_model"]
    record = run.read_record()
    assert record["status"] == "succeeded" and record["usage"]["calls"] == 2
    assert record["usage"]["total_tokens"] > 0 and record["finished_at"]
    assert {"run_start", "run_end", "model_call"} <= {e["type"] for e in events}


def test_tool_error_goes_back_to_the_model() -> None:
    bad = {"text": "", "tool_calls": [{"name": "calculate", "arguments": {"expression": "1/0"}}]}
    model = register_script("agent-err", [bad, "I could not divide by zero."])
    run, outcome = _run(model)
    assert outcome.status == "succeeded"
    obs = [e for e in read_events(run.events_path) if e["type"] == "tool_call"][0]
    assert not obs["ok"] and obs["observation"].startswith("error:")


def test_model_that_never_stops_calling_tools_is_stopped() -> None:
    model = register_script("agent-loop", [CALC], repeat_last=True)
    run, outcome = _run(model, config_values={"max_steps": 3})
    assert outcome.status == "step_limit"
    assert outcome.output["steps"] == 3 and "still asked for tools after 3 steps" in outcome.output["answer"]
    assert run.read_record()["status"] == "step_limit"
    tools = [e for e in read_events(run.events_path) if e["type"] == "tool_call"]
    assert len(tools) == 2  # 3 model turns, the last one's tool call is not executed


def test_token_limit_stops_the_run() -> None:
    model = register_script("agent-tokens", [CALC], repeat_last=True)
    run, outcome = _run(model, limits=Limits(tokens=60), config_values={"max_steps": 50})
    assert outcome.status == "limit_exceeded" and "token limit of 60" in (outcome.error or "")
    record = run.read_record()
    assert record["status"] == "limit_exceeded" and record["usage"]["total_tokens"] >= 60


def test_time_limit_stops_a_slow_model() -> None:
    model = register_script("agent-slow", [{"text": "late", "delay_s": 5}])
    _, outcome = _run(model, limits=Limits(time_s=0.5))
    assert outcome.status == "limit_exceeded" and "time limit" in (outcome.error or "")


def test_model_error_fails_the_run_with_one_line() -> None:
    model = register_script("agent-down", [{"text": "", "fail_first": 99, "error": "bad_request"}])
    run, outcome = _run(model)
    assert outcome.status == "failed" and "\n" not in (outcome.error or "x\n")
    assert json.loads(run.record_path.read_text())["error"] == outcome.error


def test_file_tools_write_into_the_run_artifacts() -> None:
    write = {"text": "", "tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "391"}}]}
    model = register_script("agent-file", [write, "saved"])
    run, outcome = _run(model)
    assert outcome.status == "succeeded"
    assert (run.path / "artifacts" / "out.txt").read_text() == "391"
