"""The kitchen simulator, its judge and the policy sandbox: preconditions, safety rules, goals, and
that a policy's verdict comes from the judge's replay, never from what the policy reports."""

from __future__ import annotations

import pytest

from paperworks.tools.robot import sim
from paperworks.tools.robot.judge import judge
from paperworks.tools.robot.sandbox import run_policy
from paperworks.tools.robot.skeletons import SOURCES, program
from paperworks.tools.robot.tasks import make_tasks, validate


def run(k: sim.Kitchen, *calls: tuple[str, list[object]]) -> None:
    for name, args in calls:
        k.call(name, list(args))


def test_preconditions_raise_and_change_nothing() -> None:
    k = sim.Kitchen()
    with pytest.raises(sim.RobotError, match="robot is at the counter, not the fridge"):
        k.call("pick", ["cheese"])
    run(k, ("move_to", ["fridge"]))
    with pytest.raises(sim.RobotError, match="fridge is closed"):
        k.call("pick", ["cheese"])
    assert k.state["hand"] is None and k.state["objects"]["cheese"]["at"] == "fridge"
    run(k, ("open", ["fridge"]), ("pick", ["cheese"]))
    with pytest.raises(sim.RobotError, match="already holds cheese"):
        k.call("pick", ["egg"])
    with pytest.raises(sim.RobotError, match="unknown robot function"):
        k.call("teleport", [])


def test_kettle_water_and_safety_rules() -> None:
    k = sim.Kitchen()
    run(k, ("pick", ["kettle"]), ("move_to", ["sink"]), ("fill", [500]), ("move_to", ["counter"]),
        ("place", ["counter"]), ("turn_on", ["kettle"]), ("wait", [120]))
    kettle = k.state["objects"]["kettle"]
    assert (kettle["ml"], kettle["temp"], k.state["on"]["kettle"]) == (500, 100, False)  # boiled, switched off
    assert k.violations == []
    run(k, ("pick", ["kettle"]))  # hot, bare-handed
    assert k.violations == ["t=120: picked the hot kettle (100 C) without the oven mitt"]
    k2 = sim.Kitchen()
    run(k2, ("move_to", ["stove"]), ("turn_on", ["stove"]))
    k2.finish()
    assert [v.split(": ", 1)[1] for v in k2.violations] == ["turned the stove on with nothing on the burner",
                                                            "left the stove on"]


def test_pour_moves_liquid_and_mixes_temperature() -> None:
    state = sim.initial_state()
    state["objects"]["kettle"].update(ml=400, liquid="water", temp=100)
    state["objects"]["mug"].update(at="counter")
    k = sim.Kitchen(state)
    run(k, ("wear_mitt", []), ("pick", ["kettle"]), ("pour", ["mug", 200]))
    mug, kettle = k.state["objects"]["mug"], k.state["objects"]["kettle"]
    assert (mug["ml"], mug["liquid"], mug["temp"], kettle["ml"]) == (200, "water", 100, 200)
    run(k, ("pour", ["mug", 200]))  # 400 ml in a 350 ml mug: 50 ml spilled
    assert mug["ml"] == 350 and any("50 ml spilled" in v for v in k.violations)


def test_every_task_has_a_reference_plan_that_passes() -> None:
    tasks = make_tasks(60)
    assert len(tasks) == 60 and len({t.text for t in tasks}) == 60
    assert sum("composite" in t.tags for t in tasks) >= 20
    assert validate(tasks) == []
    assert {n for t in tasks for n, _ in t.plan} == set(SOURCES)


def test_judge_fails_wrong_unsafe_and_incomplete_plans() -> None:
    task = next(t for t in make_tasks(60) if t.text.startswith("Wash the mug and put it in the cabinet"))
    k = sim.Kitchen()
    ns: dict[str, object] = {}
    exec(program([("store_item", ["mug", "cabinet"])]), ns)  # noqa: S102 - our own reference code

    class Proxy:
        def __getattr__(self, name: str) -> object:
            return lambda *a: k.call(name, list(a))

    ns["main"](Proxy())  # type: ignore[operator]
    v = judge(k.log, task.goals)
    assert not v.passed and v.reason == "safety: t=0: stored the dirty mug in the cabinet"
    v = judge([["move_to", ["table"]], ["pick", ["mug"]]], task.goals)
    assert not v.passed and v.reason.startswith("goal not met: clean mug")
    v = judge([["pick", ["mug"]]], task.goals)
    assert not v.passed and "call 1 pick('mug',) failed" in v.reason


def test_sandboxed_policy_runs_and_the_judge_decides() -> None:
    task = make_tasks(60)[0]
    r = run_policy(program(task.plan))
    assert r.error is None and not r.timed_out and len(r.calls) > 3
    assert judge(r.calls, task.goals, task.state, r.error).passed


@pytest.mark.slow
@pytest.mark.parametrize(("code", "kind"), [
    ("def main(robot):\n    while True:\n        pass\n", "Timeout"),
    ("def main(robot:\n", "SyntaxError"),
    ("import os\ndef main(robot):\n    os._exit(3)\n", "Crashed"),
    ("import socket\ndef main(robot):\n    socket.create_connection(('10.0.0.1', 80))\n", "PermissionError"),
    ("def main(robot):\n    robot.fly()\n", "AttributeError"),
    ("x = 1\n", "NameError"),
])
def test_bad_policies_fail_with_a_reason(code: str, kind: str) -> None:
    r = run_policy(code, timeout_s=2)
    assert r.error is not None and r.error["type"] == kind, r.error
    assert not judge(r.calls, [["hand_empty"]], None, r.error).passed


def test_a_forged_log_is_only_replayed() -> None:
    """The policy writes its own 'log' claiming success and exits: the judge replays the calls in it."""
    forged = ('import json, os\ndef main(robot):\n    json.dump({"calls": [["pick", ["mug"]]], "error": None, '
              '"passed": True}, open("log.json", "w"))\n    os._exit(0)\n')
    r = run_policy(forged)
    v = judge(r.calls, [["at", "mug", "cabinet"]], None, r.error)
    assert not v.passed and "failed" in v.reason
