'''The environment's reference functions: function-level policy skeletons for the kitchen robot.

Each is plain Python over the robot API (``sim.API``), self-contained (it calls no other skeleton),
with typed parameters (``PARAMS``: ``item``, ``food``, ``vessel``, ``place``, ``ml``, ``seconds``).
FCGraft's library is built from these after each one passes its validation episodes in the sandbox.
'''

from __future__ import annotations

import json

FETCH = '''    spot = robot.where({x})
    robot.move_to(spot)
    if spot in ("fridge", "cabinet", "dishwasher", "microwave") and not robot.is_open(spot):
        robot.open(spot)
        robot.pick({x})
        robot.close(spot)
    else:
        robot.pick({x})
'''

SOURCES: dict[str, str] = {
    "store_item": '''def store_item(robot, item, place):
    """Put (store) the item in the cabinet, fridge or dishwasher and close the door."""
''' + FETCH.format(x="item") + '''    robot.move_to(place)
    robot.open(place)
    robot.place(place)
    robot.close(place)
''',
    "wash_item": '''def wash_item(robot, item):
    """Wash the item at the sink, dry it and leave it on the sink."""
''' + FETCH.format(x="item") + '''    robot.move_to("sink")
    robot.wash()
    robot.dry()
    robot.place("sink")
''',
    "boil_water": '''def boil_water(robot, ml):
    """Fill the kettle with ml of water and boil it (the kettle stays on the counter)."""
''' + FETCH.format(x='"kettle"') + '''    robot.move_to("sink")
    robot.fill(ml)
    robot.move_to("counter")
    robot.place("counter")
    robot.turn_on("kettle")
    robot.wait(120)
''',
    "pour_hot_water": '''def pour_hot_water(robot, vessel, ml):
    """Pour ml of hot water from the kettle into the vessel, on the counter."""
''' + FETCH.format(x="vessel") + '''    robot.move_to("counter")
    robot.place("counter")
    robot.wear_mitt()
    robot.pick("kettle")
    robot.pour(vessel, ml)
    robot.place("counter")
    robot.remove_mitt()
''',
    "warm_in_microwave": '''def warm_in_microwave(robot, item, seconds):
    """Warm (heat) the item in the microwave for seconds, then bring it to the table."""
''' + FETCH.format(x="item") + '''    robot.move_to("microwave")
    robot.open("microwave")
    robot.place("microwave")
    robot.close("microwave")
    robot.microwave(seconds)
    robot.open("microwave")
    robot.wear_mitt()
    robot.pick(item)
    robot.close("microwave")
    robot.move_to("table")
    robot.place("table")
    robot.remove_mitt()
''',
    "slice_food": '''def slice_food(robot, food):
    """Slice (cut) the food with the knife on the counter."""
''' + FETCH.format(x="food") + '''    robot.move_to("counter")
    robot.place("counter")
    robot.pick("knife")
    robot.cut(food)
    robot.place("counter")
''',
    "discard_food": '''def discard_food(robot, food):
    """Throw the food away into the trash."""
''' + FETCH.format(x="food") + '''    robot.move_to("trash")
    robot.throw_away()
''',
    "serve_item": '''def serve_item(robot, item, place):
    """Bring (put) the item to an open place: the table, the counter or the shelf."""
''' + FETCH.format(x="item") + '''    robot.move_to(place)
    robot.place(place)
''',
    "pour_milk": '''def pour_milk(robot, vessel, ml):
    """Pour ml of milk from the carton in the fridge into the vessel, then put the milk back."""
''' + FETCH.format(x="vessel") + '''    robot.move_to("counter")
    robot.place("counter")
    robot.move_to("fridge")
    robot.open("fridge")
    robot.pick("milk")
    robot.close("fridge")
    robot.move_to("counter")
    robot.pour(vessel, ml)
    robot.move_to("fridge")
    robot.open("fridge")
    robot.place("fridge")
    robot.close("fridge")
''',
}

PARAMS: dict[str, tuple[str, ...]] = {
    "store_item": ("item", "place"), "wash_item": ("item",), "boil_water": ("ml",),
    "pour_hot_water": ("vessel", "ml"), "warm_in_microwave": ("item", "seconds"), "slice_food": ("food",),
    "discard_food": ("food",), "serve_item": ("item", "place"), "pour_milk": ("vessel", "ml"),
}
"""Each skeleton's parameters after ``robot``, by type."""


def doc(name: str) -> str:
    """The skeleton's docstring line."""
    return SOURCES[name].split('"""')[1]


def main_code(plan: list[tuple[str, list[object]]]) -> str:
    """``def main(robot):`` calling skeletons in order with literal arguments."""
    lines = ["def main(robot):"]
    for name, args in plan:
        lines.append(f"    {name}(robot{''.join(', ' + json.dumps(a) for a in args)})")
    return "\n".join(lines) + "\n"


def program(plan: list[tuple[str, list[object]]], names: list[str] | None = None) -> str:
    """A whole policy module: the skeletons it uses (or ``names``), then ``main``."""
    used = names if names is not None else list(dict.fromkeys(n for n, _ in plan))
    return "\n\n".join(SOURCES[n] for n in used) + "\n\n" + main_code(plan)
