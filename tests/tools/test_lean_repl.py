"""The real subprocess driver (``SubprocessRepl``) against a fake ``repl`` executable that speaks the
leanprover-community/repl protocol: steps, errors, timeouts per tactic and per problem, crashes with
restart and replay, header failures, the child's environment."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from paperworks.core.errors import LimitExceeded
from paperworks.tools.lean import DfpsSession, FpsProblem, LeanError, ProofState, Submission, SubprocessRepl
from tests.fixtures.lean.helpers import (
    FFX_ROW,
    H_MP,
    SOLVING_GOAL,
    W,
    alive,
    fake_repl,
    ffx,
    requests,
    setup_rules,
)

START = {"match": "h_submission : Prop", "sorries": [SOLVING_GOAL]}
H1 = "have h1 : f 1 = -2 := by norm_num [h_f_def]"
H2 = "have h2 : f (-2) = 7 := by norm_num [h_f_def]"


def make(tmp_path: Path, tactics: dict[str, Any] | None = None, commands: list[dict[str, Any]] | None = None,
         name: str = "repl", **options: Any) -> tuple[SubprocessRepl, Path]:
    config = {"commands": [*(commands or []), START], "tactics": {**setup_rules(), **(tactics or {})},
              "stderr": "fake repl: warming up"}
    cmd, log = fake_repl(tmp_path, config, name)
    options.setdefault("tactic_timeout_s", 10.0)
    return SubprocessRepl(cmd, **options), log


def pids(log: Path) -> list[int]:
    return list(dict.fromkeys(r["pid"] for r in requests(log)))


def test_forward_steps_submission_and_backward(tmp_path: Path) -> None:
    repl, log = make(tmp_path, {"linarith [h_submission, h_f_def]": {"close": True}})
    with repl:
        session = DfpsSession(repl, ffx())
        assert session.forward_context == ffx().forward_context()
        assert session.state.goals == (H_MP, session.state.goals[1], W)
        assert session.step(H1).ok
        assert session.step("have h_answer : answer = 7 := by norm_num [h1]").ok
        sub = session.step("exact h_answer -- submit")
        assert sub.ok and session.phase == "backward" and session.submission == Submission("answer = 7", "7")
        assert session.goals[0].splitlines()[-2:] == ["h_submission : answer = 7", "⊢ f (f 1) = answer"]
        done = session.step("linarith [h_submission, h_f_def]")
        assert done.ok and session.solved and done.goals == (W,)  # only the assigned answer slot is left
    sent = [r.get("tactic") or r["cmd"].splitlines()[0] for r in requests(log)]
    # the preamble is a command of its own, so its scoped notations are active in tactic mode
    assert sent[:3] == ["import Mathlib", "open BigOperators Real Nat Topology Rat", "example :"]
    assert requests(log)[2]["env"] == requests(log)[1]["env"] + 1 and "open" not in requests(log)[2]["cmd"]
    assert sent[3:8] == ffx().forward_setup()
    assert sent[-3:] == ["exact h_answer -- submit", "intro h_submission", "linarith [h_submission, h_f_def]"]


def test_errors_are_one_line_and_leave_the_state_usable(tmp_path: Path) -> None:
    error_msg = [{"severity": "error", "pos": {"line": 1, "column": 30}, "data": "linarith failed\nto find"}]
    info_msg = [{"severity": "info", "pos": {"line": 1, "column": 0}, "data": "Try this: ring"}]
    repl, _ = make(tmp_path, {"bad": {"error": "<input>:1:4: unknown identifier 'foo'\nmore"},
                              "logged": {"goals": ["⊢ x"], "messages": error_msg},
                              "chatty": {"goals": ["⊢ y"], "messages": info_msg}})
    with repl:
        state = repl.start(ffx())
        bad = repl.run_tactic(state, "bad")
        assert not bad.ok and bad.state is None and bad.errors == ("<input>:1:4: unknown identifier 'foo' more",)
        logged = repl.run_tactic(state, "logged")
        assert not logged.ok and logged.errors == ("1:30: linarith failed to find",)
        chatty = repl.run_tactic(state, "chatty")
        assert chatty.ok and chatty.messages[0].text == "Try this: ring" and chatty.goals == ("⊢ y",)
        again = repl.run_tactic(state, H1)
        assert again.ok and "h1 : f 1 = -2" in again.goals[0]
        with pytest.raises(LeanError, match="unknown proof state 999"):
            repl.run_tactic(ProofState(999, ()), "simp")


def test_a_statement_that_does_not_elaborate(tmp_path: Path) -> None:
    msg = [{"severity": "error", "pos": {"line": 3, "column": 7}, "data": "unknown identifier 'Nat.foo'"}]
    repl, _ = make(tmp_path, commands=[{"match": "Nat.foo", "messages": msg, "sorries": []}])
    with repl, pytest.raises(LeanError) as err:
        repl.start_goal("example : Nat.foo := by sorry", label="p7")
    assert str(err.value) == "p7: the statement does not elaborate: 3:7: unknown identifier 'Nat.foo'"


def test_tactic_timeout_kills_restarts_and_replays(tmp_path: Path) -> None:
    repl, log = make(tmp_path, {"slow_tactic": {"hang": True}}, tactic_timeout_s=1.0)
    with repl:
        state = repl.start(ffx())
        s1 = repl.run_tactic(state, H1)
        assert s1.state is not None
        first = pids(log)[0]
        t0 = time.monotonic()
        slow = repl.run_tactic(s1.state, "slow_tactic")
        assert slow.timed_out and not slow.ok and time.monotonic() - t0 < 5
        assert slow.errors == ("timeout: Lean ran past 1 s (the REPL was restarted)",)
        assert not alive(first)
        s2 = repl.run_tactic(s1.state, H2)  # the old state, in a new process
        assert s2.ok and s2.goals[0].endswith("h1 : f 1 = -2\nh2 : f (-2) = 7\n⊢ ?w")
        assert repl.restarts == 1
    second = [r for r in requests(log) if r["pid"] == pids(log)[1]]
    replayed = [r.get("tactic") or r["cmd"].splitlines()[0] for r in second]
    assert replayed == ["import Mathlib", "open BigOperators Real Nat Topology Rat", "example :",
                        *ffx().forward_setup(), H1, H2]


def test_problem_budget_spans_its_tactics(tmp_path: Path) -> None:
    steps = [f"have s{i} : True := trivial" for i in range(4)]
    repl, _ = make(tmp_path, {s: {"sleep": 0.6} for s in steps}, problem_timeout_s=1.5)
    with repl:
        state = repl.start(ffx())
        for s in steps[:2]:
            r = repl.run_tactic(state, s)
            assert r.ok
            state = r.state  # type: ignore[assignment]
        with pytest.raises(LimitExceeded, match="ran out during a request") as err:
            repl.run_tactic(state, steps[2])
        assert err.value.kind == "time"
        with pytest.raises(LimitExceeded, match="is used up"):
            repl.run_tactic(state, steps[3])
        assert repl.time_spent("ffx") >= 1.5
        other = FpsProblem.from_row(FFX_ROW, id="other")
        assert repl.start(other).goals[0] == H_MP  # another problem has its own budget


def test_crash_mid_problem_restarts_and_replays_to_the_same_state(tmp_path: Path) -> None:
    clean, _ = make(tmp_path, name="clean")
    with clean:
        s = clean.start(ffx())
        want = clean.run_tactic(clean.run_tactic(s, H1).state, H2)  # type: ignore[arg-type]
    marker = tmp_path / "crashed-once"
    repl, log = make(tmp_path, {H2: {"crash_once": str(marker)}})
    with repl:
        state = repl.start(ffx())
        s1 = repl.run_tactic(state, H1)
        got = repl.run_tactic(s1.state, H2)  # type: ignore[arg-type]
        assert marker.exists() and repl.restarts == 1
        assert got.ok and got.goals == want.goals
        assert repl.run_tactic(got.state, "have h3 : True := trivial").ok  # type: ignore[arg-type]
    assert len(pids(log)) == 2
    second = [r.get("tactic") for r in requests(log) if r["pid"] == pids(log)[1] and "tactic" in r]
    assert second[:-1] == [*ffx().forward_setup(), H1, H2]


def test_a_tactic_that_always_crashes(tmp_path: Path) -> None:
    repl, log = make(tmp_path, {"boom": {"crash": True}}, crash_retries=1)
    with repl:
        state = repl.start(ffx())
        r = repl.run_tactic(state, "boom")
        assert not r.ok and r.state is None
        assert r.errors == ("Lean REPL crashed on this request: the Lean REPL exited with status 3: "
                            "INTERNAL PANIC: fake repl crashed on purpose",)
        assert repl.run_tactic(state, H1).ok
        assert repl.restarts == 2
    assert sum(1 for q in requests(log) if q.get("tactic") == "boom") == 2


def test_replay_that_diverges_is_an_error(tmp_path: Path) -> None:
    flip = tmp_path / "flip"
    repl, _ = make(tmp_path, {H1: {"goals": ["⊢ one"], "alt_goals": ["⊢ other"], "alt_goals_if": str(flip)},
                              "slow_tactic": {"hang": True}}, tactic_timeout_s=1.0)
    with repl:
        s1 = repl.run_tactic(repl.start(ffx()), H1)
        flip.write_text("x")
        assert repl.run_tactic(s1.state, "slow_tactic").timed_out  # type: ignore[arg-type]
        with pytest.raises(LeanError, match="replaying proof state .* gave a different state"):
            repl.run_tactic(s1.state, "simp")  # type: ignore[arg-type]


def test_command_timeout_and_restart(tmp_path: Path) -> None:
    repl, log = make(tmp_path, commands=[{"match": "slow_command", "hang": True}])
    with repl:
        r = repl.run_command("example : slow_command := by sorry", timeout_s=1.0)
        assert r.timed_out and not r.ok and r.errors[0].startswith("timeout")
        ok = repl.run_command("example : True := trivial")
        assert ok.proved and repl.restarts == 1
        s = repl.run_command("example : True := by sorry")
        assert s.ok and not s.proved and s.sorries == ("⊢ False",)
    assert [r["cmd"] for r in requests(log)].count("import Mathlib\nimport Aesop\nset_option maxHeartbeats 400000") == 2


def test_header_failures_and_unstartable_binaries(tmp_path: Path) -> None:
    cmd, _ = fake_repl(tmp_path, {"header_error": "unknown module prefix 'Mathlib'\nNo directory 'Mathlib'"})
    with SubprocessRepl(cmd) as repl, pytest.raises(LeanError) as err:
        repl.run_command("example : True := trivial")
    text = str(err.value)
    assert "header" in text and "unknown module prefix 'Mathlib'" in text and "\n" not in text
    with pytest.raises(LeanError, match="cannot start the Lean REPL `/nonexistent/repl`"):
        SubprocessRepl(["/nonexistent/repl"]).run_command("x")
    with pytest.raises(LeanError, match="failed while loading the header: the Lean REPL exited with status 1"):
        SubprocessRepl(["false"]).run_command("x")


def test_no_header_and_the_childs_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("LEAN_PATH", "/some/lean/path")
    dump = tmp_path / "env.json"
    cmd, log = fake_repl(tmp_path, {"env_dump": str(dump)})
    with SubprocessRepl(cmd, header="", env={"EXTRA": "1"}) as repl:
        assert repl.run_command("example : True := trivial").proved
    env = json.loads(dump.read_text())
    assert "OPENAI_API_KEY" not in env and env["LEAN_PATH"] == "/some/lean/path" and env["EXTRA"] == "1"
    assert requests(log)[0] == {"pid": requests(log)[0]["pid"], "cmd": "example : True := trivial"}


def test_close_ends_the_process(tmp_path: Path) -> None:
    repl, log = make(tmp_path)
    repl.run_command("example : True := trivial")
    pid = pids(log)[0]
    assert alive(pid)
    repl.close()
    assert not alive(pid)
    with pytest.raises(LeanError, match="closed"):
        repl.run_command("example : True := trivial")


def test_preambles_are_cached_commands_and_their_errors_are_one_line(tmp_path: Path) -> None:
    msg = [{"severity": "error", "pos": {"line": 1, "column": 5}, "data": "unknown namespace 'Nope'"}]
    repl, log = make(tmp_path, commands=[{"match": "^open Nope", "messages": msg, "sorries": []}])
    with repl:
        for _ in range(2):
            assert repl.start_goal("example : True := by sorry", preamble="open Real").goals == ("⊢ False",)
        with pytest.raises(LeanError) as err:
            repl.start_goal("example : True := by sorry", preamble="open Nope")
        assert str(err.value) == "the preamble `open Nope` failed: 1:5: unknown namespace 'Nope'"
    assert [r["cmd"] for r in requests(log)].count("open Real") == 1
