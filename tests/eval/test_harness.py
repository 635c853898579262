"""The eval harness end to end with scripted models: records, metrics, failures, concurrency,
resume after SIGKILL, and the CLI."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paperworks.core.runs import RunDir
from paperworks.eval import harness
from paperworks.eval.samples_log import SamplesLog
from tests.conftest import ROOT, cli

# Each row asks the echo model to "say N"; the numeric scorer reads the last number of the echo.
ROWS = [{"id": f"q{i:02d}", "question": f"please say {i}", "answer": i if i % 4 else i + 1} for i in range(1, 13)]


def make_suite(tmp: Path, rows: list[dict] | None = None, name: str = "echoes") -> Path:
    folder = tmp / name
    folder.mkdir(parents=True)
    (folder / "suite.yaml").write_text(
        f"name: {name}\nversion: '1'\ndescription: echo test\nworkflow: agent\ndata: [data.jsonl]\n"
        "id_field: id\ninput: {task: '{question}'}\ntarget: answer\nscorers: [numeric]\n"
        "config: {max_steps: 2, tools: [calculate]}\n"
    )
    (folder / "data.jsonl").write_text("\n".join(json.dumps(r) for r in (rows or ROWS)) + "\n")
    return folder


def script(tmp: Path, reply: dict, name: str = "model.json") -> str:
    path = tmp / name
    path.write_text(json.dumps({"replies": [reply], "repeat_last": True}))
    return f"scripted/{path}"


def _eval(**kw) -> tuple[RunDir, harness.Results]:  # type: ignore[no-untyped-def]
    run = harness.create_eval(harness.EvalArgs(**kw))
    return run, asyncio.run(harness.run_eval(run))


def test_eval_records_every_sample_and_scores(tmp_path: Path) -> None:
    run, results = _eval(suite=str(make_suite(tmp_path)), model=script(tmp_path, {"echo": True}), concurrency=3)
    records = SamplesLog(run.path / "samples.jsonl").read()
    assert len(records) == 12 and {r.status for r in records} == {"succeeded"}
    acc = results.metrics["numeric/accuracy"]
    assert acc["value"] == pytest.approx(9 / 12) and acc["n"] == 12 and acc["stderr"] > 0
    assert json.loads((run.path / "results.json").read_text())["metrics"]["numeric/accuracy"]["value"] == acc["value"]
    first = next(r for r in records if r.id == "q01")
    assert first.scores["numeric"]["passed"] is True and first.output["answer"] == "please say 1"
    assert run.read_record()["status"] == "succeeded"
    events = [json.loads(line) for line in (run.path / "events.jsonl").read_text().splitlines()]
    assert {e.get("sample") for e in events if e["type"] == "node_end"} == {f"{r['id']}#1" for r in ROWS}


def test_failing_samples_are_recorded_and_do_not_stop_the_eval(tmp_path: Path) -> None:
    model = script(tmp_path, {"text": "", "fail_first": 1000, "error": "bad_request"})
    run, results = _eval(suite=str(make_suite(tmp_path)), model=model, limit=4)
    records = SamplesLog(run.path / "samples.jsonl").read()
    assert len(records) == 4 and all(r.error_kind == "model_error" for r in records)
    assert results.errors == {"model_error": 4} and results.metrics["numeric/accuracy"]["value"] == 0
    assert results.limited


def test_step_limit_and_token_limit_count_as_errors(tmp_path: Path) -> None:
    loop = {"text": "", "tool_calls": [{"name": "calculate", "arguments": {"expression": "1+1"}}]}
    _, results = _eval(suite=str(make_suite(tmp_path)), model=script(tmp_path, loop), limit=2)
    assert results.errors == {"step_limit": 2}
    _, results = _eval(suite=str(make_suite(tmp_path / "b")), model=script(tmp_path, loop, "l2.json"), limit=2,
                       token_limit=5)
    assert results.errors == {"limit_exceeded": 2}


def test_concurrency_runs_samples_in_parallel(tmp_path: Path) -> None:
    model = script(tmp_path, {"echo": True, "delay_s": 0.3})
    start = time.monotonic()
    _eval(suite=str(make_suite(tmp_path)), model=model, concurrency=12)
    parallel = time.monotonic() - start
    assert parallel < 12 * 0.3 * 0.6, parallel  # serial would take 3.6 s of model time alone


@pytest.mark.slow
def test_cli_eval_view_compare_and_fail_on_error(tmp_path: Path) -> None:
    suite = make_suite(tmp_path)
    good = cli("eval", str(suite), "-m", script(tmp_path, {"echo": True}), "--log-dir", str(tmp_path / "logs"))
    assert good.returncode == 0, good.stderr
    assert "numeric/accuracy" in good.stdout and "0.75" in good.stdout
    bad = cli("eval", str(suite), "-m", script(tmp_path, {"text": "", "fail_first": 99, "error": "bad_request"},
                                                "bad.json"),
              "--log-dir", str(tmp_path / "logs"), "--fail-on-error", "0.5", "--limit", "3")
    assert bad.returncode == 1 and "failed" in bad.stderr and "testing only" in bad.stdout
    runs = sorted((tmp_path / "logs").iterdir())
    view = cli("view", str(runs[0]))
    assert view.returncode == 0 and (runs[0] / "report.html").is_file()
    cmp = cli("compare", str(runs[0]), str(runs[1]))
    assert cmp.returncode == 0 and "numeric/accuracy" in cmp.stdout


def test_cli_eval_errors_are_one_line(tmp_path: Path) -> None:
    out = cli("eval", "no-such-suite")
    assert out.returncode == 1 and out.stderr.startswith("error:") and len(out.stderr.strip().splitlines()) == 1
    out = cli("eval", str(make_suite(tmp_path)), "--concurrency", "0")
    assert out.returncode == 1 and "--concurrency" in out.stderr


@pytest.mark.slow
def test_resume_after_sigkill_matches_an_uninterrupted_run(tmp_path: Path) -> None:
    suite = make_suite(tmp_path)
    model = script(tmp_path, {"echo": True, "delay_s": 0.25})
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PAPERWORKS_RESPONSE_CACHE": str(tmp_path / "cache.sqlite")}
    cmd = [sys.executable, "-m", "paperworks", "eval", str(suite), "-m", model, "--concurrency", "2", "--cache"]
    proc = subprocess.Popen([*cmd, "--log-dir", str(tmp_path / "killed")], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples: Path | None = None
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        found = list((tmp_path / "killed").glob("*/samples.jsonl"))
        if found and len(found[0].read_text().splitlines()) >= 4:
            samples = found[0]
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert samples is not None, "eval never got going"
    done_before = len(samples.read_text().splitlines())
    assert done_before < 12
    resumed = subprocess.run([sys.executable, "-m", "paperworks", "eval", "--resume", str(samples.parent)],
                             env=env, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    records = SamplesLog(samples).read()
    assert sorted(r.id for r in records) == [r["id"] for r in ROWS]  # each sample exactly once
    full = subprocess.run([*cmd, "--log-dir", str(tmp_path / "full")], env=env, capture_output=True, text=True,
                          timeout=120)
    assert full.returncode == 0, full.stderr
    full_records = SamplesLog(next((tmp_path / "full").glob("*/samples.jsonl"))).read()
    passed = {r.id: (r.scores.get("numeric") or {}).get("passed") for r in records}
    assert passed == {r.id: (r.scores.get("numeric") or {}).get("passed") for r in full_records}, \
        [r.to_dict() for r in records if r.error or passed[r.id] is not (r.id not in ("q04", "q08", "q12"))]
    a = json.loads((samples.parent / "results.json").read_text())["metrics"]
    b = json.loads(next((tmp_path / "full").glob("*/results.json")).read_text())["metrics"]
    assert a["numeric/accuracy"] == b["numeric/accuracy"]


def test_config_overrides_the_suite_settings_and_bad_ones_are_refused(tmp_path: Path) -> None:
    """``-c key=value`` reaches the workflow (max_steps 2 → 1 makes a tool-calling agent hit its step limit),
    is kept in run.json for a resume, and an unknown or ill-typed setting is refused before any run exists."""
    from paperworks.core.errors import UserError
    from paperworks.eval.sample_runner import EvalSetup

    calc = {"text": "", "tool_calls": [{"name": "calculate", "arguments": {"expression": "1+1"}}]}
    (tmp_path / "m.json").write_text(json.dumps({"replies": [calc, "2"]}))
    model = f"scripted/{tmp_path / 'm.json'}"
    suite = str(make_suite(tmp_path, ROWS[:1]))
    base_run, base = _eval(suite=suite, model=model)
    run, results = _eval(suite=suite, model=model, config={"max_steps": 1})
    assert EvalSetup.from_record(run.path, run.read_record()).workflow_config.max_steps == 1
    assert EvalSetup.from_record(base_run.path, base_run.read_record()).workflow_config.max_steps == 2
    assert base.errors == {} and sum(results.errors.values()) == 1, (base.errors, results.errors)
    logs = tmp_path / "logs"
    for bad, msg in (({"max_stepz": 1}, "unknown setting 'max_stepz'"), ({"max_steps": "many"}, "max_steps")):
        with pytest.raises(UserError, match=msg):
            harness.create_eval(harness.EvalArgs(suite=suite, model=model, config=bad, log_dir=str(logs)))
    assert not logs.exists()
