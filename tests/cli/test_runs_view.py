"""``paperworks runs`` (interrupted runs, eval suite and score), ``paperworks view`` transcripts read back
from JSON events, ``-q``, and where suite names resolve."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from paperworks.cli.app import _main
from paperworks.core.events import read_events
from paperworks.core.runs import RunDir
from paperworks.eval import harness
from paperworks.eval.suite import find_suite
from paperworks.eval.suite_paths import package_suites_dir
from tests.conftest import ROOT
from tests.eval.test_harness import make_suite

TOOL_THEN_ANSWER = {"replies": [
    {"text": "let me compute", "tool_calls": [{"name": "calculate", "arguments": {"expression": "17*23"}}]},
    "The answer is 391."], "repeat_last": True}


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        _main(list(argv))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def scripted(tmp: Path) -> str:
    path = tmp / "tool.json"
    path.write_text(json.dumps(TOOL_THEN_ANSWER))
    return f"scripted/{path}"


def finished_eval(tmp: Path) -> RunDir:
    rows = [{"id": "q1", "question": "What is 17*23?", "answer": 391}]
    run = harness.create_eval(harness.EvalArgs(suite=str(make_suite(tmp, rows)), model=scripted(tmp)))
    asyncio.run(harness.run_eval(run))
    return run


def test_runs_shows_a_killed_run_as_interrupted_and_evals_with_suite_and_score(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    finished_eval(tmp_path)
    killed = harness.create_eval(harness.EvalArgs(suite=str(make_suite(tmp_path / "k")), model="scripted/echo"))
    code, out, _ = run_cli(capsys, "runs")  # not a terminal: tab-separated, a header line first
    assert code == 0
    assert out.splitlines()[0].split("\t")[:6] == ["id", "kind", "task", "model", "status", "score"]
    rows = {line.split("\t")[0]: line for line in out.splitlines()[1:]}
    assert "interrupted" in rows[killed.id] and "running" not in rows[killed.id]  # nobody holds its lock
    assert "0/12 samples done" in rows[killed.id]
    done = next(line for key, line in rows.items() if key != killed.id)
    assert "echoes (agent)" in done and "numeric 1.000" in done and "succeeded" in done


def test_events_hold_json_messages_and_view_shows_the_transcript(capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    run = finished_eval(tmp_path)
    events = read_events(run.path / "events.jsonl")
    ends = [e for e in events if e["type"] == "node_end" and e["node"] == "call_model"]
    message = ends[0]["update"]["messages"][0]
    assert isinstance(message, dict) and message["role"] == "assistant"  # JSON, not a Python repr string
    assert json.loads(message["tool_calls"][0]["function"]["arguments"]) == {"expression": "17*23"}
    calls = [e for e in events if e["type"] == "model_call"]
    prompt = json.loads((run.path / calls[1]["prompt"]).read_text())
    assert [m["role"] for m in prompt["messages"]] == ["system", "user", "assistant", "tool"]
    assert prompt["tools"][0]["function"]["name"] == "calculate"
    code, out, _ = run_cli(capsys, "view", str(run.path))
    assert code == 0
    lines = [line.strip() for line in out.splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith("q1#1 · succeeded"))
    transcript = lines[start + 1:]
    assert transcript[0].startswith("system ") and transcript[1] == "user What is 17*23?"
    assert transcript[2].startswith("assistant (") and transcript[2].endswith("let me compute")
    assert transcript[3] == '→ calculate({"expression": "17*23"})'
    assert transcript[4] == 'tool calculate({"expression": "17*23"}) ok: 391'
    assert transcript[5].startswith("assistant (") and transcript[5].endswith("The answer is 391.")
    assert not any('"type": "model_call"' in line for line in lines)  # not raw event lines
    from paperworks.eval.view import _Images, _sample_data, load_run

    loaded = load_run(run.path)
    data = _sample_data(loaded.samples[0], loaded.events["q1#1"], _Images(run.path, run.path))
    assert data["transcript"][1] == ["user", "What is 17*23?"]
    assert data["transcript"][2][1] == 'let me compute\n→ calculate({"expression": "17*23"})'
    assert "s.transcript" in (run.path / "report.html").read_text()
    code, quiet, _ = run_cli(capsys, "view", str(run.path), "-q")
    assert code == 0 and "let me compute" not in quiet and "numeric/accuracy" in quiet


def test_quiet_prints_only_the_result(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(capsys, "run", "agent", "-i", "What is 17*23?", "-m", scripted(tmp_path), "-q")
    assert code == 0, err
    assert out.strip() == "The answer is 391." and err == ""
    code, out, err = run_cli(capsys, "eval", str(make_suite(tmp_path / "e", [{"id": "a", "question": "say 2",
                                                                            "answer": 2}])), "-m",
                             "scripted/echo", "-q")
    assert code == 0, err
    assert "paperworks view " in out and "numeric/accuracy" in out and "resuming" not in out and "eval ━" not in out


def test_suite_names_resolve_in_cwd_evals_then_the_package_then_the_env(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    assert package_suites_dir() == (ROOT / "evals").resolve()  # the suites inside the package
    extra = tmp_path / "extra"
    make_suite(extra, name="arith")  # shadowed: the package's arith comes first
    make_suite(extra, name="only_env")
    monkeypatch.setenv("PAPERWORKS_EVALS_DIR", str(extra))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert find_suite("arith") == (ROOT / "evals" / "arith").resolve()
    assert find_suite("only_env") == (extra / "only_env").resolve()
    make_suite(work / "evals", name="arith")  # ./evals wins over both
    assert find_suite("arith") == (work / "evals" / "arith").resolve()
    assert os.environ["PAPERWORKS_EVALS_DIR"] == str(extra)


def test_an_agent_suite_without_tools_gets_the_default_tools(tmp_path: Path) -> None:
    folder = tmp_path / "notools"
    folder.mkdir()
    (folder / "suite.yaml").write_text("name: notools\nworkflow: agent\ndata: data.jsonl\ninput: {task: '{q}'}\n"
                                       "target: a\nscorers: [numeric]\nconfig: {max_steps: 3}\n")
    (folder / "data.jsonl").write_text('{"q": "What is 17*23?", "a": 391}\n')
    run = harness.create_eval(harness.EvalArgs(suite=str(folder), model=scripted(tmp_path)))
    results = asyncio.run(harness.run_eval(run))
    assert results.errors == {} and results.metrics["numeric/accuracy"]["value"] == 1.0
    call = next(e for e in read_events(run.path / "events.jsonl") if e["type"] == "model_call")
    tools = [t["function"]["name"] for t in json.loads((run.path / call["prompt"]).read_text())["tools"]]
    assert tools == ["calculate", "write_file", "read_file", "list_files", "list_workflows"]
