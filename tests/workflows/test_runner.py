"""The durable runner: a run killed mid-graph resumes without re-running finished nodes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paperworks.core.runs import RunDir
from tests.conftest import ROOT, cli

WF = "tests.fixtures.steps:SPEC"
RUN = [sys.executable, "-m", "paperworks", "run", WF, "-m", "scripted/echo"]


def _counts(folder: Path) -> dict[str, int]:
    return {n: len((folder / f"{n}.count").read_text().splitlines()) if (folder / f"{n}.count").exists() else 0
            for n in ("first", "second", "third")}


def _wait_for(predicate, timeout: float = 60) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("timed out waiting")


@pytest.mark.slow
def test_sigkill_mid_graph_then_resume(tmp_path: Path) -> None:
    markers = tmp_path / "m"
    markers.mkdir()
    (markers / "hang").write_text("second")
    runs = Path(os.environ["PAPERWORKS_RUNS_DIR"])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [*RUN, "-i", json.dumps({"marker_dir": str(markers)})],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(lambda: _counts(markers)["second"] == 1)
        time.sleep(0.3)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    run_dir = next(runs.iterdir())
    assert _counts(markers) == {"first": 1, "second": 1, "third": 0}
    assert RunDir(run_dir).read_record()["status"] == "running"  # killed: nobody could record an end

    (markers / "hang").unlink()
    result = cli("run", "--resume", RunDir(run_dir).id)
    assert result.returncode == 0, result.stderr
    # first finished before the kill: not re-run. second was cut: runs again from its start.
    assert _counts(markers) == {"first": 1, "second": 2, "third": 1}
    record = RunDir(run_dir).read_record()
    assert record["status"] == "succeeded"
    assert record["output"] == {"trail": ["first", "second", "third"]}

    again = cli("run", "--resume", str(run_dir))
    assert again.returncode == 0 and "already finished" in again.stdout
    assert _counts(markers)["third"] == 1


@pytest.mark.slow
def test_sigint_records_cancelled(tmp_path: Path) -> None:
    markers = tmp_path / "m"
    markers.mkdir()
    (markers / "hang").write_text("first")
    runs = Path(os.environ["PAPERWORKS_RUNS_DIR"])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [*RUN, "-i", json.dumps({"marker_dir": str(markers)})],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # as from a terminal: a test worker may ignore SIGINT, and a child inherits an ignored SIGINT
        # (Python then never raises KeyboardInterrupt in it)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    _wait_for(lambda: _counts(markers)["first"] == 1)
    time.sleep(0.3)  # into the node's sleep
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert "Traceback" not in err and "paperworks run --resume" in err
    record = RunDir(next(runs.iterdir())).read_record()
    assert record["status"] == "cancelled"



def test_a_runs_time_limit_cancels_the_model_call_and_records_the_limit(tmp_path: Path) -> None:
    from paperworks.core.budget import Limits
    from paperworks.workflows import runner
    from paperworks.workflows.registry import get_workflow

    script = tmp_path / "slow.json"
    script.write_text(json.dumps({"replies": [{"text": "late", "delay_s": 30}], "repeat_last": True}))
    run = runner.create_run(get_workflow("agent"), "hi", model=f"scripted/{script}", limits=Limits(time_s=0.5))
    start = time.monotonic()
    outcome = runner.run_sync(runner.execute(run, {"messages": [{"role": "user", "content": "hi"}], "steps": 0}))
    assert time.monotonic() - start < 10 and outcome.status == "limit_exceeded"
    record = run.read_record()
    assert record["limit"] == "time" and 0.5 <= record["elapsed_s"] < 10
    assert record["waiting_s"] == 0.0 and record["working_s"] == record["elapsed_s"]
    ends = [json.loads(line) for line in run.events_path.read_text().splitlines()]
    assert [e["kind"] for e in ends if e["type"] == "limit"] == ["time"]


def test_a_run_records_the_weights_behind_an_embedded_model() -> None:
    import pytest

    from paperworks.core.errors import PaperworksError
    from paperworks.workflows import runner
    from paperworks.workflows.registry import get_workflow

    assert runner.create_run(get_workflow("agent"), "hi", model="scripted/echo").read_record()["local_weights"] == {}
    try:
        run = runner.create_run(get_workflow("agent"), "hi", model="local/smollm2-135m-q4_1")
    except PaperworksError as exc:
        pytest.skip(f"no embedded model here: {exc}")
    assert run.read_record()["local_weights"] == {"local/smollm2-135m-q4_1": "SmolLM2-135M-Instruct.Q4_1.gguf"}
