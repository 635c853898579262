"""The SPADA workflow with scripted models: pass first time, repair from failures, budget spent,
and parameter edits without a model call. The programs run in the CAD sandbox."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from paperworks.models.scripted import register_script
from paperworks.workflows import runner
from paperworks.workflows.registry import get_workflow
from tests.conftest import cli

GOOD = '''```python
import cadquery as cq

PARAMS = {"base_w": 40.0, "base_h": 5.0, "post_d": 10.0, "post_h": 20.0}


def build(p):
    base = cq.Workplane().box(p["base_w"], p["base_w"], p["base_h"])
    post = cq.Workplane().cylinder(p["post_h"], p["post_d"] / 2)
    assy = cq.Assembly()
    assy.add(base, name="base")
    assy.add(post, name="post", loc=cq.Location(cq.Vector(0, 0, p["base_h"] / 2 + p["post_h"] / 2)))
    return assy


result = build(PARAMS)
```'''
OVERLAP = GOOD.replace('p["base_h"] / 2 + p["post_h"] / 2', 'p["post_h"] / 2 - 3')
TESTS = '''```python
def test_base_width(ctx):
    b = ctx.bbox("base")
    assert abs((b[3] - b[0]) - 40) < 0.01, f"base is {b[3] - b[0]:.2f} mm wide, expected 40"


def test_post_on_base(ctx):
    assert ctx.interference("base", "post") < 1e-3, "post overlaps the base"
```'''
SPEC = '{"parts": [{"name": "base"}, {"name": "post"}], "parameters": [], "interfaces": [], "constraints": []}'


def _script(name: str, first_code: str, repaired: str) -> str:
    return register_script(name, [
        {"when": "Reply with JSON only", "text": SPEC},
        {"when": "You write CadQuery assembly programs", "text": first_code},
        {"when": "You write tests for CadQuery", "text": TESTS},
        {"when": "You repair CadQuery", "text": repaired},
    ])


def _run(model: str, **config):  # type: ignore[no-untyped-def]
    spec = get_workflow("spada")
    request = "A 40 mm square base plate, 5 mm thick, with a 10 mm post 20 mm tall standing on it."
    run = runner.create_run(spec, request, model=model, config_values=config)
    return run, asyncio.run(runner.execute(run, spec.make_state(spec.parse_input(request))))


@pytest.mark.slow
def test_passes_first_time_with_artifacts() -> None:
    run, outcome = _run(_script("spada-good", GOOD, GOOD))
    assert outcome.status == "succeeded", outcome.error
    assert outcome.output["ok"] and outcome.output["iterations"] == 1
    art = run.path / "artifacts"
    for name in ("assembly.py", "tests.py", "spec.json", "report.json", "iter_1/result.json"):
        assert (art / name).is_file(), name
    result = json.loads((art / "iter_1/result.json").read_text())
    assert Path(result["artifacts"]["step"]).is_file()
    assert Path(result["artifacts"]["render_iso"]).read_bytes()[:4] == b"\x89PNG"
    report = json.loads((art / "report.json").read_text())
    assert report["ok"] and report["history"][0]["tests_passed"] == 2


def test_repairs_from_failures() -> None:
    run, outcome = _run(_script("spada-repair", OVERLAP, GOOD))
    assert outcome.status == "succeeded", outcome.error
    assert outcome.output["ok"] and outcome.output["iterations"] == 2
    history = json.loads((run.path / "artifacts/report.json").read_text())["history"]
    assert not history[0]["ok"] and any("overlaps" in f for f in history[0]["failures"])
    assert history[1]["ok"]


def test_budget_spent_when_never_fixed() -> None:
    _, outcome = _run(_script("spada-stuck", OVERLAP, OVERLAP), max_iterations=2)
    assert outcome.status == "succeeded"  # the workflow ran to its end; the design did not pass
    assert outcome.output["status"] == "budget_spent" and not outcome.output["ok"]
    assert outcome.output["iterations"] == 2


def test_crashing_program_is_contained() -> None:
    crash = "```python\nimport cadquery as cq\nPARAMS = {}\ndef build(p):\n    return undefined_name\n```"
    _, outcome = _run(_script("spada-crash", crash, crash), max_iterations=1)
    assert not outcome.output["ok"]


@pytest.mark.slow
def test_edit_reruns_tests_with_new_parameters_without_a_model() -> None:
    run, outcome = _run(_script("spada-edit", GOOD, GOOD))
    assert outcome.output["ok"]
    same = cli("run", "spada", "--edit", run.id, "--set", "post_h=30")
    assert same.returncode == 0, same.stdout + same.stderr
    wider = cli("run", "spada", "--edit", str(run.path), "--set", "base_w=50")
    assert wider.returncode == 1 and "expected 40" in wider.stdout + wider.stderr
    bad = cli("run", "agent", "--edit", run.id, "--set", "x=1")
    assert bad.returncode == 1 and "not 'agent'" in bad.stderr


def test_a_forged_verdict_does_not_end_the_loop() -> None:
    """A program that writes its own passing result.json and exits never counts as passing."""
    forger = ("```python\nimport json, os\nopen('result.json', 'w').write(json.dumps({'stage': 'done', 'ok': True, "
              "'error': None, 'tests': [], 'checks': []}))\nos._exit(0)\n```")
    _, outcome = _run(_script("spada-forger", forger, forger), max_iterations=2)
    assert not outcome.output["ok"] and outcome.output["iterations"] == 2
    assert "before its geometry was written" in outcome.output["answer"]
