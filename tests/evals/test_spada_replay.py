"""SPADA-Bench through the eval harness with a scripted model that replays the reference solutions
(the suite scores 100%) or the mutants (0% on their tasks)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from paperworks.eval import harness
from tests.conftest import ROOT

SUITE = ROOT / "evals" / "spada_bench"
ROWS = [json.loads(line) for line in (SUITE / "data.jsonl").read_text().splitlines() if line.strip()]


def replay_model(tmp: Path, rows: list[dict], mutant: bool) -> str:
    """A script answering each task's code and repair prompts with its reference (or first mutant)."""
    replies: list[dict] = [{"when": "Reply with JSON only", "text": "{}"},
                           {"when": "You write tests for CadQuery", "text": "(no tests)"}]
    for row in rows:
        code = (SUITE / (row["mutants"][0] if mutant else row["reference"])).read_text()
        for role in ("You write CadQuery assembly programs", "You repair CadQuery"):
            replies.append({"when": [role, row["request"][:200]], "text": f"```python\n{code}\n```"})
    path = tmp / ("mutants.json" if mutant else "references.json")
    path.write_text(json.dumps({"replies": replies}))
    return f"scripted/{path}"


def _accuracy(tmp: Path, rows: list[dict], mutant: bool) -> tuple[float, dict]:
    run = harness.create_eval(harness.EvalArgs(
        suite="spada_bench", model=replay_model(tmp, rows, mutant), sample_ids=[r["id"] for r in rows],
        concurrency=2, log_dir=str(tmp / ("m" if mutant else "r"))))
    results = asyncio.run(harness.run_eval(run))
    assert results.errors == {}, results.errors
    return results.metrics["spada/accuracy"]["value"], results.metrics


@pytest.mark.slow
def test_replayed_references_pass_and_mutants_fail_on_three_tasks(tmp_path: Path) -> None:
    rows = [ROWS[0], ROWS[len(ROWS) // 2], ROWS[-1]]
    acc, metrics = _accuracy(tmp_path, rows, mutant=False)
    assert acc == 1.0 and metrics["spada/invalid"]["value"] == 0.0
    assert metrics["spada/iterations"]["value"] == 1.0
    acc, metrics = _accuracy(tmp_path, rows, mutant=True)
    assert acc == 0.0 and metrics["spada/constraint_pass"]["value"] < 1.0


@pytest.mark.slow
def test_whole_suite_replayed(tmp_path: Path) -> None:
    assert _accuracy(tmp_path, ROWS, mutant=False)[0] == 1.0
    assert _accuracy(tmp_path, ROWS, mutant=True)[0] == 0.0
