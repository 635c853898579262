"""``paperworks serve`` as LangGraph Studio and langgraph-sdk users expect it, with the real langgraph-sdk client
on one loopback server for the module (the fixture of ``test_langgraph_server``):

- every stream mode langgraph-api offers streams; model tokens arrive as several message chunks (messages,
  messages-tuple, events, custom) and the run context reaches every node whatever the mode;
- input, output and context schemas are real JSON schemas, by assistant id and by graph name;
- the server takes the CLI's input shape and refuses a wrong one with the CLI's own one-line error;
- every run is recorded under the runs directory, so ``paperworks runs``, ``view`` and ``export`` read it;
- a busy port is one line and exit 1, and nothing printed links a page that needs the internet.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph_api")
langgraph_sdk = pytest.importorskip("langgraph_sdk")

from paperworks.workflows.registry import BUILTIN  # noqa: E402
from tests.conftest import cli  # noqa: E402
from tests.serve.conftest import Server, _write  # noqa: E402

MODES = ["values", "updates", "messages", "messages-tuple", "events", "debug", "custom"]
ANSWER = "The product of seventeen and twenty-three is 391"
WRITE = {"text": "", "tool_calls": [{"name": "write_file", "arguments": {"path": "note.txt", "content": "391"}}]}


def _run(server: Server, mode: str | list[str], input: Any, context: dict[str, Any],
         thread_id: str | None = None) -> tuple[str, list[tuple[str, Any]]]:
    tid = thread_id or server.client.threads.create()["thread_id"]
    parts = [(p.event, p.data) for p in server.client.runs.stream(tid, "agent", input=input, context=context,
                                                                  stream_mode=mode)]
    return tid, parts


def _run_dirs(server: Server) -> list[Path]:
    runs = server.root / "runs"
    return [p for p in runs.iterdir() if (p / "run.json").is_file()] if runs.is_dir() else []


def _record(server: Server, thread_id: str) -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    """The run directory the server recorded for the thread's last run."""
    found = []
    for path in _run_dirs(server):
        record = json.loads((path / "run.json").read_text())
        if (record.get("served") or {}).get("thread_id") == thread_id:
            found.append((path, record))
    assert found, f"no run recorded for thread {thread_id}"
    def started(pr: tuple[Path, dict[str, Any]]) -> tuple[float, str]:
        # run folder names and created_at are to the second: a resumed run can start in the same second as
        # the interrupted one, so order by the first event's time (sub-second) instead
        first = (pr[0] / "events.jsonl").read_text().split("\n", 1)[0]
        return (float(json.loads(first)["t"]) if first.strip() else 0.0, pr[0].name)

    path, record = max(found, key=started)
    events = [json.loads(line) for line in (path / "events.jsonl").read_text().splitlines()]
    return path, record, events


def _chunks(mode: str, parts: list[tuple[str, Any]]) -> list[str]:
    """The model's text pieces as the mode carries them, in order."""
    if mode == "messages-tuple":
        return [d[0]["content"] for e, d in parts if e == "messages" and d[0].get("type") == "AIMessageChunk"]
    if mode == "messages":
        pieces, seen = [], ""  # messages/partial carries the message so far: the pieces are its growth
        for e, d in parts:
            if e == "messages/partial":
                text = d[0]["content"]
                if text.startswith(seen) and text != seen:
                    pieces.append(text[len(seen):])
                seen = text
            elif e == "messages/metadata":
                seen = ""
        return pieces
    if mode == "events":
        return [d["data"]["chunk"]["content"] for e, d in parts
                if e == "events" and d["event"] == "on_chat_model_stream" and d["data"]["chunk"]["content"]]
    if mode == "custom":
        return [d["text"] for e, d in parts if e == "custom" and d.get("type") == "token"]
    return []


@pytest.fixture(scope="module")
def script(server: Server) -> str:
    return _write(server.root / "write_then_answer.json", [WRITE, ANSWER])


@pytest.mark.parametrize("mode", MODES)
def test_every_stream_mode_streams_and_carries_the_context(server: Server, script: str, mode: str,
                                                           tmp_path: Path) -> None:
    art = tmp_path / f"art-{mode}"
    tid, parts = _run(server, mode, {"task": "What is 17*23? Note it."},
                      {"model": script, "seed": 41, "artifact_dir": str(art), "max_steps": 3})
    events = [e for e, _ in parts]
    assert "error" not in events, parts
    assert events[0] == "metadata"
    # the context reached every node: the model (call_model), the artifact folder (run_tools), the seed
    assert (art / "note.txt").read_text() == "391"
    state = server.client.threads.get_state(tid)["values"]
    assert state["answer"] == ANSWER and state["status"] == "done" and state["steps"] == 2
    path, record, log = _record(server, tid)
    prompts = [json.loads((path / e["prompt"]).read_text()) for e in log if e["type"] == "model_call"]
    assert [p["settings"]["seed"] for p in prompts] == [41, 41]
    assert record["status"] == "succeeded" and record["seed"] == 41
    if mode in ("values", "updates", "debug"):
        assert mode in events
        return
    pieces = _chunks(mode, parts)
    assert len(pieces) >= 5, (mode, pieces)  # several chunks, one per word here
    assert "".join(pieces) == ANSWER
    if mode == "messages-tuple":
        ids = {d[0]["id"] for e, d in parts if e == "messages" and d[0]["content"]}
        assert len(ids) == 1  # one message, streamed
        meta = next(d[1] for e, d in parts if e == "messages" and d[0]["content"])
        assert meta["langgraph_node"] == "call_model" and meta["ls_model_name"] == script
        tool_turn = [d[0] for e, d in parts if e == "messages" and d[0].get("tool_calls")]
        assert tool_turn and tool_turn[0]["tool_calls"][0]["name"] == "write_file"
    if mode == "events":
        kinds = [d["event"] for e, d in parts if e == "events"]
        first, end = kinds.index("on_chat_model_stream"), len(kinds) - 1 - kinds[::-1].index("on_chat_model_end")
        assert kinds.count("on_chat_model_start") == 2 and first < end  # the pieces come before the end
    if mode == "custom":
        kinds = [d["type"] for e, d in parts if e == "custom"]
        assert kinds.count("model_call") == 2 and "tool_call" in kinds
        assert kinds.index("token") < len(kinds) - 1 - kinds[::-1].index("model_call")


def test_all_modes_together(server: Server, script: str) -> None:
    tid, parts = _run(server, MODES, "What is 17*23?", {"model": script})
    events = {e for e, _ in parts}
    assert {"values", "updates", "messages", "events", "debug", "custom"} <= events, events
    assert "error" not in events
    assert server.client.threads.get_state(tid)["values"]["answer"] == ANSWER


def test_tokens_reach_the_callbacks_while_the_model_generates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each piece is handed to the node's callbacks before the model produces the next one."""
    from langchain_core.callbacks import BaseCallbackHandler
    from langgraph.graph import START, StateGraph

    from paperworks.core.events import EventLog, current_events, emit
    from paperworks.models.types import ModelResponse
    from paperworks.serve.streaming import CallbackModel, forward_event

    timeline: list[tuple[str, str]] = []

    class Slow:
        name = "fake/slow"

        async def generate(self, messages: Any, tools: Any = None, *, stream: bool = False, **config: Any) -> Any:
            for word in ("one ", "two ", "three"):
                timeline.append(("made", word))
                emit("token", model=self.name, text=word)
                await asyncio.sleep(0.02)
            return ModelResponse(text="one two three")

    class Seen(BaseCallbackHandler):
        def on_llm_new_token(self, token: str, **kw: Any) -> None:
            if token:
                timeline.append(("seen", token))

    async def node(state: dict[str, Any]) -> dict[str, Any]:
        reply = await CallbackModel(Slow()).generate([{"role": "user", "content": "count"}], stream=True)
        return {"x": reply.text}

    graph = StateGraph(dict).add_node("n", node).add_edge(START, "n").compile()

    async def main() -> None:
        token = current_events.set(EventLog(None, [forward_event]))
        try:
            await graph.ainvoke({"x": ""}, {"callbacks": [Seen()]})
        finally:
            current_events.reset(token)

    asyncio.run(main())
    assert timeline == [("made", "one "), ("seen", "one "), ("made", "two "), ("seen", "two "),
                        ("made", "three"), ("seen", "three")]


def test_events_mode_with_a_workflow_setting_in_the_context(server: Server) -> None:
    """The reported failure: events mode left the runtime context None ('NoneType' has no attribute 'seed')."""
    loop = server.models["loop"]
    tid, parts = _run(server, "events", {"task": "17*23?"}, {"model": loop, "max_steps": 2, "seed": 3})
    assert "error" not in [e for e, _ in parts], parts
    values = server.client.threads.get_state(tid)["values"]
    assert values["status"] == "step_limit" and values["steps"] == 2
    _, record, _ = _record(server, tid)
    assert record["status"] == "step_limit" and "after 2 steps" in record["error"]


# -- schemas -------------------------------------------------------------------------------------------------


def test_schemas_are_json_schemas_by_id_and_by_name(server: Server) -> None:
    import jsonschema

    assistants = {a["graph_id"]: a["assistant_id"] for a in server.client.assistants.search(limit=50)}
    assert sorted(assistants) == sorted(BUILTIN)
    for graph, assistant_id in assistants.items():
        by_id = server.client.assistants.get_schemas(assistant_id)
        by_name = server.client.assistants.get_schemas(graph)
        assert by_id == by_name, graph
        for key in ("input_schema", "output_schema", "context_schema"):
            schema = by_id[key]
            assert isinstance(schema, dict) and schema["type"] == "object" and schema["properties"], (graph, key)
            jsonschema.Draft202012Validator.check_schema(schema)
        assert server.client.assistants.get(graph)["assistant_id"] == assistant_id
    agent = server.client.assistants.get_schemas("agent")
    ctx = agent["context_schema"]["properties"]
    assert {"model", "seed", "generation", "cache", "max_retries", "timeout_s", "artifact_dir"} <= set(ctx)
    assert {"stream", "run_dir"}.isdisjoint(ctx)  # the server sets those
    assert ctx["max_steps"] == {"default": 8, "description": "Model turns per task before stopping.",
                                "maximum": 200, "minimum": 1, "title": "Max Steps", "type": "integer"}
    assert ctx["tools"]["default"] == ["calculate", "write_file", "read_file", "list_files", "list_workflows"]
    assert ctx["tool_choice"]["enum"] == ["auto", "first", "none"] and ctx["tool_choice"]["default"] == "auto"
    assert ctx["system"]["default"] is None and ctx["system"]["description"]
    assert ctx["seed"] == {"title": "Seed", "type": "integer", "default": 0,
                           "description": "Seed of the run (passed to sampling where the model supports it)."}
    assert ctx["model"]["default"] == "local/smollm2-135m" and ctx["model"]["type"] == "string"
    inp = agent["input_schema"]
    assert list(inp["properties"])[0] == "task" and inp["properties"]["task"]["minLength"] == 1
    assert "messages" in inp["properties"]  # a state update is taken too
    out = agent["output_schema"]["properties"]
    assert out["answer"] == {"type": "string"} and out["steps"] == {"type": "integer"}
    assert out["messages"]["type"] == "array"
    spada = server.client.assistants.get_schemas("spada")["context_schema"]["properties"]
    assert spada["max_iterations"]["default"] >= 1 and "renders" in spada
    jsonschema.validate({"task": "What is 17*23?"}, inp)


def test_a_name_that_is_no_graph_still_needs_a_uuid(server: Server) -> None:
    with pytest.raises(langgraph_sdk.errors.UnprocessableEntityError):
        server.client.assistants.get_schemas("nosuchgraph")


def test_assistant_path_rewrite() -> None:
    from uuid import UUID, uuid5

    from paperworks.serve.app import assistant_path

    graphs = frozenset({"agent"})
    agent = str(uuid5(UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8"), "agent"))
    assert assistant_path("/assistants/agent/schemas", graphs) == f"/assistants/{agent}/schemas"
    assert assistant_path("/assistants/agent", graphs) == f"/assistants/{agent}"
    assert assistant_path("/assistants/search", graphs) == "/assistants/search"
    assert assistant_path("/threads/agent/state", graphs) == "/threads/agent/state"


# -- input ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("inp", [{"task": "What is 17*23?"}, "What is 17*23?",
                                 {"messages": [{"type": "human", "content": "What is 17*23?"}]}])
def test_the_cli_input_shape_is_taken(server: Server, inp: Any) -> None:
    tid = server.client.threads.create()["thread_id"]
    final = server.client.runs.wait(tid, "agent", input=inp, context={"model": server.models["agent"]})
    assert isinstance(final, dict) and final["answer"] == "17*23 = 391", final
    assert final["messages"][0] == {"role": "user", "content": "What is 17*23?"}
    _, record, _ = _record(server, tid)
    assert record["input"] == {"task": "What is 17*23?"}


@pytest.mark.parametrize("inp", [{"question": "What is 17*23?"}, {"task": "x", "messages": []}, {}])
@pytest.mark.parametrize("mode", ["values", "events"])
def test_a_wrong_input_shape_fails_with_the_cli_error(server: Server, inp: Any, mode: str, tmp_path: Path) -> None:
    proc = cli("run", "agent", "-i", json.dumps(inp), "-m", "scripted/echo",
               env={"PAPERWORKS_RUNS_DIR": str(tmp_path)})
    assert proc.returncode == 1 and proc.stderr.startswith("error: ")
    expected = proc.stderr.strip().removeprefix("error: ")
    tid, parts = _run(server, mode, inp, {"model": server.models["agent"]})
    errors = [d for e, d in parts if e == "error"]
    assert errors == [{"error": "UserError", "message": expected}], parts
    assert server.client.threads.get(tid)["status"] == "error"
    assert not [p for p in _run_dirs(server) if tid in (p / "run.json").read_text()]  # nothing recorded
    assert f"paperworks: agent run refused: {expected} (thread {tid})" in (server.root / "server.log").read_text()


def test_graph_input_shapes() -> None:
    from paperworks.core.errors import UserError
    from paperworks.serve.inputs import graph_input

    fresh = {"messages": [{"role": "user", "content": "hi"}], "steps": 0, "status": "running", "answer": ""}
    assert graph_input("agent", {"task": "hi"})[0] == fresh
    assert graph_input("agent", "hi")[0] == fresh
    assert graph_input("agent", {"messages": [{"type": "human", "content": "hi"}]})[0] == fresh
    two = [{"role": "user", "content": "a"}, {"type": "ai", "content": "b", "tool_calls": [
        {"name": "calculate", "args": {"expression": "1"}, "id": "c1"}]}]
    update, parsed = graph_input("agent", {"messages": two})
    assert parsed is None and update["messages"][1] == {"role": "assistant", "content": "b", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "calculate", "arguments": '{"expression": "1"}'}}]}
    assert graph_input("agent", {"steps": 3}) == ({"steps": 3}, None)  # a state update, as LangGraph takes it
    assert graph_input("agent", None) == (None, None)
    spada, parsed = graph_input("spada", {"request": "a plate"})
    assert spada == {"request": "a plate", "iteration": 0, "history": []} and parsed.request == "a plate"
    with pytest.raises(UserError, match=r"^input: field 'request': Field required \(workflow 'spada'\)$"):
        graph_input("spada", {"requst": "a plate"})


def test_a_second_chat_turn_gets_a_fresh_step_budget(server: Server, tmp_path: Path) -> None:
    model = _write(tmp_path / "two.json", ["first answer", {"text": "", "tool_calls": [
        {"name": "calculate", "arguments": {"expression": "2+2"}}]}, "second answer: 4"])
    tid = server.client.threads.create()["thread_id"]
    server.client.runs.wait(tid, "agent", input="first", context={"model": model})
    final = server.client.runs.wait(tid, "agent", input={"messages": [{"role": "user", "content": "2+2?"}]},
                                    context={"model": model})
    assert isinstance(final, dict) and final["answer"] == "second answer: 4" and final["steps"] == 2


# -- recording -----------------------------------------------------------------------------------------------


def test_a_served_run_is_recorded_like_a_cli_run(server: Server, script: str, tmp_path: Path) -> None:
    tid, parts = _run(server, "messages-tuple", {"task": "What is 17*23? Note it."},
                      {"model": script, "artifact_dir": str(tmp_path / "a")})
    path, record, events = _record(server, tid)
    assert record["kind"] == "run" and record["workflow"] == "agent" and record["status"] == "succeeded"
    assert record["model"] == script and record["input"] == {"task": "What is 17*23? Note it."}
    assert record["config"]["max_steps"] == 8 and record["error"] is None and record["finished_at"]
    assert record["output"] == {"answer": ANSWER, "status": "done", "steps": 2}
    assert record["usage"]["calls"] == 2 and record["usage"]["total_tokens"] > 0
    assert record["served"]["thread_id"] == tid and record["served"]["graph_id"] == "agent"
    assert record["served"]["run_id"] == next(d["run_id"] for e, d in parts if e == "metadata")
    assert [e["type"] for e in events] == [
        "run_start", "node_start", "model_call", "node_end", "node_start", "tool_call", "node_end",
        "node_start", "model_call", "node_end", "run_end"]
    assert "token" not in {e["type"] for e in events}  # as the CLI: tokens are shown, not written
    env = {"PAPERWORKS_RUNS_DIR": str(server.root / "runs")}
    listed = cli("runs", "--limit", "200", env=env)
    assert listed.returncode == 0 and record["id"] in listed.stdout
    line = next(ln for ln in listed.stdout.splitlines() if ln.startswith(record["id"]))
    assert "agent" in line and "succeeded" in line
    viewed = cli("view", record["id"], env=env)
    assert viewed.returncode == 0, viewed.stderr
    assert "What is 17*23? Note it." in viewed.stdout and "write_file" in viewed.stdout and ANSWER in viewed.stdout
    pytest.importorskip("inspect_ai")
    out = tmp_path / "served.json"
    exported = cli("export", record["id"], "--out", str(out), env=env)
    assert exported.returncode == 0, exported.stderr
    log = json.loads(out.read_text())
    assert log["status"] == "success" and log["eval"]["task"] == "paperworks/agent"
    sample = log["samples"][0]
    assert any(ANSWER in json.dumps(m) for m in sample["messages"])
    resumed = cli("run", "--resume", record["id"], env=env)
    assert resumed.returncode == 1
    assert resumed.stderr.strip() == (f"error: {path} was run by paperworks serve; continue it on the server "
                                      f"(thread {tid})")
    log_text = (server.root / "server.log").read_text()
    assert f"paperworks: agent run {record['id']} succeeded (thread {tid}) · {path}" in log_text


def test_failed_and_interrupted_runs_are_recorded(server: Server, tmp_path: Path) -> None:
    short = _write(tmp_path / "short.json", [{"text": "", "tool_calls": [
        {"name": "calculate", "arguments": {"expression": "1+1"}}]}])  # no second reply: the run fails
    tid, parts = _run(server, "values", "1+1?", {"model": short})
    assert [d["error"] for e, d in parts if e == "error"]
    _, record, events = _record(server, tid)
    assert record["status"] == "failed" and "has 1 replies; reply 2 was asked" in record["error"]
    assert "\n" not in record["error"] and events[-1]["type"] == "run_end"
    tid = server.client.threads.create()["thread_id"]
    server.client.runs.wait(tid, "agent", input="What is 17*23?", context={"model": server.models["agent"]},
                            interrupt_before=["run_tools"])
    _, record, _ = _record(server, tid)
    assert record["status"] == "interrupted"
    server.client.runs.wait(tid, "agent", input=None, context={"model": server.models["agent"]})
    _, record, _ = _record(server, tid)
    assert record["status"] == "succeeded" and record["input"] is None and record["output"]["answer"] == "17*23 = 391"


def test_a_cancelled_run_is_recorded(server: Server, tmp_path: Path) -> None:
    slow = _write(tmp_path / "slow.json", [{"text": "late", "delay_s": 30}])
    tid = server.client.threads.create()["thread_id"]
    run = server.client.runs.create(tid, "agent", input="wait", context={"model": slow})
    deadline = time.monotonic() + 30
    while not any(tid in (p / "run.json").read_text() for p in _run_dirs(server)):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    server.client.runs.cancel(tid, run["run_id"], wait=True)
    deadline = time.monotonic() + 30
    while _record(server, tid)[1]["status"] == "running":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    _, record, events = _record(server, tid)
    assert record["status"] == "cancelled" and events[-1]["type"] == "run_end"


def test_context_keys_the_server_sets_are_refused(server: Server) -> None:
    _, parts = _run(server, "values", "x", {"model": server.models["agent"], "run_dir": "/tmp/elsewhere"})
    errors = [d for e, d in parts if e == "error"]
    assert len(errors) == 1 and errors[0]["message"].startswith("context 'run_dir' is set by the server")


# -- start-up ------------------------------------------------------------------------------------------------


def test_busy_port_is_one_line_and_exit_1(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = cli("serve", "--port", str(port), cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr == (f"error: port {port} on 127.0.0.1 is already in use (another server?); stop it or "
                           "choose another port with --port\n")
    assert not (tmp_path / ".langgraph_api").exists()


def test_nothing_printed_links_a_page_offline_users_cannot_reach(server: Server) -> None:
    text = (server.root / "server.log").read_text()
    lines = [ln for ln in text.splitlines() if ln.startswith("paperworks: serving ")]
    assert len(lines) == 1 and f"at {server.url} " in lines[0]
    assert "https://" not in text and "smith.langchain.com" not in text and "Welcome to" not in text


@pytest.mark.slow
def test_embedded_model_streams_several_chunks(server: Server) -> None:
    """The embedded llama.cpp model through the server: its reply arrives as several message chunks, the
    first long before the run ends."""
    tid = server.client.threads.create()["thread_id"]
    start, arrivals = time.monotonic(), []
    for part in server.client.runs.stream(tid, "agent", input="Say hello in five words.", stream_mode="messages-tuple",
                                          context={"model": "local/smollm2-135m", "tools": [],
                                                   "generation": {"max_tokens": 16}}):
        if part.event == "messages" and part.data[0]["content"]:
            arrivals.append((time.monotonic() - start, part.data[0]["content"]))
    ended = time.monotonic() - start
    answer = server.client.threads.get_state(tid)["values"]["answer"]
    assert len(arrivals) >= 3, arrivals
    assert "".join(t for _, t in arrivals).strip() == answer
    assert arrivals[0][0] < arrivals[-1][0] <= ended
