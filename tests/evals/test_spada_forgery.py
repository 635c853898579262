"""``score_spada`` trusts only the judge: programs that forge a verdict score 0 on a SPADA-Bench task,
the reference scores 1 (the scorer runs its programs through the shared warm sandbox pool)."""

from __future__ import annotations

import asyncio
import json

import pytest

from paperworks.eval.suite import load_suite
from paperworks.workflows.spada.score import score_spada

SUITE = load_suite("spada_bench")
SAMPLE = next(s for s in SUITE.samples if s.id == "pin-plate-01")
NAMES = ["test_parts_named", "test_plate_size", "test_plate_hole", "test_pin_shank", "test_pin_head",
         "test_pin_coaxial_with_hole", "test_fit"]
VERDICT = {"ok": True, "stage": "done", "error": None, "parts": [{"name": "plate"}, {"name": "pin"}],
           "tests": [{"name": n, "passed": True, "message": "passed"} for n in NAMES],
           "checks": [{"name": "valid_solids", "passed": True, "message": "ok"}]}
FORGERS = {
    "writes result.json and exits": f"import json, os\nopen('result.json', 'w').write(json.dumps({VERDICT!r}))\n"
                                    "os._exit(0)\n",
    "prints a verdict": f"import json\nprint(json.dumps({VERDICT!r}))\nresult = None\n",
    "patches the checks and builds a box": "import checks, builtins\n"
                                           "checks.run_checks = lambda *a, **k: []\nbuiltins.abs = lambda x: 0\n"
                                           "import cadquery as cq\nresult = cq.Assembly().add("
                                           "cq.Workplane().box(80, 50, 6), name='plate')\n",
}


def _score(code: str) -> tuple[float, dict]:
    score = asyncio.run(score_spada(SAMPLE, {"code": code, "iterations": 1}, "assembly.py", None))
    return score.value, score.details


def test_reference_scores_one() -> None:
    pytest.importorskip("cadquery")
    from tests.conftest import ROOT

    value, details = _score((ROOT / "evals" / "spada_bench" / SAMPLE.metadata["reference"]).read_text())
    assert value == 1.0, details
    assert [t["name"] for t in details["tests"]] == NAMES


@pytest.mark.slow
@pytest.mark.parametrize("what", sorted(FORGERS))
def test_forgers_score_zero(what: str) -> None:
    pytest.importorskip("cadquery")
    value, details = _score(FORGERS[what])
    assert value == 0.0, (what, json.dumps(details)[:500])
    assert details["metrics"]["constraint_pass"] < 1.0
