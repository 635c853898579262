"""``inspect eval paperworks/<suite>``: the entry point resolves the task, the suite's workflow solves
with a scripted paperworks model, and the suite's own scorer gives the same scores as ``paperworks eval``."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("inspect_ai")

from importlib.metadata import entry_points  # noqa: E402

from inspect_ai.log import read_eval_log  # noqa: E402

from paperworks.core.errors import UserError  # noqa: E402
from paperworks.eval import harness  # noqa: E402
from paperworks.eval.suite import load_suite  # noqa: E402
from paperworks.integrations import inspect_tasks  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

# arith-001 (target 82.7) is answered right, arith-002 (target 392) wrong: accuracy 1/2.
SCRIPT = {"replies": [{"text": "", "tool_calls": [{"name": "calculate", "arguments": {"expression": "100-2*8.65"}}]},
                      {"text": "82.7"}], "repeat_last": True}


def test_entry_point_and_one_task_per_shipped_suite() -> None:
    eps = {ep.name: ep.value for ep in entry_points(group="inspect_ai")}
    assert eps.get("paperworks") == "paperworks.integrations.inspect_tasks"
    shipped = sorted(p.name for p in (ROOT / "paperworks" / "suites").iterdir() if (p / "suite.yaml").is_file())
    assert sorted(inspect_tasks.TASKS) == shipped and "arith" in shipped
    from inspect_ai._util.registry import registry_info

    assert registry_info(inspect_tasks.TASKS["arith"]).name == "paperworks/arith"


def test_dataset_is_the_suite() -> None:
    suite = load_suite("arith")
    data = inspect_tasks.dataset(suite)
    assert len(data) == len(suite.samples)
    first = data[0]
    assert first.id == "arith-001" and first.target == "82.7"
    assert first.input == suite.samples[0].input["task"] and first.metadata["category"] == "shopping"


def test_inspect_model_that_litellm_cannot_route_asks_for_a_task_arg() -> None:
    with pytest.raises(UserError, match="-T model="):
        inspect_tasks._model_name(SimpleNamespace(model="mockllm/model"), None)  # type: ignore[arg-type]
    assert inspect_tasks._model_name(SimpleNamespace(model="mockllm/model"), "scripted/echo") == "scripted/echo"


@pytest.mark.slow
def test_inspect_eval_cli_matches_paperworks_eval(tmp_path: Path) -> None:
    script = tmp_path / "m.json"
    script.write_text(json.dumps(SCRIPT))
    model = f"scripted/{script}"
    env = {**os.environ, "INSPECT_LOG_DIR": str(tmp_path / "logs"), "PYTHONPATH": str(ROOT),
           "INSPECT_DISPLAY": "none", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1"}
    inspect_bin = Path(sys.executable).parent / "inspect"
    done = subprocess.run([str(inspect_bin), "eval", "paperworks/arith", "--model", "mockllm/model", "--limit", "2",
                           "-T", f"model={model}"], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    logs = sorted((tmp_path / "logs").glob("*.eval"))
    assert len(logs) == 1
    log = read_eval_log(str(logs[0]))
    assert log.status == "success" and log.samples is not None and len(log.samples) == 2
    scores = {str(s.id): s.scores["numeric"].value for s in log.samples if s.scores}
    assert scores == {"arith-001": 1.0, "arith-002": 0.0}
    first = next(s for s in log.samples if s.id == "arith-001")
    assert [m.role for m in first.messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert first.output.completion == "82.7" and "82.7" in first.messages[3].text
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(0.5)

    run = harness.create_eval(harness.EvalArgs(suite="arith", model=model, limit=2, log_dir=str(tmp_path / "runs")))
    results = asyncio.run(harness.run_eval(run))  # paperworks' own eval of the same samples
    assert results.metrics["numeric/accuracy"]["value"] == log.results.scores[0].metrics["accuracy"].value
    records = [json.loads(line) for line in (run.path / "samples.jsonl").read_text().splitlines()]
    assert {r["id"]: r["scores"]["numeric"]["value"] for r in records} == scores
