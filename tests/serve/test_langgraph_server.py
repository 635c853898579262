"""``paperworks serve`` with the real langgraph-sdk client on loopback: one in-memory LangGraph server for
the module, ``agent`` and ``spada`` on scripted models, streamed events, final state, run settings in the
context, interrupt and resume, and an audit hook in the server process that records every attempt to
reach beyond loopback (a LangSmith key is set on purpose: it would start tracing and the usage beacon)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph_api")
pytest.importorskip("langgraph_runtime_inmem")
langgraph_sdk = pytest.importorskip("langgraph_sdk")

from paperworks.core.errors import UserError  # noqa: E402
from paperworks.workflows.registry import BUILTIN  # noqa: E402
from tests.conftest import ROOT, cli  # noqa: E402
from tests.serve.conftest import Server, _free_port, _write  # noqa: E402
from tests.workflows.spada.test_graph import GOOD  # noqa: E402

CALC = {"text": "", "tool_calls": [{"name": "calculate", "arguments": {"expression": "17*23"}}]}
TASK = {"messages": [{"role": "user", "content": "What is 17*23?"}]}
REQUEST = "A 40 mm square base plate, 5 mm thick, with a 10 mm post 20 mm tall standing on it."

def _stream(server: Server, thread_id: str, graph: str, input: Any, context: dict[str, Any],
            **kw: Any) -> list[tuple[str, Any]]:
    return [(p.event, p.data) for p in server.client.runs.stream(
        thread_id, graph, input=input, context=context, stream_mode=["updates", "values"], **kw)]


@pytest.mark.slow
def test_serves_every_builtin_workflow(server: Server) -> None:
    assistants = server.client.assistants.search(limit=50)
    assert sorted(a["graph_id"] for a in assistants) == sorted(BUILTIN)
    schemas = server.client.assistants.get_schemas(next(a for a in assistants if a["graph_id"] == "agent")
                                                   ["assistant_id"])
    assert {"model", "seed", "generation", "max_retries"} <= set(schemas["context_schema"]["properties"])


def test_agent_streams_tool_call_and_answer(server: Server) -> None:
    thread = server.client.threads.create()
    events = _stream(server, thread["thread_id"], "agent", TASK, {"model": server.models["agent"]})
    updates = [data for event, data in events if event == "updates"]
    assert [next(iter(u)) for u in updates] == ["call_model", "run_tools", "call_model"]
    tool_msg = updates[1]["run_tools"]["messages"][0]
    assert tool_msg["role"] == "tool" and tool_msg["name"] == "calculate" and tool_msg["content"] == "391"
    assert updates[0]["call_model"]["messages"][0]["tool_calls"][0]["function"]["name"] == "calculate"
    last_values = [data for event, data in events if event == "values"][-1]
    assert last_values["answer"] == "17*23 = 391"
    state = server.client.threads.get_state(thread["thread_id"])
    assert state["next"] == []
    values = state["values"]
    assert values["answer"] == "17*23 = 391" and values["steps"] == 2 and values["status"] == "done"
    assert [m["role"] for m in values["messages"]] == ["user", "assistant", "tool", "assistant"]


def test_workflow_setting_in_context_reaches_the_graph(server: Server) -> None:
    thread = server.client.threads.create()
    final = server.client.runs.wait(thread["thread_id"], "agent", input=TASK,
                                    context={"model": server.models["loop"], "max_steps": 2})
    assert isinstance(final, dict)
    assert final["status"] == "step_limit" and final["steps"] == 2  # default max_steps is 8
    assert "still asked for tools after 2 steps" in final["answer"]
    # the same settings through config.configurable (the older way) are read the same
    thread = server.client.threads.create()
    final = server.client.runs.wait(thread["thread_id"], "agent", input=TASK,
                                    config={"configurable": {"model": server.models["loop"], "max_steps": 3}})
    assert isinstance(final, dict) and final["steps"] == 3


@pytest.mark.parametrize(("context", "needle"), [
    ({"max_steps": 0}, "setting 'max_steps': Input should be greater than or equal to 1"),
    ({"max_stepz": 3}, "unknown run setting 'max_stepz' for workflow 'agent'"),
    ({"model": "nope/nothing"}, "unknown model 'nope/nothing'"),
    ({"seed": "abc"}, "context 'seed': Input should be a valid integer"),
])
def test_bad_setting_fails_the_run_with_one_line(server: Server, context: dict[str, Any], needle: str) -> None:
    thread = server.client.threads.create()
    events = _stream(server, thread["thread_id"], "agent", TASK,
                     {"model": server.models["agent"], **context})
    errors = [data for event, data in events if event == "error"]
    assert len(errors) == 1 and errors[0]["error"] == "UserError", events
    assert needle in errors[0]["message"] and "\n" not in errors[0]["message"]
    assert [event for event, _ in events if event == "updates"] == []


@pytest.mark.slow
def test_spada_repairs_and_writes_artifacts(server: Server) -> None:
    thread = server.client.threads.create()
    events = _stream(server, thread["thread_id"], "spada", {"request": REQUEST},
                     {"model": server.models["spada"], "renders": False, "max_iterations": 3})
    nodes = [next(iter(d)) for e, d in events if e == "updates"]
    assert nodes == ["write_spec", "write_code", "write_tests", "run_checks", "repair", "run_checks", "finish"]
    values = server.client.threads.get_state(thread["thread_id"])["values"]
    assert values["status"] == "passed" and values["iteration"] == 2
    first, second = values["history"]
    assert first["ok"] is False and second["ok"] is True
    assert (second["tests_passed"], second["tests_total"]) == (2, 2)
    assert first["tests_passed"] == 1  # the overlapping post fails test_post_on_base only
    assert [p["name"] for p in values["spec"]["parts"]] == ["base", "post"]
    art = server.root / "runs" / "serve" / "spada" / thread["thread_id"] / "artifacts"
    report = json.loads((art / "report.json").read_text())
    assert report["ok"] is True and report["iterations"] == 2
    assert (art / "assembly.py").read_text() in GOOD


def test_interrupt_before_a_node_then_resume(server: Server) -> None:
    thread = server.client.threads.create()
    tid, ctx = thread["thread_id"], {"model": server.models["agent"]}
    events = _stream(server, tid, "agent", TASK, ctx, interrupt_before=["run_tools"])
    assert [next(iter(d)) for e, d in events if e == "updates"] == ["call_model", "__interrupt__"]
    paused = server.client.threads.get_state(tid)
    assert paused["next"] == ["run_tools"]
    assert paused["values"]["steps"] == 1 and paused["values"]["answer"] == ""  # one user message: a chat turn
    assert server.client.threads.get(tid)["status"] == "interrupted"
    final = server.client.runs.wait(tid, "agent", input=None, context=ctx)
    assert isinstance(final, dict)
    assert final["answer"] == "17*23 = 391" and final["steps"] == 2
    state = server.client.threads.get_state(tid)
    assert state["next"] == [] and [m["role"] for m in state["values"]["messages"]] == [
        "user", "assistant", "tool", "assistant"]
    history = server.client.threads.get_history(tid, limit=20)
    assert len(history) >= 4  # input, call_model, (resume) run_tools, call_model


def test_nothing_left_loopback(server: Server) -> None:
    """Runs last in the module: every run above is done; the server made no lookup or connection beyond
    loopback, although its environment had a LangSmith key and tracing switched on."""
    time.sleep(0.5)  # let a beacon or tracing flush, if any would happen
    attempts = server.netlog.read_text().splitlines() if server.netlog.exists() else []
    assert attempts == []


@pytest.mark.slow
def test_serve_refuses_a_network_address() -> None:
    proc = cli("serve", "--host", "0.0.0.0", "--port", "2024")
    assert proc.returncode == 1
    assert proc.stderr.strip() == ("error: --host 0.0.0.0 is not a loopback address; the server has no "
                                   "authentication, so binding it to a network needs --allow-remote")


def test_missing_extra_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from paperworks.serve import server as srv

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "langgraph_api" else real(n, *a))
    with pytest.raises(UserError, match=r"needs the LangGraph server \(langgraph_api not installed\): "
                                        r"pip install -e '\.\[ecosystem\]'"):
        srv.require_server()
    assert srv.is_loopback("127.0.0.2") and srv.is_loopback("::1") and not srv.is_loopback("10.0.0.1")


def test_langgraph_json_names_every_factory() -> None:
    from paperworks.serve.graphs import graph_specs

    config = json.loads((ROOT / "langgraph.json").read_text())
    assert config["graphs"] == graph_specs()
    assert set(config["graphs"]) == set(BUILTIN)
    assert config["env"]["LANGGRAPH_NO_VERSION_CHECK"] == "true" and config["env"]["LANGSMITH_API_KEY"] == ""


def test_initial_state_from_the_workflow_input() -> None:
    from paperworks.serve.graphs import build, initial_state, parse_settings

    assert initial_state("agent", "What is 17*23?") == {**TASK, "steps": 0, "status": "running", "answer": ""}
    assert initial_state("spada", {"request": REQUEST}) == {"request": REQUEST, "iteration": 0, "history": []}
    with pytest.raises(UserError, match="field 'request'"):
        initial_state("spada", {"request": ""})
    # the server's own keys in configurable are not run settings; ours are split and validated
    settings = parse_settings("agent", {"thread_id": "t", "langgraph_request_id": "r", "x-request-id": "h",
                                        "user-agent": "sdk", "__after_seconds__": 0, "seed": 7, "max_steps": 5})
    assert settings.context == {"seed": 7} and settings.config.max_steps == 5
    graph = build("agent", {"configurable": {"thread_id": "t1"}})
    assert graph.checkpointer is None and graph.name == "agent"


CLIENT = r"""
import socket, sys, time
from langgraph_sdk import get_sync_client
port, model = int(sys.argv[1]), sys.argv[2]
deadline = time.monotonic() + 90
while True:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("server did not start")
        time.sleep(0.2)
client = get_sync_client(url=f"http://127.0.0.1:{port}")
thread = client.threads.create()
final = client.runs.wait(thread["thread_id"], "agent", input={"messages": [{"role": "user", "content": "17*23?"}]},
                         context={"model": model})
print("ANSWER", final["answer"], final["steps"])
"""


def _can_unshare() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not _can_unshare(), reason="needs `unshare -n` (root) and iproute2")
def test_serves_with_no_network_at_all(tmp_path: Path) -> None:
    """The server starts and answers inside a network namespace with only loopback (no DNS, no route)."""
    model = _write(tmp_path / "agent.json", [CALC, "17*23 = 391"])
    (tmp_path / "client.py").write_text(CLIENT, encoding="utf-8")
    port = _free_port()
    serve = shlex.join([sys.executable, "-m", "paperworks", "serve", "--port", str(port)])
    client = shlex.join([sys.executable, str(tmp_path / "client.py"), str(port), model])
    shell = f"ip link set lo up && {{ {serve} & }} && pid=$! && {client}; rc=$?; kill $pid; wait $pid; exit $rc"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PAPERWORKS_RUNS_DIR": str(tmp_path / "runs"),
           "LANGSMITH_API_KEY": "lsv2_pt_fake"}
    out = subprocess.run(["unshare", "-n", "sh", "-c", shell], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=180)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "ANSWER 17*23 = 391 2" in out.stdout
