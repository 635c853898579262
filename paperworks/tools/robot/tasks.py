"""The kitchen benchmark: tasks in plain words, each with goal predicates the judge checks and the
reference plan (calls of the environment's skeletons) that solves it.

Tasks are generated from templates with a seed (``make_tasks``): single subtasks and compositions of
two ("..., then ..."). Every reference plan passes the judge (checked by ``validate`` and a test).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

ALIASES = {"cup_red": "red cup", "cup_blue": "blue cup"}
"""How an object is named in a task's words (default: the name itself)."""


def say(obj: str) -> str:
    return ALIASES.get(obj, obj)


@dataclass
class Task:
    """One benchmark task."""

    id: str
    text: str
    goals: list[list[Any]]
    plan: list[tuple[str, list[Any]]]
    """The reference solution: skeleton calls in order (never shown to a method)."""
    state: dict[str, Any] | None = None
    """The starting kitchen (None: the standard one)."""
    tags: list[str] = field(default_factory=list)


Sub = tuple[str, list[list[Any]], list[tuple[str, list[Any]]], set[str]]
"""(words, goals, plan, objects touched)."""


def _subtasks(rng: random.Random) -> list[Sub]:
    subs: list[Sub] = []
    for item, place in [("glass", "cabinet"), ("plate", "dishwasher"), ("apple", "fridge"), ("bread", "fridge"),
                        ("cup_blue", "dishwasher"), ("cheese", "cabinet"), ("carrot", "cabinet"), ("glass", "fridge")]:
        subs.append((f"put the {say(item)} in the {place}", [["at", item, place], ["closed", place]],
                     [("store_item", [item, place])], {item}))
    for item, place in [("mug", "cabinet"), ("bowl", "cabinet"), ("plate", "cabinet"), ("cup_blue", "cabinet"),
                        ("mug", "shelf")]:
        subs.append((f"wash the {say(item)} and put it in the {place}",
                     [["clean", item], ["dry", item], ["at", item, place]],
                     [("wash_item", [item]), ("store_item" if place == "cabinet" else "serve_item", [item, place])],
                     {item}))
    for vessel in ("mug", "cup_red", "glass", "bowl"):
        cap = {"mug": 350, "cup_red": 250, "glass": 300, "bowl": 500}[vessel]
        ml = rng.choice([m for m in (150, 200, 250, 300) if m <= cap])
        boil = rng.choice([b for b in (400, 500, 600, 800, 1000) if b >= ml + 100])
        subs.append((f"boil {boil} ml of water and pour {ml} ml into the {say(vessel)}",
                     [["liquid", vessel, "water", ml, ml], ["hot", vessel, 70]],
                     [("boil_water", [boil]), ("pour_hot_water", [vessel, ml])], {vessel, "kettle"}))
    for item, secs in [("bread", 30), ("cheese", 20), ("bowl", 45), ("milk", 40), ("carrot", 60)]:
        subs.append((f"warm the {say(item)} for {secs} seconds in the microwave, to be served at the table",
                     [["at", item, "table"], ["hot", item, (5 if item == "milk" else 20) + secs],
                      ["closed", "microwave"]],
                     [("warm_in_microwave", [item, secs])], {item}))
    for food in ("apple", "bread", "carrot", "cheese"):
        subs.append((f"slice the {food}", [["cut", food], ["closed", "fridge"]], [("slice_food", [food])], {food}))
    for food in ("apple", "bread", "egg"):
        subs.append((f"throw the {food} away", [["trashed", food]], [("discard_food", [food])], {food}))
    for item, place in [("cup_red", "table"), ("egg", "counter"), ("plate", "table"), ("bowl", "counter")]:
        subs.append((f"bring the {say(item)} to the {place}", [["at", item, place]], [("serve_item", [item, place])],
                     {item}))
    for vessel in ("glass", "cup_blue", "mug", "bowl"):
        ml = rng.choice((100, 150, 200))
        subs.append((f"pour {ml} ml of milk into the {say(vessel)}",
                     [["liquid", vessel, "milk", ml, ml], ["at", "milk", "fridge"], ["closed", "fridge"]],
                     [("pour_milk", [vessel, ml])], {vessel, "milk"}))
    return subs


def clauses(text: str) -> list[str]:
    """A task's clauses (split at ", then " and " and "): by the benchmark's convention each is one
    skeleton call of the reference plan."""
    import re

    parts = re.split(r",\s*then\s+|\s+and\s+", text.strip().rstrip("."))
    return [p.strip() for p in parts if p.strip()]


def _sentence(words: str) -> str:
    return words[0].upper() + words[1:] + "."


def make_tasks(n: int = 60, seed: int = 0) -> list[Task]:
    """``n`` tasks: every single subtask once, then two-step compositions on disjoint objects."""
    rng = random.Random(seed)
    subs = _subtasks(rng)
    tasks = [Task(f"k{i:03d}", _sentence(w), g, p, tags=["single"]) for i, (w, g, p, _) in enumerate(subs)]
    seen = set()
    while len(tasks) < n:
        a, b = rng.sample(range(len(subs)), 2)
        if (a, b) in seen or subs[a][3] & subs[b][3]:
            continue
        seen.add((a, b))
        wa, ga, pa, _ = subs[a]
        wb, gb, pb, _ = subs[b]
        tasks.append(Task(f"k{len(tasks):03d}", _sentence(f"{wa}, then {wb}"), ga + gb, pa + pb, tags=["composite"]))
    return tasks[:n]


def validate(tasks: list[Task]) -> list[str]:
    """Task ids whose reference plan fails the judge (simulated in-process: it is our own code)."""
    from paperworks.tools.robot import sim
    from paperworks.tools.robot.judge import judge
    from paperworks.tools.robot.skeletons import program

    bad = []
    for t in tasks:
        k = sim.Kitchen(t.state)

        class Proxy:
            def __init__(self, kitchen: sim.Kitchen) -> None:
                self.kitchen = kitchen

            def __getattr__(self, name: str) -> Any:
                return lambda *a: self.kitchen.call(name, list(a))

        ns: dict[str, Any] = {}
        exec(program(t.plan), ns)  # noqa: S102 - the environment's own reference code, not a model's
        try:
            ns["main"](Proxy(k))
        except sim.RobotError:
            bad.append(t.id)
            continue
        if not judge(k.log, t.goals, t.state).passed:
            bad.append(t.id)
    return bad
