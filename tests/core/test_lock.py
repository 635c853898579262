"""One writer per run directory: the lock names its holder's pid, refuses a second writer, is taken
over from a killed holder, and makes a killed run show as interrupted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paperworks.core.errors import UserError
from paperworks.core.lock import LOCK_FILE, RunLock, is_locked, read_holder
from paperworks.core.runs import RunDir, list_runs, shown_status
from tests.conftest import ROOT

HOLD = "import sys, time; from paperworks.core.lock import RunLock; RunLock(sys.argv[1]).acquire(); " \
       "print('held', flush=True); time.sleep(120)"


def hold_in_child(path: Path) -> subprocess.Popen[str]:
    """A separate process that takes the run's lock and keeps it."""
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    return child


def test_a_second_writer_is_refused_naming_the_holders_pid(tmp_path: Path) -> None:
    child = hold_in_child(tmp_path)
    try:
        with pytest.raises(UserError) as err:
            RunLock(tmp_path).acquire()
        message = str(err.value)
        assert f"in use by process {child.pid}" in message and "\n" not in message
        assert is_locked(tmp_path) and read_holder(tmp_path)["pid"] == child.pid
    finally:
        child.kill()
        child.wait()


def test_a_stale_lock_of_a_killed_process_is_taken_over(tmp_path: Path) -> None:
    child = hold_in_child(tmp_path)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert read_holder(tmp_path)["pid"] == child.pid  # the file still names the dead holder
    assert not is_locked(tmp_path)
    lock = RunLock(tmp_path).acquire()
    try:
        assert lock.took_over is not None and lock.took_over["pid"] == child.pid
        assert read_holder(tmp_path)["pid"] == os.getpid() and is_locked(tmp_path)
    finally:
        lock.release()
    assert not is_locked(tmp_path) and (tmp_path / LOCK_FILE).read_text() == ""


def test_the_lock_is_reentrant_within_a_process(tmp_path: Path) -> None:
    with RunLock(tmp_path):
        with RunLock(tmp_path):
            assert is_locked(tmp_path)
        assert is_locked(tmp_path)  # the inner release keeps the outer hold
    assert not is_locked(tmp_path)


def test_a_killed_run_shows_as_interrupted_and_a_live_one_as_running(tmp_path: Path) -> None:
    run = RunDir.create("agent", {"kind": "run", "workflow": "agent"}, root=tmp_path)
    assert run.read_record()["status"] == "running"
    assert shown_status(run.read_record(), run.path) == "interrupted"  # nobody holds it: killed
    child = hold_in_child(run.path)
    try:
        assert shown_status(run.read_record(), run.path) == "running"
        assert [r["shown_status"] for r in list_runs(tmp_path)] == ["running"]
    finally:
        child.kill()
        child.wait()
    time.sleep(0.05)
    assert [r["shown_status"] for r in list_runs(tmp_path)] == ["interrupted"]
    run.update_record(status="succeeded")
    assert [r["shown_status"] for r in list_runs(tmp_path)] == ["succeeded"]
    assert json.loads(run.record_path.read_text())["status"] == "succeeded"
