"""SPADA's graded sub-metrics ``compiled`` and ``loaded`` (what ``paperworks train --shaping`` may add to
the reward) come from the sandbox and the judge, not from what a program claims about itself."""

from __future__ import annotations

import asyncio
import json

import pytest

from paperworks.eval.suite import load_suite
from paperworks.workflows.spada.score import progress, score_spada

SAMPLE = next(s for s in load_suite("spada_bench").samples if s.id == "pin-plate-01")
FAKE_BUILD = ("import json, os\nopen('part_000.brep', 'w').write('not geometry')\n"
              "open('manifest.json', 'w').write(json.dumps({'stage': 'built', 'parts': "
              "[{'name': 'plate', 'file': 'part_000.brep'}, {'name': 'pin', 'file': 'part_000.brep'}]}))\n"
              "os._exit(0)\n")


def _metrics(code: str) -> tuple[float, dict[str, float], str]:
    score = asyncio.run(score_spada(SAMPLE, {"code": code, "iterations": 1}, "assembly.py", None))
    return score.value, score.details["metrics"], json.dumps(score.details)[:400]


@pytest.mark.parametrize("result, expected", [
    ({"stage": "compile", "error": "line 3: SyntaxError"}, (0.0, 0.0)),
    ({"stage": "timeout", "error": "timed out after 60 s (wall clock) during compile"}, (0.0, 0.0)),
    ({"stage": "timeout", "error": "timed out after 60 s (wall clock) during build"}, (1.0, 0.0)),
    ({"stage": "build", "error": "AttributeError"}, (1.0, 0.0)),
    ({"stage": "load", "error": "not a BREP", "parts": []}, (1.0, 0.0)),
    ({"stage": "checks", "error": "stopped", "parts": []}, (1.0, 0.0)),
    ({"stage": "done", "parts": [{"name": "plate"}]}, (1.0, 1.0)),
    ({"stage": "tests", "error": "tests crashed", "parts": [{"name": "plate"}]}, (1.0, 1.0)),
])
def test_progress_of_a_sandbox_result(result: dict, expected: tuple[float, float]) -> None:
    got = progress(result)
    assert (got["compiled"], got["loaded"]) == expected


@pytest.mark.parametrize("what, code, expected", [
    ("syntax error", "import cadquery as cq\nresult = cq.Assembly(\n", (0.0, 0.0)),
    ("runtime error", "import cadquery as cq\nresult = cq.Assembly().nosuch()\n", (1.0, 0.0)),
    ("forged build manifest", FAKE_BUILD, (1.0, 0.0)),
    ("a plate only", "import cadquery as cq\nresult = cq.Assembly().add(cq.Workplane().box(80, 50, 6), "
                     "name='plate')\n", (1.0, 1.0)),
])
def test_the_scorer_reports_how_far_a_program_got(what: str, code: str, expected: tuple[float, float]) -> None:
    pytest.importorskip("cadquery")
    value, metrics, details = _metrics(code)
    assert value == 0.0, (what, details)
    assert (metrics["compiled"], metrics["loaded"]) == expected, (what, details)
    assert set(metrics) == set(score_spada.metrics)  # type: ignore[attr-defined]
