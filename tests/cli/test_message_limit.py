"""``--message-limit`` on ``paperworks run`` and ``chat``, as on ``eval``: the same check (one line, nothing
created), and a model that keeps calling tools is stopped at the limit: the call past it is not made and the
run ends ``limit_exceeded (messages)`` with the reason on stderr."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from paperworks.core.events import read_events
from tests.cli.test_guards import refused
from tests.cli.test_runs_view import run_cli, scripted
from tests.conftest import cli

LOOP = {"replies": [{"text": "", "tool_calls": [{"name": "calculate", "arguments": {"expression": "1+1"}}]}],
        "repeat_last": True}
"""A model that calls the calculator on every turn and never answers."""


def _loop(tmp: Path) -> str:
    path = tmp / "loop.json"
    path.write_text(json.dumps(LOOP))
    return f"scripted/{path}"


def _only_run() -> Path:
    (run,) = Path(os.environ["PAPERWORKS_RUNS_DIR"]).iterdir()
    return run


def _model_calls(run: Path) -> int:
    return sum(e.get("type") == "model_call" for e in read_events(run / "events.jsonl"))


@pytest.mark.parametrize("command", [["run", "agent", "-i", "hi"], ["chat"]])
@pytest.mark.parametrize(("value", "expected"), [
    ("0", "error: --message-limit must be greater than 0, got 0"),
    ("-2", "error: --message-limit must be greater than 0, got -2"),
])
def test_a_bad_message_limit_is_one_line_and_creates_nothing(capsys: pytest.CaptureFixture[str], command: list[str],
                                                             value: str, expected: str) -> None:
    assert refused(capsys, *command, "-m", "scripted/echo", "--message-limit", value) == expected


@pytest.mark.slow
def test_run_stops_a_tool_loop_at_the_message_limit(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(capsys, "run", "agent", "-i", "loop", "-m", _loop(tmp_path), "-c", "max_steps=10",
                             "--message-limit", "3", "--no-stream")
    assert code == 1
    assert "limit_exceeded (messages)" in out
    assert err.strip() == "error: message limit of 3 reached (3 model messages; the next call was not made)"
    run = _only_run()
    record = json.loads((run / "run.json").read_text())
    assert record["status"] == "limit_exceeded" and record["limit"] == "messages"
    assert record["limits"]["messages"] == 3
    assert _model_calls(run) == 3  # the 4th call was refused before it reached the model
    assert record["usage"]["calls"] == 3


def test_run_within_the_message_limit_succeeds(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The tool call and the answer are 2 model messages: a limit of 2 lets the run finish."""
    code, out, err = run_cli(capsys, "run", "agent", "-i", "What is 17*23?", "-m", scripted(tmp_path),
                             "--message-limit", "2", "--no-stream")
    assert code == 0, err
    assert "answer: The answer is 391." in out and "succeeded" in out
    assert _model_calls(_only_run()) == 2


@pytest.mark.slow
def test_chat_stops_a_tool_loop_at_the_message_limit(tmp_path: Path) -> None:
    done = cli("chat", "-m", _loop(tmp_path), "--message-limit", "2", input="loop\nnever read\n")
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == ("limit_exceeded: message limit of 2 reached (2 model messages; the next call "
                                   "was not made)")
    assert "conversation saved; continue with: paperworks chat --resume" in done.stdout
    run = _only_run()
    record = json.loads((run / "run.json").read_text())
    assert record["kind"] == "chat" and record["status"] == "limit_exceeded" and record["limit"] == "messages"
    assert _model_calls(run) == 2
    events = read_events(run / "events.jsonl")
    assert [e.get("type") for e in events].count("run_start") == 1  # the chat stopped: "never read" was no turn
    assert [e["kind"] for e in events if e.get("type") == "limit"] == ["messages"]


@pytest.mark.slow
def test_chat_message_limit_counts_the_whole_conversation(tmp_path: Path) -> None:
    """Turn 1 takes 2 model messages (the tool call, the answer), turn 2 would take one more; with a limit of 2
    turn 2's call is refused: the limit holds for the conversation, as token and cost limits do, not per turn."""
    done = cli("chat", "-m", scripted(tmp_path), "--message-limit", "2", input="What is 17*23?\nAnd again?\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("assistant> The answer is 391.") == 1
    assert "message limit of 2 reached" in done.stderr
    assert _model_calls(_only_run()) == 2


@pytest.mark.slow
def test_run_resume_keeps_the_message_count(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A run stopped by its message limit and resumed makes no further model call: the count is in run.json."""
    code, _, _ = run_cli(capsys, "run", "agent", "-i", "loop", "-m", _loop(tmp_path), "-c", "max_steps=10",
                         "--message-limit", "2", "--no-stream")
    assert code == 1
    run = _only_run()
    assert json.loads((run / "run.json").read_text())["messages"] == 2
    code, _, err = run_cli(capsys, "run", "--resume", str(run), "--no-stream")
    assert code == 1 and "message limit of 2 reached" in err
    assert _model_calls(run) == 2
