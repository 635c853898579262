"""The judge: replays a policy's call log on a fresh simulator and decides pass or fail.

It runs in the paperworks process on data only (a parsed, size-capped call log): the policy never ran
here and cannot reach this code. A task passes when every call succeeds on replay, no safety rule is
broken (during the episode or at its end) and every goal holds in the final state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from paperworks.tools.robot import sim


@dataclass
class Verdict:
    """The judge's decision on one episode."""

    passed: bool
    reason: str
    violations: list[str] = field(default_factory=list)
    failed_goals: list[str] = field(default_factory=list)
    calls: int = 0


def goal_holds(goal: list[Any], state: dict[str, Any]) -> bool:
    """Whether one goal predicate holds in ``state``. Predicates: ``[at, obj, place]``, ``[clean, obj]``,
    ``[dry, obj]``, ``[cut, obj]``, ``[trashed, obj]``, ``[closed, container]``,
    ``[liquid, vessel, kind, ml_min, ml_max]``, ``[hot, obj, min_c]``, ``[hand_empty]``."""
    objs = state["objects"]
    kind, args = goal[0], goal[1:]
    if kind == "at":
        return bool(objs[args[0]]["at"] == args[1])
    if kind in ("clean", "dry", "cut"):
        return bool(objs[args[0]][kind])
    if kind == "trashed":
        return args[0] in state["trashed"]
    if kind == "closed":
        return not state["open"][args[0]]
    if kind == "liquid":
        o = objs[args[0]]
        return bool(o["liquid"] == args[1] and args[2] <= o["ml"] <= args[3])
    if kind == "hot":
        return bool(objs[args[0]]["temp"] >= args[1])
    if kind == "hand_empty":
        return state["hand"] is None
    raise ValueError(f"unknown goal {goal!r}")


def describe(goal: list[Any]) -> str:
    return " ".join(str(g) for g in goal)


def judge(calls: list[list[Any]], goals: list[list[Any]], state: dict[str, Any] | None = None,
          policy_error: dict[str, Any] | None = None) -> Verdict:
    """Replay ``calls`` from ``state`` (default: the standard kitchen) and check ``goals``."""
    k = sim.Kitchen(state)
    for i, (name, args) in enumerate(calls):
        try:
            k.call(name, args)
        except sim.RobotError as exc:
            return Verdict(False, f"call {i + 1} {name}{tuple(args)} failed: {exc}", k.violations, calls=i + 1)
        except TypeError as exc:
            return Verdict(False, f"call {i + 1} {name}{tuple(args)}: bad arguments ({exc})", k.violations,
                           calls=i + 1)
    if policy_error is not None:
        where = f" (line {policy_error['line']})" if policy_error.get("line") else ""
        return Verdict(False, f"the policy stopped with {policy_error['type']}: {policy_error['message']}{where}",
                       k.violations, calls=len(calls))
    k.finish()
    failed = [describe(g) for g in goals if not goal_holds(g, k.state)]
    if k.violations:
        return Verdict(False, "safety: " + k.violations[0], k.violations, failed, len(calls))
    if failed:
        return Verdict(False, "goal not met: " + failed[0], k.violations, failed, len(calls))
    return Verdict(True, "all goals met, no safety rule broken", [], [], len(calls))
