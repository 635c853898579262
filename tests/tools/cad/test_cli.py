"""``paperworks cad check`` (the cad sub-command group, run through typer's test runner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paperworks.cli.cad_cmd import cad_app, parse_set

PROGRAM = '''import cadquery as cq

PARAMS = {"size": 10.0}


def build(p):
    return cq.Workplane().box(p["size"], p["size"], 2)
'''
TESTS = "def test_size(ctx):\n    assert ctx.size('part')[0] == 12, f\"size is {ctx.size('part')[0]}\"\n"


def test_parse_set() -> None:
    assert parse_set(["a=1", "b=2.5", "c=true", "d=hello"]) == {"a": 1, "b": 2.5, "c": True, "d": "hello"}


@pytest.mark.slow
def test_check_json_and_exit_codes(tmp_path: Path) -> None:
    prog = tmp_path / "plate.py"
    prog.write_text(PROGRAM)
    tests = tmp_path / "tests.py"
    tests.write_text(TESTS)
    runner = CliRunner()
    res = runner.invoke(cad_app, ["check", str(prog), "--tests", str(tests), "--set", "size=12", "--json",
                                  "--no-renders"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["ok"] and data["params"] == {"size": 12.0} and data["tests"][0]["passed"]
    assert Path(data["artifacts"]["step"]).parent == tmp_path / "plate_out"
    res = runner.invoke(cad_app, ["check", str(prog), "--tests", str(tests), "--out", str(tmp_path / "o")])
    assert res.exit_code == 1
    assert "FAILED" in res.output and "size is 10.0" in res.output and "render_iso" in res.output
    assert "shapes from: build(params)" in res.output
    assert "Traceback" not in res.output


def test_check_errors_are_one_line(tmp_path: Path) -> None:
    res = CliRunner().invoke(cad_app, ["check", str(tmp_path / "missing.py")])
    assert res.exit_code == 1 and "cannot read program" in res.output and "Traceback" not in res.output


def test_info_reports_cgroup_quota_and_verdict() -> None:
    res = CliRunner().invoke(cad_app, ["info"])
    assert res.exit_code == 0
    info = json.loads(res.output)
    assert info["memory_cgroup"] in ("v1", "v2", "none") and info["disk_quota"] and "judge" in info["verdict"]
    assert not any("forge its own verdict" in gap for gap in info["remaining"])
