"""Audit regressions for the eval harness: hostile sample ids, data rows the loader must refuse, a samples
log that must accept any record, and an eval too large to build."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from paperworks.core.errors import UserError
from paperworks.eval import harness
from paperworks.eval.records import SampleRecord, folder_name
from paperworks.eval.samples_log import SamplesLog
from paperworks.eval.suite import load_suite
from tests.eval.test_harness import make_suite


def test_folder_name_keeps_plain_keys_and_confines_the_rest() -> None:
    assert folder_name("arith-001#1") == "arith-001#1"
    assert folder_name("mathd_algebra_10#3") == "mathd_algebra_10#3"
    hostile = ["../../x#1", "/etc/passwd#1", "a/b#1", "a\\b#1", "..#1", ".hidden#1", "a\x00b#1", "\n#1", "é#1"]
    names = [folder_name(k) for k in hostile]
    assert len(set(names)) == len(names)  # distinct keys keep distinct folders
    for name in names:
        assert "/" not in name and "\\" not in name and "\x00" not in name and not name.startswith(".")
        assert Path(name).name == name and name not in (".", "..")
    assert folder_name("a/b#1") != folder_name("a-b#1")  # no collision with the plain id it resembles


def test_a_sample_id_cannot_put_artifacts_outside_the_run(tmp_path: Path) -> None:
    """Sample ids come from the suite's data file; ``../../x`` or an absolute path used to become the
    artifact folder (``run/artifacts/<id>#<epoch>``) and the agent's tool context created it outside the run."""
    outside = tmp_path / "ABS"
    rows = [{"id": "../../../ESCAPED", "question": "q", "answer": 2},
            {"id": str(outside), "question": "q", "answer": 2}]
    suite = make_suite(tmp_path / "suites", rows)
    calc = {"text": "", "tool_calls": [{"name": "calculate", "arguments": {"expression": "1+1"}}]}
    (tmp_path / "m.json").write_text(json.dumps({"replies": [calc, "2"]}))
    logs = tmp_path / "logs" / "a" / "b"
    run = harness.create_eval(harness.EvalArgs(suite=str(suite), model=f"scripted/{tmp_path / 'm.json'}",
                                               log_dir=str(logs)))
    results = asyncio.run(harness.run_eval(run))
    assert results.metrics["numeric/accuracy"]["value"] == 1.0  # both samples ran the tool and answered 2
    assert not list(tmp_path.glob("ABS*")) and not list((tmp_path / "logs").rglob("ESCAPED*#1"))
    made = sorted(p.name for p in (run.path / "artifacts").iterdir())
    assert len(made) == 2 and all(Path(n).name == n for n in made), made
    records = SamplesLog(run.path / "samples.jsonl").read()
    assert sorted(r.id for r in records) == sorted(r["id"] for r in rows)  # the ids themselves are kept


@pytest.mark.parametrize(("line", "expected"), [
    ('{"id": "b", "question": "x", "answer": NaN}', "data.jsonl:2: invalid JSON (NaN is not a JSON value)"),
    ('{"id": "b", "question": "x", "answer": -Infinity}', "data.jsonl:2: invalid JSON (-Infinity is not a JSON"),
    ('{"id": "b", "question": "x", "answer": 1, "z": ' + "[" * 100_000 + "]" * 100_000 + "}",
     "data.jsonl:2: invalid JSON (nested too deeply)"),
    ('{"id": "b", "question": "x", "answer": ' + "9" * 5000 + "}", "data.jsonl:2: invalid JSON (Exceeds the limit"),
    ('{"id": "b", "question": "x", "answer": "\\ud800"}', "data.jsonl:2: invalid JSON (a lone UTF-16 surrogate"),
    ('{"id": "b", "question": "x", "answer": 1, "meta": ["\\udfff"]}', "a lone UTF-16 surrogate \\udfff"),
])
def test_rows_that_are_not_json_text_are_refused_with_their_line(tmp_path: Path, line: str, expected: str) -> None:
    """NaN/Infinity (not JSON: a NaN target silently fails every answer), nesting that overflows the
    parser, an integer too long to convert (both were 'internal error' lines) and lone surrogates (which
    crashed the eval mid-run when the sample's record was written) are one-line errors at load time."""
    folder = make_suite(tmp_path, [{"id": "a", "question": "x", "answer": 1}])
    with (folder / "data.jsonl").open("a") as fh:
        fh.write(line + "\n")
    with pytest.raises(UserError, match="data.jsonl:2") as exc:
        load_suite(str(folder))
    assert expected in str(exc.value) and "\n" not in str(exc.value)
    (folder / "data.jsonl").write_text(json.dumps({"id": "a", "question": "x", "answer": 1}) + "\n"
                                       + json.dumps({"id": "b", "question": "\U0001f600 x", "answer": 2}) + "\n")
    assert [s.input["task"] for s in load_suite(str(folder)).samples] == ["x", "\U0001f600 x"]  # a real astral char


def test_the_samples_log_takes_a_record_holding_a_lone_surrogate(tmp_path: Path) -> None:
    """A model's or tool's text may hold a lone surrogate; appending its record used to raise
    UnicodeEncodeError and end the whole eval. It is written escaped, as valid UTF-8 JSON."""
    log = SamplesLog(tmp_path / "samples.jsonl")
    log.append(SampleRecord(id="a", epoch=1, input={"task": "t"}, target=1, output={"answer": "x \ud800 y"}))
    log.append(SampleRecord(id="b", epoch=1, input={"task": "t"}, target=2, output={"answer": "é"}))
    text = (tmp_path / "samples.jsonl").read_bytes().decode("utf-8")
    assert len(text.splitlines()) == 2 and '"é"' in text  # the plain record stays unescaped
    records = {r.id: r for r in log.read()}
    assert records["a"].output == {"answer": "x \ud800 y"} and records["b"].output == {"answer": "é"}


def test_an_eval_too_large_to_hold_is_refused_before_anything_exists(tmp_path: Path) -> None:
    """``--epochs 100000000000`` built a list of 2e11 (sample, epoch) pairs and hung the process."""
    suite = make_suite(tmp_path, [{"id": "a", "question": "x", "answer": 1}, {"id": "b", "question": "y", "answer": 2}])
    logs = tmp_path / "logs"
    with pytest.raises(UserError, match=r"--epochs 100000000000 × 2 samples is 200,000,000,000 sample runs; "
                                        r"at most 1,000,000"):
        harness.create_eval(harness.EvalArgs(suite=str(suite), model="scripted/echo", epochs=100_000_000_000,
                                             log_dir=str(logs)))
    assert not logs.exists()
    run = harness.create_eval(harness.EvalArgs(suite=str(suite), model="scripted/echo", epochs=500_000,
                                               log_dir=str(logs)))
    assert run.read_record()["epochs"] == 500_000  # exactly at the cap is allowed
