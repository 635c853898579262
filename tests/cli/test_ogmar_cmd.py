"""``paperworks ogmar suite`` builds a suite from a survey file; ``ogmar suite`` and ``ogmar build`` refuse bad
input (a missing file, a bad mapping row, a bad flag value) in one line, before anything is created."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperworks.eval.suite import open_suite
from paperworks.workflows.ogmar.data import packaged_suite
from tests.conftest import cli

POP = packaged_suite() / "population"


def _one_error_line(proc: object) -> str:
    err = [line for line in getattr(proc, "stderr", "").splitlines() if line.strip()]
    assert getattr(proc, "returncode", None) == 1 and len(err) == 1 and err[0].startswith("error: "), err
    return err[0]


def test_suite_from_a_survey_file(tmp_path: Path) -> None:
    out = tmp_path / "my_survey"
    proc = cli("ogmar", "suite", "--data", str(POP / "train.csv"), "--mapping", str(POP / "mapping.yaml"),
               "--out", str(out), "--per-group", "2", "--questions", "2")
    assert proc.returncode == 0, proc.stderr
    counts = json.loads(proc.stdout.splitlines()[0])
    assert counts["questions"] == 6 * 2 * 2 and counts["heldout"] == 12 and counts["train"] == 1200 - 12
    suite = open_suite(str(out))
    assert suite.spec.workflow == "ogmar" and len(suite.samples) == 24
    assert set(suite.samples[0].input) == {"question", "choices", "respondent_id", "demographics"}


@pytest.mark.parametrize("case", ["missing_data", "bad_mapping_row", "bad_hide", "bad_group"])
def test_suite_refuses_bad_input_in_one_line(tmp_path: Path, case: str) -> None:
    data, mapping, extra = str(POP / "train.csv"), str(POP / "mapping.yaml"), []
    if case == "missing_data":
        data = str(tmp_path / "nope.csv")
    elif case == "bad_mapping_row":
        text = (POP / "mapping.yaml").read_text(encoding="utf-8")
        bad = tmp_path / "mapping.yaml"
        bad.write_text(text.replace("class: generalized_trust", "class: generalised_trust", 1), encoding="utf-8")
        mapping = str(bad)
    elif case == "bad_hide":
        extra = ["--hide", "both"]
    else:
        extra = ["--group-field", "continent"]
    out = tmp_path / "out"
    line = _one_error_line(cli("ogmar", "suite", "--data", data, "--mapping", mapping, "--out", str(out), *extra))
    assert not out.exists()
    expected = {"missing_data": "--data: no such file", "bad_mapping_row": "generalised_trust",
                "bad_hide": "--hide must be", "bad_group": "--group-field"}[case]
    assert expected in line


@pytest.mark.parametrize("args,expected", [
    (["--data", "nope_suite"], "unknown suite 'nope_suite'"),
    (["--data", "values_synth", "--pairs", "-1"], "--pairs must be"),
    (["--data", "values_synth", "--directions", "sideways"], "--directions must be"),
    (["--data", "values_synth", "--model", "scripted/nope.json"], "no script file"),
])
def test_build_refuses_bad_input_in_one_line(tmp_path: Path, args: list[str], expected: str) -> None:
    out = tmp_path / "built"
    line = _one_error_line(cli("ogmar", "build", *args, "--out", str(out), "--model", "scripted/echo")
                           if "--model" not in args else cli("ogmar", "build", *args, "--out", str(out)))
    assert expected in line and not out.exists()
