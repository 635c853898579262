"""The three FPS suites: every row loads and hides its reference from the workflow; ``paperworks eval``
without Lean skips ``rpe`` with one line and scores with ``symbolic_answer`` (labelled); with a Lean
stand-in installed, ``rpe`` judges in its own REPL pool and an oracle replay scores 100%, a wrong one 0%."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from paperworks.eval import harness
from paperworks.eval.suite import open_suite
from paperworks.tools.lean.scripted import Rule, ScriptedLean
from paperworks.workflows.dfps import lean as dfps_lean
from tests.conftest import ROOT, cli

SUITES = {"formal_math500": 387, "minif2f_solving": 375, "putnam_solving": 324}
ROWS = {r["id"]: r for r in map(json.loads, (ROOT / "evals" / "minif2f_solving" / "data.jsonl")
                                .read_text(encoding="utf-8").splitlines())}
IDS = ["amc12a_2015_10", "mathd_numbertheory_780", "aime1984_5"]  # answers 26 (ℤ), 43 (ℕ), 512 (ℝ)


@pytest.mark.parametrize("name", sorted(SUITES))
def test_suite_loads_every_row_and_hides_the_reference(name: str) -> None:
    suite = open_suite(name)
    assert len(suite.samples) == SUITES[name]
    assert len({s.id for s in suite.samples}) == SUITES[name]
    assert [s.name for s in suite.spec.scorers] == ["rpe", "symbolic_answer"]
    for sample in suite.samples:
        assert isinstance(sample.input, dict)
        assert set(sample.input) == {"informal_problem", "formal_answer_type", "intros", "outros", "header"}
        assert "answer" in str(sample.target) and sample.metadata["formal_answer_type"]
        flat = json.dumps(sample.input, ensure_ascii=False)
        assert str(sample.target) not in flat


@pytest.mark.skipif(not (ROOT.parent / "shared" / "data" / "fps").is_dir(), reason="no ../shared/data/fps here")
def test_suites_match_their_generator() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_fps_suites.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def _replay(tmp: Path, wrong: bool) -> str:
    """A scripted solver: for each row, a forward proof that submits the informal answer (or answer + 1)."""
    replies: list[dict[str, Any]] = []
    for rid in IDS:
        row = ROWS[rid]
        value = int(row["informal_answer"]) + (1 if wrong else 0)
        proof = (f"```lean4\nhave h_answer : answer = {value} := by\n  nlinarith\nexact h_answer -- submit\n```")
        snippet = row["informal_problem"][-60:]
        replies.append({"when": ["# Derived Answer", snippet], "text": "```lean4\nsubst h_submission\nnlinarith\n```"})
        replies.append({"when": snippet, "text": proof})
    path = tmp / ("wrong.json" if wrong else "oracle.json")
    path.write_text(json.dumps({"replies": replies}), encoding="utf-8")
    return f"scripted/{path}"


def _eval(tmp: Path, wrong: bool) -> tuple[dict[str, Any], Path]:
    run = harness.create_eval(harness.EvalArgs(suite="minif2f_solving", model=_replay(tmp, wrong), sample_ids=IDS,
                                               epochs=1, concurrency=2, log_dir=str(tmp / ("w" if wrong else "o"))))
    results = asyncio.run(harness.run_eval(run))
    assert results.errors == {}, results.errors
    return results.metrics, run.path


def test_without_lean_rpe_is_skipped_and_symbolic_scores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dfps_lean, "unavailable_reason", lambda: "no Lean here (test)")
    metrics, run_dir = _eval(tmp_path, wrong=False)
    assert json.loads((run_dir / "run.json").read_text())["skipped_scorers"] == {"rpe": "no Lean here (test)"}
    assert not any(k.startswith("rpe/") for k in metrics)
    assert metrics["symbolic_answer/accuracy"]["value"] == 1.0
    assert metrics["symbolic_answer/ne_submitted"]["value"] == 0.0
    for line in (run_dir / "samples.jsonl").read_text().splitlines():
        score = json.loads(line)["scores"]["symbolic_answer"]
        assert score["details"]["label"] == "symbolic, not Lean-verified"
        assert "not Lean-verified" in score["explanation"]
    metrics, _ = _eval(tmp_path, wrong=True)
    assert metrics["symbolic_answer/accuracy"]["value"] == 0.0
    assert metrics["symbolic_answer/ne_submitted"]["value"] == 1.0


def test_with_lean_rpe_judges_in_its_own_repl(tmp_path: Path) -> None:
    made: list[ScriptedLean] = []
    truth = {rid: ROWS[rid]["informal_answer"] for rid in IDS}

    def factory() -> ScriptedLean:
        # RPE commands close only for the true answers; every other command and tactic is accepted
        wrong = "|".join(str(int(v) + 1) for v in truth.values())
        repl = ScriptedLean(commands=[Rule(re.compile(rf"answer = \(\s*(?:{wrong}) :"), errors=("not equivalent",))])
        made.append(repl)
        return repl

    dfps_lean.set_repl_factory(factory)
    try:
        metrics, run_dir = _eval(tmp_path, wrong=False)
        assert metrics["rpe/accuracy"]["value"] == 1.0 and metrics["rpe/proven"]["value"] == 1.0
        assert metrics["symbolic_answer/accuracy"]["value"] == 1.0  # reported beside, under its own name
        record = json.loads((run_dir / "run.json").read_text())
        assert record["skipped_scorers"] == {}
        score = json.loads((run_dir / "samples.jsonl").read_text().splitlines()[0])["scores"]["rpe"]
        assert score["details"]["label"] == "Lean-verified (RPE)" and score["details"]["tactic"] == "rfl"
        # the judge's REPLs are not the solver's: the RPE statements ran only in judge REPLs
        judge_repls = [r for r in made if any("↔" in t for k, t in r.calls if k == "command")]
        solver_repls = [r for r in made if any(k == "tactic" for k, _ in r.calls)]
        assert judge_repls and solver_repls and not set(map(id, judge_repls)) & set(map(id, solver_repls))
        metrics, _ = _eval(tmp_path, wrong=True)
        assert metrics["rpe/accuracy"]["value"] == 0.0 and metrics["rpe/ne_submitted"]["value"] == 1.0
    finally:
        dfps_lean.set_repl_factory(None)


@pytest.mark.slow
def test_cli_says_rpe_is_skipped_without_lean(tmp_path: Path) -> None:
    model = _replay(tmp_path, wrong=False)
    proc = cli("eval", "minif2f_solving", "--model", model, "--sample-id", IDS[0], "--log-dir", str(tmp_path / "r"),
               "-q", env={"PATH": "/usr/bin:/bin", "PAPERWORKS_LEAN_PROJECT": ""}, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "symbolic_answer" in proc.stdout
    assert "scorer 'rpe' skipped" in proc.stderr  # even with -q: it changes what the figures mean
    proc = cli("eval", "minif2f_solving", "--model", model, "--sample-id", IDS[0], "--log-dir", str(tmp_path / "s"),
               env={"PATH": "/usr/bin:/bin", "PAPERWORKS_LEAN_PROJECT": ""}, timeout=300)
    said = (proc.stdout + proc.stderr).replace("\n", " ")  # the skip line is on stderr, shown even with -q
    assert "scorer 'rpe' skipped: no Lean here" in said, said[-2000:]
