"""Per-sample time limits: a slow model call is cancelled mid-call, the limit that hit is recorded with
wall, working and waiting time, waiting for the model does not count as working, and the process
exits as soon as the results are written."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from paperworks.core.budget import Budget, Limits
from paperworks.eval import harness
from paperworks.eval.samples_log import SamplesLog
from paperworks.models import gateway
from tests.conftest import cli
from tests.eval.test_harness import make_suite, script

ROWS = [{"id": f"q{i}", "question": f"please say {i}", "answer": i} for i in range(1, 3)]


def _run(**kw):  # type: ignore[no-untyped-def]
    """Run an eval; also return the tasks still alive in the loop when it ended."""
    async def go():  # type: ignore[no-untyped-def]
        run = harness.create_eval(harness.EvalArgs(**kw))
        results = await harness.run_eval(run)
        left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        return run, results, left

    return asyncio.run(go())


def test_a_time_limit_cancels_the_model_call_mid_call(tmp_path: Path) -> None:
    slow = script(tmp_path, {"text": "1", "delay_s": 30})
    start = time.monotonic()
    run, results, left = _run(suite=str(make_suite(tmp_path, ROWS)), model=slow, time_limit=0.5, concurrency=2)
    assert time.monotonic() - start < 10  # not the 30 s the call would take
    assert left == []  # the model call's task was cancelled, not left running
    records = SamplesLog(run.path / "samples.jsonl").read()
    assert {r.status for r in records} == {"limit_exceeded"} and {r.limit for r in records} == {"time"}
    for r in records:
        assert 0.5 <= r.time_s < 5 and r.working_s is not None and r.waiting_s == 0.0
    assert results.errors == {"limit_exceeded": 2}


@pytest.fixture
def one_slot(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scripted models serve one request at a time, so a second sample queues for the model."""
    real = gateway.default_config

    def config(name: str) -> gateway.GatewayConfig:
        cfg = real(name)
        cfg.concurrency = 1
        return cfg

    monkeypatch.setattr(gateway, "default_config", config)
    gateway._configured.clear()
    yield
    gateway._configured.clear()


@pytest.mark.slow
def test_waiting_for_the_model_is_not_working_time(tmp_path: Path, one_slot: None) -> None:
    model = script(tmp_path, {"text": "1", "delay_s": 1.0})
    run, results, _ = _run(suite=str(make_suite(tmp_path, ROWS)), model=model, working_limit=1.6, concurrency=2)
    assert results.metrics["waiting_s/mean"]["value"] == pytest.approx(0.5, abs=0.2)
    assert results.metrics["working_s/mean"]["value"] == pytest.approx(1.0, abs=0.3)
    records = sorted(SamplesLog(run.path / "samples.jsonl").read(), key=lambda r: r.waiting_s or 0)
    assert [r.status for r in records] == ["succeeded", "succeeded"]  # 2 s wall, but 1 s of it queued
    first, second = records
    assert first.waiting_s == pytest.approx(0.0, abs=0.05)
    assert second.waiting_s == pytest.approx(1.0, abs=0.4) and second.time_s >= 1.8
    assert second.working_s == pytest.approx(second.time_s - second.waiting_s, abs=0.1)
    assert second.working_s < 1.6
    events = [json.loads(line) for line in (run.path / "events.jsonl").read_text().splitlines()]
    waits = sorted(e["waiting_s"] for e in events if e["type"] == "model_call")
    assert waits[0] == 0.0 and waits[1] > 0.6


def test_the_wall_clock_limit_counts_waiting(tmp_path: Path, one_slot: None) -> None:
    model = script(tmp_path, {"text": "1", "delay_s": 1.0})
    run, _, _ = _run(suite=str(make_suite(tmp_path, ROWS)), model=model, time_limit=1.6, concurrency=2)
    records = SamplesLog(run.path / "samples.jsonl").read()
    assert sorted(r.status for r in records) == ["limit_exceeded", "succeeded"]
    assert next(r for r in records if r.status == "limit_exceeded").limit == "time"


def test_the_working_time_limit_stops_a_slow_call(tmp_path: Path) -> None:
    model = script(tmp_path, {"text": "1", "delay_s": 20})
    run, _, _ = _run(suite=str(make_suite(tmp_path, ROWS[:1])), model=model, working_limit=0.4)
    (record,) = SamplesLog(run.path / "samples.jsonl").read()
    assert record.status == "limit_exceeded" and record.limit == "working_time" and record.time_s < 5
    assert "working-time limit of 0.4 s" in (record.error or "")


def test_budget_counts_overlapping_waits_once() -> None:
    budget = Budget(Limits(working_time_s=10))
    budget.begin_wait()
    budget.begin_wait()
    time.sleep(0.2)
    budget.end_wait()
    assert budget.waiting_now
    budget.end_wait()
    assert not budget.waiting_now
    assert budget.waiting_s == pytest.approx(0.2, abs=0.08)
    assert budget.working_s == pytest.approx(budget.elapsed_s - budget.waiting_s, abs=0.01)
    assert budget.seconds_to_time_limit() == pytest.approx(10 - budget.working_s, abs=0.05)


def test_the_process_exits_once_results_are_written(tmp_path: Path) -> None:
    """A call that blocks a worker thread (as a decode that ignores cancellation would) must not keep a
    finished eval's process alive: Python would join that thread at exit."""
    blocking = script(tmp_path, {"text": "1", "block_s": 60})
    start = time.monotonic()
    proc = cli("eval", str(make_suite(tmp_path, ROWS[:1])), "-m", blocking, "--time-limit", "0.5", "-q",
               timeout=45)
    took = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr
    assert took < 40, f"the process lingered {took:.0f} s after the eval ended"
    assert "limit_exceeded 1" in proc.stdout
