"""``paperworks eval``'s Inspect-style options in the harness: ``--limit A-B``, comma lists, ``--message-limit``
(enforced before the call past it), tags/metadata/display/log level recorded in run.json, samples in suite
order, and one metric format everywhere."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from paperworks.core.budget import Budget, Limits
from paperworks.core.errors import LimitExceeded, UserError
from paperworks.eval import harness
from paperworks.eval.figures import format_metric
from paperworks.eval.metrics import format_table
from paperworks.eval.options import check_limit, parse_limit, parse_metadata, parse_tags, split_list
from paperworks.eval.records import Results
from paperworks.eval.samples_log import SamplesLog
from paperworks.eval.transcript import Turn, render_transcript, transcript_rows
from paperworks.eval.view import load_run, summary, write_report
from tests.eval.test_harness import ROWS, make_suite
from tests.eval.test_view import embedded, make_sample, results_for, write_run

LOOP = {"text": "", "tool_calls": [{"name": "calculate", "arguments": {"expression": "1+1"}}]}


def suite_with_steps(tmp: Path, steps: int = 8) -> Path:
    folder = make_suite(tmp)
    spec = folder / "suite.yaml"
    spec.write_text(spec.read_text().replace("max_steps: 2", f"max_steps: {steps}"))
    return folder


def scripted(tmp: Path, replies: list[Any], name: str = "m.json") -> str:
    path = tmp / name
    path.write_text(json.dumps({"replies": replies, "repeat_last": True}))
    return f"scripted/{path}"


def text(renderable: Any, width: int = 200) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


# -- parsing ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("given", "parsed"), [("5", 5), ("2-5", [2, 5]), (" 3 - 3 ", [3, 3]), (None, None)])
def test_limit_takes_a_count_or_an_inclusive_range(given: str | None, parsed: Any) -> None:
    assert parse_limit(given) == parsed


@pytest.mark.parametrize(("given", "message"), [
    ("abc", "--limit must be a number of samples N or a range A-B"), ("2-", "--limit must be a number"),
    ("0", "--limit must be at least 1, got 0"), ("0-3", "samples are counted from 1"),
    ("5-2", "--limit 5-2: the range ends before it starts")])
def test_bad_limits_are_one_line(given: str, message: str) -> None:
    with pytest.raises(UserError, match=message.replace("(", r"\(")):
        check_limit(parse_limit(given))


def test_comma_lists_tags_and_metadata() -> None:
    assert split_list(["a,b", "c", "a"], "--sample-id") == ["a", "b", "c"]
    with pytest.raises(UserError, match="--sample-id: empty item in 'a,,b'"):
        split_list(["a,,b"], "--sample-id")
    assert parse_tags(["smoke,ci", "nightly"]) == ["smoke", "ci", "nightly"]
    with pytest.raises(UserError, match="--tags: 'a b' is not a tag"):
        parse_tags(["a b"])
    assert parse_metadata(["owner=me", "note=a=b"]) == {"owner": "me", "note": "a=b"}
    with pytest.raises(UserError, match="--metadata 'novalue': expected key=value"):
        parse_metadata(["novalue"])


# -- the harness --------------------------------------------------------------------------------------------

def test_a_limit_range_runs_those_samples_and_everything_is_recorded(tmp_path: Path) -> None:
    run = harness.create_eval(harness.EvalArgs(
        suite=str(make_suite(tmp_path)), model="scripted/echo", limit=(2, 4), tags=["smoke", "ci"],
        metadata={"owner": "me"}, display="plain", log_level="info", message_limit=7, concurrency=2))
    record = run.read_record()
    assert record["sample_ids"] == [r["id"] for r in ROWS[1:4]]  # the 2nd to the 4th, 1-based inclusive
    assert record["args"]["limit"] == [2, 4] and record["limited"] is True
    assert record["tags"] == ["smoke", "ci"] and record["metadata"] == {"owner": "me"}
    assert record["args"]["display"] == "plain" and record["args"]["log_level"] == "info"
    assert record["limits"]["messages"] == 7 and record["args"]["concurrency"] == 2


def test_a_range_past_the_suite_is_refused_and_its_end_is_clamped(tmp_path: Path) -> None:
    suite = str(make_suite(tmp_path))
    with pytest.raises(UserError, match="--limit 13-14: suite 'echoes' has only 12 samples"):
        harness.create_eval(harness.EvalArgs(suite=suite, model="scripted/echo", limit=[13, 14]))
    run = harness.create_eval(harness.EvalArgs(suite=suite, model="scripted/echo", limit=[11, 99]))
    assert run.read_record()["sample_ids"] == ["q11", "q12"]


@pytest.mark.parametrize(("field", "value", "message"), [
    ("display", "fancy", "--display must be one of full, conversation, rich, plain, none, got 'fancy'"),
    ("log_level", "loud", "--log-level must be one of debug, info, warning, error, got 'loud'"),
    ("message_limit", 0, "--message-limit must be greater than 0, got 0"),
    ("concurrency", 0, "--max-samples (--concurrency) must be at least 1, got 0"),
    ("limit", [3, 1], "--limit 3-1: the range ends before it starts")])
def test_bad_options_are_refused_before_anything_is_created(tmp_path: Path, field: str, value: Any,
                                                            message: str) -> None:
    args = harness.EvalArgs(suite=str(make_suite(tmp_path)), model="scripted/echo")
    setattr(args, field, value)
    with pytest.raises(UserError) as exc:
        harness.create_eval(args)
    assert str(exc.value) == message
    assert not (tmp_path / "runs").exists()


def test_the_message_limit_refuses_the_call_past_it_and_records_a_limit_error(tmp_path: Path) -> None:
    run = harness.create_eval(harness.EvalArgs(suite=str(suite_with_steps(tmp_path)), model=scripted(tmp_path, [LOOP]),
                                               limit=2, message_limit=3))
    results = asyncio.run(harness.run_eval(run))
    records = SamplesLog(run.path / "samples.jsonl").read()
    assert len(records) == 2 and results.errors == {"limit_exceeded": 2}
    for r in records:
        assert r.status == "limit_exceeded" and r.limit == "messages" and r.error_kind == "limit_exceeded"
        assert r.error is not None and r.error.startswith("message limit of 3 reached")
        assert r.usage["calls"] == 3  # three calls made; the fourth was refused, not made


def test_a_sample_that_needs_exactly_the_limit_succeeds(tmp_path: Path) -> None:
    rows = [{"id": "a", "question": "say 2", "answer": 2}]
    model = scripted(tmp_path, [LOOP, "2"])  # two model messages: a tool call, then the answer
    run = harness.create_eval(harness.EvalArgs(suite=str(make_suite(tmp_path, rows)), model=model, message_limit=2))
    results = asyncio.run(harness.run_eval(run))
    assert results.errors == {} and results.metrics["numeric/accuracy"]["value"] == 1.0


def test_budget_check_call_counts_calls_and_refuses_past_the_limit() -> None:
    budget = Budget(Limits(messages=2))
    budget.check_call()
    budget.check_call()
    budget.check()  # at the limit, but no call past it yet: the sample may end normally
    with pytest.raises(LimitExceeded) as exc:
        budget.check_call()
    assert exc.value.kind == "messages" and budget.messages == 2
    with pytest.raises(UserError, match="--message-limit must be a whole number of messages, got 2.5"):
        Limits(messages=2.5).validate()  # type: ignore[arg-type]


# -- reading a run: suite order, one number format, tool errors --------------------------------------------

def test_view_and_report_list_samples_in_suite_order(tmp_path: Path) -> None:
    finished = [make_sample("q3"), make_sample("q1", epoch=2), make_sample("q2"), make_sample("q1")]
    path = write_run(tmp_path / "run", finished, results_for(finished),
                     record={"sample_ids": ["q1", "q2", "q3"], "epochs": 2})
    run = load_run(path)
    assert [s.key for s in run.samples] == ["q1#1", "q1#2", "q2#1", "q3#1"]
    data = embedded(write_report(run).read_text(encoding="utf-8"))
    assert [(s["id"], s["epoch"]) for s in data["samples"]] == [("q1", 1), ("q1", 2), ("q2", 1), ("q3", 1)]


def test_eval_summary_view_and_report_format_a_metric_the_same_way(tmp_path: Path) -> None:
    metrics = {"numeric/accuracy": {"value": 0.4, "stderr": 0.0591, "n": 70},
               "cost/mean": {"value": 0.00123, "stderr": 0.0001, "n": 70},
               "tokens/mean": {"value": 1234.56, "stderr": 10.0, "n": 70}}
    results = Results(suite="arith", model="mock/m", n_samples=70, epochs=1, metrics=metrics)
    samples = [make_sample("q1")]
    path = write_run(tmp_path / "run", samples, results)
    eval_text, view_text = text(format_table(results)), text(summary(load_run(path)))
    html = write_report(load_run(path)).read_text(encoding="utf-8")
    for name, shown in (("numeric/accuracy", "0.400 ± 0.059"), ("cost/mean", "$0.0012 ± 0.0001"),
                        ("tokens/mean", "1,234.6 ± 10.0")):
        assert format_metric(name, metrics[name]) == shown
        assert shown in eval_text and shown in view_text and shown in html, (name, eval_text, view_text)


def test_a_failed_tool_reads_error_once() -> None:
    turns = [Turn(role="tool", tool="calculate", arguments={"expression": "1/0"}, ok=False,
                  text="error: ZeroDivisionError: division by zero"),
             Turn(role="tool", tool="calculate", arguments={"expression": "2"}, ok=True, text="2")]
    shown = text(render_transcript(turns))
    assert "error: ZeroDivisionError: division by zero" in shown and "error: error" not in shown
    rows = transcript_rows(turns)
    assert rows[0][1].endswith("error: ZeroDivisionError: division by zero") and "error: error" not in rows[0][1]
    assert rows[1][1].endswith("ok: 2")


def test_the_judges_calls_do_not_count_as_the_samples_messages(tmp_path: Path) -> None:
    folder = make_suite(tmp_path, [{"id": "a", "question": "say 2", "answer": 2}])
    spec = folder / "suite.yaml"
    spec.write_text(spec.read_text().replace("scorers: [numeric]", "scorers: [judge]"))
    judge = scripted(tmp_path, ['{"grade": "C", "reasoning": "right"}'], "judge.json")
    run = harness.create_eval(harness.EvalArgs(suite=str(folder), model="scripted/echo", judge_model=judge,
                                               message_limit=1))
    results = asyncio.run(harness.run_eval(run))
    assert results.errors == {} and results.metrics["judge/accuracy"]["value"] == 1.0


def test_view_shows_tags_and_metadata(tmp_path: Path) -> None:
    samples = [make_sample("q1")]
    path = write_run(tmp_path / "run", samples, results_for(samples),
                     record={"tags": ["smoke", "ci"], "metadata": {"owner": "me", "ticket": "42"}})
    shown = text(summary(load_run(path)))
    assert re.search(r"tags\s+smoke, ci", shown) and re.search(r"metadata\s+owner=me, ticket=42", shown), shown
    html = write_report(load_run(path)).read_text(encoding="utf-8")
    assert "smoke, ci" in html and "owner=me, ticket=42" in html
