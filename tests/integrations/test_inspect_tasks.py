"""``inspect eval paperworks/<suite>``: the entry point resolves the task, the suite's workflow solves
with a scripted paperworks model, and the suite's own scorer gives the same scores as ``paperworks eval``."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from importlib.metadata import entry_points  # noqa: E402

from inspect_ai.event import ModelEvent, ToolEvent  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402

from paperworks.core.errors import UserError  # noqa: E402
from paperworks.eval import harness  # noqa: E402
from paperworks.eval.suite import load_suite  # noqa: E402
from paperworks.integrations import inspect_tasks  # noqa: E402
from paperworks.integrations.inspect_model import inspect_model, resolve_model  # noqa: E402
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
    assert first.input == suite.samples[0].input["task"] and (first.metadata or {})["category"] == "shopping"


def test_model_is_the_task_arg_else_inspects_model_when_litellm_routes_it(tmp_path: Path) -> None:
    script = tmp_path / "m.json"
    script.write_text(json.dumps(SCRIPT))
    assert resolve_model("mockllm/model", f"scripted/{script}") == f"scripted/{script}"
    assert resolve_model(f"scripted/{script}", None) == f"scripted/{script}"
    assert resolve_model("local/smollm2-135m", None) == "local/smollm2-135m"  # checked, not loaded
    with pytest.raises(UserError, match=r"^no model given: pass --model .* or -T model="):
        resolve_model("none/none", None)
    with pytest.raises(UserError, match=r"^--model mockllm/model is not a model paperworks can call.*-T model="):
        resolve_model("mockllm/model", None)
    with pytest.raises(UserError, match=r"^unknown model 'foo/bar'"):
        resolve_model("mockllm/model", "foo/bar")
    with pytest.raises(UserError, match=r"no script file"):
        resolve_model(f"scripted/{tmp_path}/missing.json", None)
    with pytest.raises(UserError, match=r"^-T model=3: expected a model string"):
        resolve_model("none/none", 3)


def test_inspect_model_is_named_as_paperworks_names_it() -> None:
    from inspect_ai.model import get_model

    assert str(inspect_model("scripted//tmp/m.json")) == "scripted//tmp/m.json"
    assert str(inspect_model("openai/gpt-4o-mini")) == "openai/gpt-4o-mini"
    assert str(inspect_model("hosted_vllm/org/model")) == "hosted_vllm/org/model"
    local = get_model("local/smollm2-135m")  # the in-process providers are Inspect model APIs too
    assert str(local) == "local/smollm2-135m" and inspect_model("local/smollm2-135m", local) is local
    assert str(get_model("scripted/echo")) == "scripted/echo"


@pytest.mark.parametrize(("args", "message"), [
    ({"config": {"max_steps": "x"}}, r"paperworks/arith: setting 'max_steps': .*integer"),
    ({"config": {"bogus": 1}}, r"paperworks/arith: unknown setting 'bogus' for workflow 'agent'"),
    ({"config": "max_steps=3"}, r"paperworks/arith: -T config='max_steps=3': expected a mapping"),
    ({"epochs": 0}, r"paperworks/arith: -T epochs=0: expected a whole number >= 1"),
    ({"seed": "abc"}, r"paperworks/arith: -T seed='abc': expected a whole number >= 0"),
    ({"judge_model": "nowhere/x"}, r"paperworks/arith: unknown model 'nowhere/x'"),
    ({"model": None}, r"paperworks/arith: no model given"),
])
def test_bad_task_args_fail_when_the_task_loads(args: dict[str, object], message: str) -> None:
    """Raised by the @task function itself (before Inspect runs a sample), one line each."""
    with pytest.raises(inspect_tasks.TaskLoadError, match=f"^{message}") as info:
        inspect_tasks.TASKS["arith"](**{"model": "scripted/echo", **args})
    assert "\n" not in str(info.value)


def test_task_records_the_model_and_the_settings_it_runs_with() -> None:
    from inspect_ai._eval.task.constants import TASK_ALL_PARAMS_ATTR
    from inspect_ai._util.registry import registry_params

    t = inspect_tasks.TASKS["arith"](model="scripted/echo", config={"max_steps": 2})
    settings = {"max_steps": 2, "tools": ["calculate"], "system": None, "tool_choice": "auto"}  # suite.yaml, -T over
    assert str(t.model) == "scripted/echo" and t.metadata["workflow_config"] == settings
    assert getattr(t, TASK_ALL_PARAMS_ATTR)["config"] == settings  # the log's task_args
    assert registry_params(t)["config"] == {"max_steps": 2}  # task_args_passed: as given
    assert t.config.max_tokens == 192 and t.config.temperature == 0  # the suite's generation settings


def _inspect_eval(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "INSPECT_LOG_DIR": str(tmp_path / "logs"), "PYTHONPATH": str(ROOT),
           "INSPECT_DISPLAY": "none", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1"}
    inspect_bin = Path(sys.executable).parent / "inspect"
    return subprocess.run([str(inspect_bin), "eval", "paperworks/arith", *args], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
@pytest.mark.parametrize(("args", "line"), [
    ((), "error: paperworks/arith: no model given: pass --model <litellm model> (e.g. --model local/smollm2-135m) "
         "or -T model=<paperworks model>"),
    (("--model", "mockllm/model"), "error: paperworks/arith: --model mockllm/model is not a model paperworks can "
                                   "call (not a litellm model string): pass the paperworks model as a task "
                                   "argument, e.g. -T model=local/smollm2-135m"),
    (("-T", "model=foo/bar"), "error: paperworks/arith: unknown model 'foo/bar': give a litellm model string such "
                              "as 'local/smollm2-135m', 'openai/gpt-4o-mini' or 'ollama_chat/qwen2.5'"),
])
def test_inspect_eval_cli_without_a_usable_model_is_one_line(tmp_path: Path, args: tuple[str, ...],
                                                             line: str) -> None:
    """The real ``inspect eval``: one line on stderr, nothing on stdout, exit 1, no log, no sample run."""
    done = _inspect_eval(tmp_path, "--limit", "1", *args)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", line + "\n")
    assert not (tmp_path / "logs").exists()


@pytest.mark.slow
def test_inspect_eval_cli_matches_paperworks_eval(tmp_path: Path) -> None:
    script = tmp_path / "m.json"
    script.write_text(json.dumps(SCRIPT))
    model = f"scripted/{script}"
    done = _inspect_eval(tmp_path, "--model", "mockllm/model", "--limit", "2", "-T", f"model={model}")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    logs = sorted((tmp_path / "logs").glob("*.eval"))
    assert len(logs) == 1
    log = read_eval_log(str(logs[0]), resolve_attachments=True)
    assert log.status == "success" and log.samples is not None and len(log.samples) == 2
    assert log.eval.model == model  # the paperworks model, not Inspect's --model
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

    # the settings the workflow ran with (arith's suite.yaml) are the task's config
    settings = log.eval.task_args["config"]
    assert settings["max_steps"] == 4 and settings["tools"] == ["calculate"]
    assert log.plan.steps[0].params["config"] == settings == (log.eval.metadata or {})["workflow_config"]
    assert log.plan.config.max_tokens == 192 and log.plan.config.temperature == 0
    # each model call is a ModelEvent and the tool call a ToolEvent, as paperworks recorded them
    calls = [e for e in first.events if isinstance(e, ModelEvent | ToolEvent)]
    assert [type(e) for e in calls] == [ModelEvent, ToolEvent, ModelEvent]
    ask, tool, answer = calls
    assert isinstance(ask, ModelEvent) and isinstance(tool, ToolEvent) and isinstance(answer, ModelEvent)
    assert ask.model == answer.model == model
    assert [m.role for m in ask.input] == ["system", "user"] and ask.input[1].text == first.input
    requested = (ask.output.message.tool_calls or [])[0]
    assert requested.function == "calculate" and [t.name for t in ask.tools] == ["calculate"]
    assert (tool.id, tool.function, tool.arguments) == (requested.id, "calculate", {"expression": "100-2*8.65"})
    assert "82.7" in str(tool.result) and tool.error is None
    assert [m.role for m in answer.input] == ["system", "user", "assistant", "tool"]
    assert answer.output.completion == "82.7" and ask.timestamp <= tool.timestamp <= answer.timestamp
    own = [e for e in map(json.loads, (run.path / "events.jsonl").read_text().splitlines())
           if e.get("type") == "model_call" and e.get("sample") == "arith-001#1"]  # paperworks' own records
    usages = [e.output.usage for e in (ask, answer)]
    assert [(u.input_tokens, u.output_tokens) for u in usages if u is not None] == [
        (e["prompt_tokens"], e["completion_tokens"]) for e in own]
    # usage per model: the sample's (its two calls) and the eval's (all samples), as paperworks counted it
    usage = first.model_usage[model]
    assert list(first.model_usage) == [model] and usage.input_tokens == sum(e["prompt_tokens"] for e in own) > 0
    assert usage.output_tokens == sum(e["completion_tokens"] for e in own) > 0
    assert usage.total_tokens == first.metadata["paperworks"]["usage"]["total_tokens"]
    assert list(log.stats.model_usage) == [model]
    assert log.stats.model_usage[model].total_tokens == results.usage["total_tokens"] == sum(
        s.model_usage[model].total_tokens for s in log.samples)
