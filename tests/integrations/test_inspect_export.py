"""``paperworks export RUN --format inspect``: a real eval on a scripted model, exported and read back
with inspect_ai's own reader; the numbers must be the ones paperworks computed (and hand-computed)."""

from __future__ import annotations

import asyncio
import json
import math
import shutil
import statistics
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.event import ModelEvent, SampleLimitEvent, ScoreEvent, ToolEvent  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402

from paperworks.core.errors import UserError  # noqa: E402
from paperworks.eval import harness  # noqa: E402
from paperworks.eval.samples_log import SamplesLog  # noqa: E402
from paperworks.integrations.inspect_log import build_log, export_inspect  # noqa: E402
from paperworks.workflows import runner  # noqa: E402
from paperworks.workflows.registry import get_workflow  # noqa: E402
from tests.conftest import cli  # noqa: E402

# The model calls `calculate(1+1)`, then echoes the task; the numeric scorer reads the echo's last
# number. Targets: i, except every 4th row (i + 1), so rows 1-3 and 5-7 pass; row 8 has a model error.
ROWS = [{"id": f"q{i:02d}", "question": f"please say {i}", "answer": i if i % 4 else i + 1} for i in range(1, 9)]
PASSING = {"q01", "q02", "q03", "q05", "q06", "q07"}
SCRIPT = {"replies": [
    {"when": "please say 8", "text": "", "fail_first": 1000, "error": "bad_request"},
    {"text": "", "tool_calls": [{"name": "calculate", "arguments": {"expression": "1+1"}}]},
    {"echo": True},
], "repeat_last": True}


def _suite(tmp: Path) -> Path:
    folder = tmp / "echoes"
    folder.mkdir(parents=True)
    (folder / "suite.yaml").write_text(
        "name: echoes\nversion: '2'\ndescription: echo test\nworkflow: agent\ndata: [data.jsonl]\n"
        "id_field: id\ninput: {task: '{question}'}\ntarget: answer\nscorers: [numeric]\nepochs: 2\n"
        "config: {max_steps: 3, tools: [calculate]}\n")
    (folder / "data.jsonl").write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return folder


@pytest.fixture(scope="module")
def eval_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, harness.Results]:
    """One eval for the module's tests (they only read it; exports go to each test's own folder)."""
    tmp = tmp_path_factory.mktemp("eval")
    (tmp / "model.json").write_text(json.dumps(SCRIPT))
    run = harness.create_eval(harness.EvalArgs(suite=str(_suite(tmp)), model=f"scripted/{tmp}/model.json",
                                               concurrency=4, log_dir=str(tmp / "runs")))
    return run.path, asyncio.run(harness.run_eval(run))


def test_exported_log_reads_back_with_paperworks_numbers(eval_run: tuple[Path, harness.Results],
                                                         tmp_path: Path) -> None:
    run_dir, results = eval_run
    out = export_inspect(run_dir, tmp_path / "log.eval")
    log = read_eval_log(str(out))
    records = {(r.id, r.epoch): r for r in SamplesLog(run_dir / "samples.jsonl").read()}
    assert log.status == "success" and log.eval.task == "paperworks/echoes" and log.eval.task_version == "2"
    assert log.samples is not None and len(log.samples) == len(records) == 16
    assert log.eval.dataset.samples == 8 and log.eval.config.epochs == 2

    for s in log.samples:  # every sample's score: the record's, and the hand-computed pass/fail
        rec = records[(str(s.id), s.epoch)]
        if s.id == "q08":
            assert s.scores is None and s.error is not None and s.error.message == rec.error
            assert "scripted bad request" in s.error.message and s.metadata["paperworks"]["status"] == "failed"
            continue
        assert s.scores is not None
        assert s.scores["numeric"].value == rec.scores["numeric"]["value"] == (1.0 if s.id in PASSING else 0.0)
        assert s.scores["numeric"].metadata["passed"] is (s.id in PASSING)
        assert s.output.completion == f"please say {int(str(s.id)[1:])}"
        assert [m.role for m in s.messages] == ["system", "user", "assistant", "tool", "assistant"]
        assert s.messages[3].text.strip().startswith("2") and s.messages[2].tool_calls[0].function == "calculate"
        kinds = [type(e) for e in s.events]
        assert kinds == [ModelEvent, ToolEvent, ModelEvent, ScoreEvent]
        tool = s.events[1]
        assert isinstance(tool, ToolEvent) and tool.arguments == {"expression": "1+1"}
        assert tool.id == s.messages[2].tool_calls[0].id
        usage = s.model_usage[log.eval.model]
        assert usage.input_tokens == rec.usage["prompt_tokens"] > 0
        assert usage.output_tokens == rec.usage["completion_tokens"] > 0

    assert log.results is not None and log.results.total_samples == 16 and log.results.completed_samples == 16
    metrics = {m.name: m for m in log.results.scores[0].metrics.values()}
    assert log.results.scores[0].name == "numeric"
    per_sample = [1.0 if r["id"] in PASSING else 0.0 for r in ROWS]  # both epochs agree
    assert metrics["accuracy"].value == results.metrics["numeric/accuracy"]["value"] == pytest.approx(6 / 8)
    assert metrics["stderr"].value == pytest.approx(statistics.stdev(per_sample) / math.sqrt(8))
    assert metrics["stderr"].value == results.metrics["numeric/accuracy"]["stderr"]
    assert metrics["pass@2"].value == results.metrics["numeric/pass@2"]["value"] == pytest.approx(6 / 8)
    assert log.results.metadata["errors"] == {"model_error": 2} == results.errors
    total = log.stats.model_usage[log.eval.model]
    assert total.total_tokens == results.usage["total_tokens"] == sum(
        r.usage.get("total_tokens", 0) for r in records.values())


def test_json_format_and_default_location(eval_run: tuple[Path, harness.Results], tmp_path: Path) -> None:
    run_dir, results = eval_run
    assert export_inspect(run_dir, tmp_path / "x.json") == tmp_path / "x.json"
    assert json.loads((tmp_path / "x.json").read_text())["eval"]["task"] == "paperworks/echoes"  # the JSON format
    log = read_eval_log(str(tmp_path / "x.json"))
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == results.metrics["numeric/accuracy"]["value"]
    killed = tmp_path / "killed"  # killed before results.json: the figures are computed from the records
    shutil.copytree(run_dir, killed)
    (killed / "results.json").unlink()
    rebuilt = build_log(killed).results
    assert rebuilt is not None and rebuilt.scores[0].metrics["accuracy"].value == pytest.approx(6 / 8)
    assert rebuilt.scores[0].metrics["stderr"].value == pytest.approx(results.metrics["numeric/accuracy"]["stderr"])
    default = export_inspect(run_dir)
    assert default.parent == run_dir / "inspect" and default.suffix == ".eval"
    assert len(read_eval_log(str(default)).samples or []) == 16


def test_single_workflow_run_is_one_sample(tmp_path: Path) -> None:
    (tmp_path / "m.json").write_text(json.dumps({"replies": SCRIPT["replies"][1:], "repeat_last": True}))
    spec = get_workflow("agent")
    run = runner.create_run(spec, {"task": "please say 5"}, model=f"scripted/{tmp_path}/m.json",
                            config_values={"max_steps": 3, "tools": ["calculate"]})
    runner.run_sync(runner.execute(run, spec.make_state(spec.parse_input({"task": "please say 5"}))))
    log = build_log(run.path)
    assert log.status == "success" and log.results is None and log.samples is not None and len(log.samples) == 1
    sample = log.samples[0]
    assert sample.output.completion == "please say 5" and sample.scores is None
    assert [m.role for m in sample.messages] == ["system", "user", "assistant", "tool", "assistant"]


def test_a_token_limit_is_the_samples_limit(tmp_path: Path) -> None:
    (tmp_path / "m.json").write_text(json.dumps({"replies": SCRIPT["replies"][1:], "repeat_last": True}))
    run = harness.create_eval(harness.EvalArgs(suite=str(_suite(tmp_path)), model=f"scripted/{tmp_path}/m.json",
                                               limit=1, epochs=1, token_limit=5, log_dir=str(tmp_path / "runs")))
    results = asyncio.run(harness.run_eval(run))
    assert results.errors == {"limit_exceeded": 1}
    log = build_log(run.path)
    assert log.samples is not None and len(log.samples) == 1
    sample = log.samples[0]
    assert sample.limit is not None and sample.limit.type == "token" and sample.limit.limit == 5
    assert sample.scores is None and any(isinstance(e, SampleLimitEvent) and e.type == "token" for e in sample.events)
    assert log.results is not None and log.results.scores[0].metrics["accuracy"].value == 0.0


def test_bad_inputs_are_one_line_errors_and_write_nothing(eval_run: tuple[Path, harness.Results],
                                                          tmp_path: Path) -> None:
    run_dir, _ = eval_run
    before = sorted(run_dir.rglob("*"))
    with pytest.raises(UserError, match="no run"):
        export_inspect(tmp_path / "missing", tmp_path / "a.eval")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="no run.json"):
        export_inspect(tmp_path / "empty", tmp_path / "a.eval")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "run.json").write_text("{not json")
    with pytest.raises(UserError, match="unreadable run record"):
        export_inspect(tmp_path / "bad", tmp_path / "a.eval")
    (tmp_path / "bad" / "run.json").write_text('{"kind": "edit"}')
    with pytest.raises(UserError, match="'edit' run cannot be exported"):
        export_inspect(tmp_path / "bad", tmp_path / "a.eval")
    with pytest.raises(UserError, match="ending in .eval or .json"):
        export_inspect(run_dir, tmp_path / "a.txt")
    assert not (tmp_path / "a.eval").exists() and not (tmp_path / "a.txt").exists()
    done = cli("export", str(run_dir), "--format", "csv", "--out", str(tmp_path / "b.eval"))
    assert done.returncode == 1 and done.stderr.strip() == "error: --format must be one of inspect, got 'csv'"
    assert not (tmp_path / "b.eval").exists() and sorted(run_dir.rglob("*")) == before
