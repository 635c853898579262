"""``paperworks eval`` with Inspect's options: one line for each bad value before anything is created,
``--max-samples``/``--concurrency``, ``--display``, ``--log-level``, and ``--resume`` keeping them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from paperworks.core.runs import RunDir
from paperworks.eval import harness
from tests.cli.test_guards import refused
from tests.cli.test_runs_view import run_cli
from tests.conftest import ROOT
from tests.eval.test_harness import make_suite

ROWS = [{"id": f"s{i}", "question": f"say {i}", "answer": i} for i in range(1, 5)]
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
"""Control characters other than newline and tab (escape sequences, carriage returns)."""


@pytest.fixture
def suite(tmp_path: Path) -> str:
    return str(make_suite(tmp_path, ROWS))


@pytest.mark.parametrize(("argv", "expected"), [
    (["--limit", "x"], "--limit must be a number of samples N or a range A-B (e.g. 2-5), got 'x'"),
    (["--limit", "0"], "--limit must be at least 1, got 0"),
    (["--limit", "4-2"], "--limit 4-2: the range ends before it starts"),
    (["--limit", "9-12"], "--limit 9-12: suite 'echoes' has only 4 samples"),
    (["--sample-id", "s1,,s2"], "--sample-id: empty item in 's1,,s2'"),
    (["--sample-id", "s1,nope"], "suite 'echoes' has no sample 'nope'"),
    (["--max-samples", "0"], "--max-samples must be at least 1, got 0"),
    (["--max-samples", "2", "--concurrency", "3"], "--max-samples 2 and --concurrency 3 are the same setting"),
    (["--message-limit", "0"], "--message-limit must be greater than 0, got 0"),
    (["--tags", "a b"], "--tags: 'a b' is not a tag"),
    (["--metadata", "oops"], "--metadata 'oops': expected key=value"),
    (["--display", "fancy"], "--display must be one of full, conversation, rich, plain, none, got 'fancy'"),
    (["--log-level", "chatty"], "--log-level must be one of debug, info, warning, error, got 'chatty'"),
])
def test_bad_values_are_one_line_and_nothing_is_created(capsys: pytest.CaptureFixture[str], suite: str,
                                                         argv: list[str], expected: str) -> None:
    err = refused(capsys, "eval", suite, "-m", "scripted/echo", *argv)
    assert expected in err, err


def test_sample_ids_as_a_comma_list_and_repeated(capsys: pytest.CaptureFixture[str], suite: str) -> None:
    code, out, err = run_cli(capsys, "eval", suite, "-m", "scripted/echo", "--sample-id", "s4,s2",
                             "--sample-id", "s1", "--display", "none")
    assert code == 0, err
    record = json.loads(next(Path(os.environ["PAPERWORKS_RUNS_DIR"]).glob("*/run.json")).read_text())
    assert record["sample_ids"] == ["s1", "s2", "s4"]  # suite order
    assert record["args"]["sample_ids"] == ["s4", "s2", "s1"]


def test_max_samples_is_the_concurrency_setting(capsys: pytest.CaptureFixture[str], suite: str) -> None:
    code, _, err = run_cli(capsys, "eval", suite, "-m", "scripted/echo", "--max-samples", "3", "--limit", "1", "-q")
    assert code == 0, err
    code, _, err = run_cli(capsys, "eval", suite, "-m", "scripted/echo", "--concurrency", "2", "--limit", "1", "-q")
    assert code == 0, err
    runs = sorted(Path(os.environ["PAPERWORKS_RUNS_DIR"]).glob("*/run.json"))
    assert sorted(json.loads(p.read_text())["args"]["concurrency"] for p in runs) == [2, 3]


def test_display_plain_is_a_line_per_sample_and_none_shows_no_progress(capsys: pytest.CaptureFixture[str],
                                                                       suite: str) -> None:
    code, out, err = run_cli(capsys, "eval", suite, "-m", "scripted/echo", "--display", "plain",
                             "--max-samples", "1")
    assert code == 0, err
    lines = [line for line in out.splitlines() if line.startswith("[")]
    assert [line.split()[:2] for line in lines] == [["[1/4]", "s1#1"], ["[2/4]", "s2#1"], ["[3/4]", "s3#1"],
                                                   ["[4/4]", "s4#1"]]
    assert all(" passed · acc " in line for line in lines)
    assert "eval ━" not in out and not CONTROL.search(out)  # no progress bar
    code, out, err = run_cli(capsys, "eval", suite, "-m", "scripted/echo", "--display", "none")
    assert code == 0, err
    assert not any(line.startswith("[") for line in out.splitlines()) and "eval ━" not in out
    assert "numeric/accuracy" in out  # the results are still printed


@pytest.mark.skipif(shutil.which("script") is None, reason="needs script(1) for a terminal")
def test_display_plain_writes_no_control_characters_on_a_terminal(tmp_path: Path, suite: str) -> None:
    """On a real terminal (a pty), rich would colour and redraw; plain must not."""
    command = (f"{sys.executable} -m paperworks eval {suite} -m scripted/echo --display plain "
               f"--log-dir {tmp_path / 'runs'}")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80", "TERM": "xterm-256color"}
    done = subprocess.run(["script", "-qec", command, "/dev/null"], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout.replace("\r\n", "\n")
    assert "[4/4] s" in out and not CONTROL.search(out), repr(out[:500])


def test_conversation_display_prints_each_transcript(capsys: pytest.CaptureFixture[str], suite: str) -> None:
    code, out, err = run_cli(capsys, "eval", suite, "-m", "scripted/echo", "--display", "conversation",
                             "--limit", "2")
    assert code == 0, err
    assert "[1/2]" in out and "[2/2]" in out
    assert out.count("user say ") == 2 and out.count("assistant") >= 2


def test_log_level_info_logs_each_sample_and_warning_does_not(capsys: pytest.CaptureFixture[str],
                                                              suite: str) -> None:
    code, _, err = run_cli(capsys, "eval", suite, "-m", "scripted/echo", "--log-level", "info", "-q")
    assert code == 0, err
    assert len(re.findall(r"^INFO paperworks\.eval: sample s\d#1: succeeded", err, re.M)) == 4, err
    code, _, err = run_cli(capsys, "eval", suite, "-m", "scripted/echo", "-q")
    assert code == 0 and "INFO" not in err, err


def test_resume_keeps_the_options_and_refuses_contradicting_ones(capsys: pytest.CaptureFixture[str],
                                                                 suite: str) -> None:
    run = harness.create_eval(harness.EvalArgs(suite=suite, model="scripted/echo", limit=[2, 3], tags=["a", "b"],
                                               metadata={"k": "v"}, message_limit=4, display="plain",
                                               log_level="info", concurrency=1))
    for argv, flag in ((["--message-limit", "5"], "--message-limit 4"), (["--tags", "c"], "--tags ['a', 'b']"),
                       (["--metadata", "k=w"], "--metadata {'k': 'v'}"), (["--limit", "1-3"], "--limit '2-3'")):
        code, _, err = run_cli(capsys, "eval", "--resume", str(run.path), *argv)
        assert code == 1 and f"was started with {flag}, not" in err, err
    code, out, err = run_cli(capsys, "eval", "--resume", str(run.path), "--limit", "2-3", "--tags", "b,a")
    assert code == 1 and "--tags" in err  # the order of tags is part of what was recorded
    code, out, err = run_cli(capsys, "eval", "--resume", str(run.path), "--max-samples", "2")
    assert code == 0, err
    assert "[1/2] s" in out and "[2/2] s" in out  # the recorded --display plain
    assert "INFO paperworks.eval: sample s2#1" in err  # the recorded --log-level info
    record = RunDir(run.path).read_record()
    assert record["args"]["concurrency"] == 2  # how it runs may change on resume
    assert record["tags"] == ["a", "b"] and record["limits"]["messages"] == 4


def test_run_prints_its_run_dir_once_and_takes_a_log_dir(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    logs = tmp_path / "elsewhere"
    code, out, err = run_cli(capsys, "run", "agent", "-i", "hi", "-m", "scripted/echo", "--log-dir", str(logs))
    assert code == 0, err
    made = [p for p in logs.iterdir() if (p / "run.json").is_file()]
    assert len(made) == 1 and not Path(os.environ["PAPERWORKS_RUNS_DIR"]).exists()
    assert out.count(str(made[0])) == 1 and out.count("run dir:") == 1, out
    run_id = RunDir(made[0]).id
    code, out, err = run_cli(capsys, "run", "--resume", run_id, "--log-dir", str(logs))  # found by id there
    assert code == 0 and "already finished" in out, err
    assert os.environ["PAPERWORKS_RUNS_DIR"] != str(logs)  # --log-dir is for that command only
