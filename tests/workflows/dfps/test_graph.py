"""The ``dfps`` and ``fps`` workflows with scripted models: without Lean (unchecked submission), and with
the scripted Lean stand-in: the forward step loop, error feedback and repair, resampling, backward
verification with repair, banned tokens, the problem time limit, and the ``rpe`` scorer's own checks."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from paperworks.models.scripted import register_script
from paperworks.tools.lean.scripted import Rule, ScriptedLean
from paperworks.workflows import runner
from paperworks.workflows.dfps import lean as dfps_lean
from paperworks.workflows.registry import get_workflow
from tests.conftest import ROOT

ROW = json.loads((ROOT / "evals" / "minif2f_solving" / "data.jsonl").read_text(encoding="utf-8").splitlines()[1])
# "Integers x and y with x>y>0 satisfy x+y+xy=80. What is x?" answer 26 (ℤ)
INPUT = {k: ROW[k] for k in ("informal_problem", "formal_answer_type", "intros", "outros", "header")}

GOOD = ("```lean4\n-- factor\nhave h1 : (x + 1) * (y + 1) = 81 := by\n  nlinarith\n"
        "have h_answer : answer = 26 := by\n  omega\nexact h_answer -- submit\n```")
BAD_STEP = "```lean4\nhave h1 : x = 13 := by\n  linarith\nhave h_answer : answer = 13 := by omega\nexact h_answer\n```"


@pytest.fixture
def lean() -> Iterator[list[ScriptedLean]]:
    """Install a scripted Lean for the workflow (every REPL made is recorded)."""
    made: list[ScriptedLean] = []

    def factory(rules: tuple[Rule, ...] = ()) -> ScriptedLean:
        repl = ScriptedLean(tactics=rules)
        made.append(repl)
        return repl

    dfps_lean.set_repl_factory(factory)
    yield made
    dfps_lean.set_repl_factory(None)


def run(workflow: str, replies: list[Any], config: dict[str, Any] | None = None, script: str = "dfps"):  # type: ignore[no-untyped-def]
    spec = get_workflow(workflow)
    run_dir = runner.create_run(spec, INPUT, model=register_script(f"{script}-{workflow}", replies),
                                config_values=config)
    outcome = asyncio.run(runner.execute(run_dir, spec.make_state(spec.parse_input(INPUT))))
    return run_dir, outcome


def test_without_lean_submits_unchecked() -> None:
    run_dir, outcome = run("dfps", [GOOD], {"lean": "off"})
    out = outcome.output
    assert out["submission"] == "26" and out["lean"] is False
    assert out["forward_ok"] is None and out["backward_ok"] is None and out["status"] == "submitted_unchecked"
    report = json.loads((run_dir.path / "artifacts" / "report.json").read_text())
    assert report["demonstrations"] >= 1
    assert "exact h_answer" in (run_dir.path / "artifacts" / "solution.lean").read_text()


def test_without_lean_retries_until_a_submission_then_stops() -> None:
    _, outcome = run("dfps", ["I cannot do this."], {"lean": "off", "samples": 16, "samples_without_lean": 3})
    assert outcome.output["submission"] == "" and outcome.output["attempts"] == 3
    _, outcome = run("dfps", [GOOD], {"lean": "off", "samples_without_lean": 3}, script="b")
    assert outcome.output["submission"] == "26" and outcome.output["attempts"] == 1


def test_lean_on_without_lean_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from paperworks.core.errors import UserError

    monkeypatch.setattr(dfps_lean, "unavailable_reason", lambda: "no Lean here (test)")
    with pytest.raises(UserError, match="lean=on: no Lean here"):
        dfps_lean.use_lean("on")
    assert dfps_lean.use_lean("auto") is False and dfps_lean.use_lean("off") is False


def test_forward_backward_with_scripted_lean(lean: list[ScriptedLean]) -> None:
    backward = {"text": "```lean4\nsubst h_submission\nnlinarith\n```", "when": "# Derived Answer"}
    _, outcome = run("dfps", [backward, GOOD])
    out = outcome.output
    assert out["lean"] is True and out["forward_ok"] is True and out["submission"] == "26"
    assert out["backward_ok"] is True and out["status"] == "verified" and out["backward_tries"] == 1
    tactics = [t for repl in lean for kind, t in repl.calls if kind == "tactic"]
    assert any("have h1 : (x + 1) * (y + 1) = 81" in t for t in tactics)
    assert any(t.startswith("exact h_answer") for t in tactics)
    commands = [t for repl in lean for kind, t in repl.calls if kind == "command"]
    assert len(commands) == 1 and "(h_submission : answer = (26))" in commands[0]
    assert "subst h_submission" in commands[0] and "have h1" not in commands[0]


def test_rejected_step_feeds_back_and_repair_continues(lean: list[ScriptedLean]) -> None:
    def factory() -> ScriptedLean:
        repl = ScriptedLean(tactics=[Rule(re.compile(r"^have h1 : x = 13"), errors=("linarith failed",))])
        lean.append(repl)
        return repl

    dfps_lean.set_repl_factory(factory)
    replies = [{"text": "```lean4\nnlinarith\n```", "when": "# Derived Answer"},
               {"text": GOOD, "when": "linarith failed"}, BAD_STEP]
    _, outcome = run("dfps", replies, {"backward_tries": 1})
    assert outcome.output["forward_ok"] is True and outcome.output["submission"] == "26"
    assert outcome.output["repairs"] == 1


def test_attempts_resample_after_repairs_run_out(lean: list[ScriptedLean]) -> None:
    def factory() -> ScriptedLean:
        repl = ScriptedLean(tactics=[Rule(re.compile(r"x = 13"), errors=("no",))])
        lean.append(repl)
        return repl

    dfps_lean.set_repl_factory(factory)
    _, outcome = run("dfps", [BAD_STEP], {"max_repairs": 1, "samples": 3, "backward_tries": 1})
    assert outcome.output["attempts"] == 3 and outcome.output["forward_ok"] is False
    assert outcome.output["submission"] == "" and outcome.output["status"] == "no_submission"
    tactics = [t for repl in lean for kind, t in repl.calls if kind == "tactic" and "x = 13" in t]
    assert len(tactics) == 6  # 3 attempts, each the first try and one repair, each stopped at that step


def test_banned_token_never_reaches_lean(lean: list[ScriptedLean]) -> None:
    sneaky = "```lean4\nhave h_answer : answer = 26 := by sorry\nexact h_answer\n```"
    _, outcome = run("dfps", [sneaky], {"max_repairs": 0, "samples": 1})
    assert outcome.output["submission"] == ""
    tactics = [t for repl in lean for kind, t in repl.calls if kind == "tactic"]
    assert not any("sorry" in t for t in tactics)


def test_backward_repair_and_budget(lean: list[ScriptedLean]) -> None:
    def factory() -> ScriptedLean:
        repl = ScriptedLean(commands=[Rule(re.compile(r"wrong_tactic"), errors=("unknown tactic",))])
        lean.append(repl)
        return repl

    dfps_lean.set_repl_factory(factory)
    bad, good = "```lean4\nwrong_tactic\n```", "```lean4\nnlinarith\n```"
    _, outcome = run("dfps", [{"text": good, "when": "unknown tactic"}, {"text": bad, "when": "# Derived Answer"},
                              GOOD], {"backward_tries": 3})
    assert outcome.output["backward_ok"] is True and outcome.output["backward_tries"] == 2
    _, outcome = run("dfps", [{"text": bad, "when": "# Derived Answer"}, GOOD], {"backward_tries": 2}, script="d")
    assert outcome.output["backward_ok"] is False and outcome.output["backward_tries"] == 2
    assert outcome.output["status"] == "submitted"


def test_fps_single_shot(lean: list[ScriptedLean]) -> None:
    reply = "The answer is 26.\nAnswer: 26\n```lean4\nsubst h_submission\nnlinarith\n```"
    _, outcome = run("fps", [reply])
    assert outcome.output["submission"] == "26" and outcome.output["backward_ok"] is True
    _, outcome = run("fps", ["no answer line"], {"samples": 2}, script="e")
    assert outcome.output["submission"] == "" and outcome.output["attempts"] == 2


@pytest.mark.parametrize("text", ["set_option debug.skipKernelTC true in\n  exact h",
                                  "#eval IO.Process.run {cmd := \"sh\"}", "run_tac do pure ()",
                                  "axiom cheat : False", "exact sorry", "norm_num\n#exit"])
def test_unsafe_or_banned_text_is_refused(text: str) -> None:
    assert dfps_lean.banned_token(text, dfps_lean.BANNED) is not None
    assert dfps_lean.banned_token("nlinarith [sq_nonneg (x - 1)] -- sorry in a comment", dfps_lean.BANNED) is None


def test_tactic_timeout_and_problem_budget(lean: list[ScriptedLean]) -> None:
    """A step that times out is a rejected step (its error fed back); a problem whose Lean time runs out
    ends its forward check with a clear line instead of failing the run."""
    def slow() -> ScriptedLean:
        repl = ScriptedLean(tactics=[Rule(re.compile(r"nlinarith"), timeout=True, seconds=5)])
        lean.append(repl)
        return repl

    dfps_lean.set_repl_factory(slow)
    run_dir, outcome = run("dfps", [GOOD], {"max_repairs": 0, "samples": 1})
    assert outcome.output["forward_ok"] is False
    history = json.loads((run_dir.path / "artifacts" / "report.json").read_text())
    assert history["status"] == "no_submission"
    forward = [e for e in _history(run_dir) if e.get("phase") == "forward"]
    assert "timeout" in forward[0]["error"] and forward[0]["accepted"] == 0

    def budget() -> ScriptedLean:
        repl = ScriptedLean(tactics=[Rule(re.compile(r"nlinarith"), seconds=50)], problem_timeout_s=30)
        lean.append(repl)
        return repl

    dfps_lean.set_repl_factory(budget)
    run_dir, outcome = run("dfps", [GOOD], {"max_repairs": 0, "samples": 1}, script="t")
    assert outcome.status == "succeeded" and outcome.output["forward_ok"] is False
    forward = [e for e in _history(run_dir) if e.get("phase") == "forward"]
    assert "time limit" in forward[0]["error"]


def _history(run_dir: Any) -> list[dict[str, Any]]:
    from paperworks.core.events import read_events

    out: list[dict[str, Any]] = []
    for e in read_events(run_dir.events_path):
        if e["type"] == "node_end" and e.get("update"):
            out += e["update"].get("history") or []
    return out
