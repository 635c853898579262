"""Run directories, records, events and the budget."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from paperworks.core.budget import Budget, Limits, Usage
from paperworks.core.errors import LimitExceeded, UserError, one_line
from paperworks.core.events import EventLog, read_events
from paperworks.core.runs import RunDir, list_runs


def test_create_open_and_list(tmp_path: Path) -> None:
    run = RunDir.create("agent", {"kind": "run", "workflow": "agent"}, root=tmp_path)
    assert run.path.name.endswith(f"_agent_{run.id}") and len(run.id) == 8
    record = run.read_record()
    assert record["status"] == "running" and record["versions"]["python"]
    assert RunDir.open(run.id, root=tmp_path).path == run.path
    assert RunDir.open(str(run.path)).path == run.path
    run.update_record(status="succeeded")
    assert [r["id"] for r in list_runs(root=tmp_path)] == [run.id]
    assert list_runs(root=tmp_path)[0]["status"] == "succeeded"


def test_runs_of_the_same_second_list_newest_first(tmp_path: Path) -> None:
    # Folder names are to the second and end in a random id, so within one second the name order is chance:
    # the listing orders those by the record's creation time in nanoseconds, also across the limit's edge.
    def made(name: str, ns: int | None) -> None:
        (tmp_path / name).mkdir()
        record = {"id": name.rsplit("_", 1)[1], "status": "succeeded", **({"created_ns": ns} if ns else {})}
        (tmp_path / name / "run.json").write_text(json.dumps(record))

    made("20261206-101010_agent_ffffffff", 1_000)  # first of the second, though its name sorts last
    made("20261206-101010_agent_00000000", 3_000)
    made("20261206-101010_agent_88888888", 2_000)
    made("20261206-101009_agent_aaaaaaaa", None)  # an older run, from a version without created_ns
    assert [r["id"] for r in list_runs(root=tmp_path)] == ["00000000", "88888888", "ffffffff", "aaaaaaaa"]
    assert [r["id"] for r in list_runs(root=tmp_path, limit=1)] == ["00000000"]
    assert [r["id"] for r in list_runs(root=tmp_path, limit=2)] == ["00000000", "88888888"]
    assert list_runs(root=tmp_path, limit=0) == []
    later = RunDir.create("agent", {}, root=tmp_path)
    assert isinstance(later.read_record()["created_ns"], int)
    assert list_runs(root=tmp_path, limit=1)[0]["id"] == later.id


def test_bad_references_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no run 'nope'"):
        RunDir.open("nope", root=tmp_path)
    run = RunDir.create("x", {}, root=tmp_path)
    run.record_path.write_text("{broken")
    with pytest.raises(UserError, match="unreadable run record"):
        run.read_record()
    assert list_runs(root=tmp_path)[0]["status"] == "unreadable"


def test_event_log_skips_a_torn_last_line(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "e.jsonl")
    log.emit("a", x=1)
    log.emit("token", text="not on disk")
    with open(tmp_path / "e.jsonl", "a") as fh:
        fh.write('{"t": 1, "type": "b", "x"')  # killed mid-write
    events = read_events(tmp_path / "e.jsonl")
    assert [e["type"] for e in events] == ["a"]


def test_budget_limits() -> None:
    budget = Budget(Limits(tokens=10, cost=0.5), Usage(prompt_tokens=4))
    budget.check()
    budget.record(Usage(prompt_tokens=3, completion_tokens=3, cost=0.1, calls=1))
    with pytest.raises(LimitExceeded) as exc:
        budget.check()
    assert exc.value.kind == "tokens"
    cost = Budget(Limits(cost=0.5))
    cost.record(Usage(cost=0.6))
    assert cost.exceeded() is not None and cost.exceeded().kind == "cost"  # type: ignore[union-attr]
    timed = Budget(Limits(time_s=0.05), elapsed_s=0.04)
    time.sleep(0.02)
    assert timed.exceeded() is not None


def test_one_line() -> None:
    assert one_line(ValueError("a\n  b")) == "ValueError: a b"
    assert one_line(UserError("x" * 400)).endswith("…")
