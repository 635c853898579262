"""The prompt pieces every method shares: the API header, skeleton segments, the task segment, and the
worked example free generation gets instead of skeletons."""

from __future__ import annotations

from paperworks.tools.robot import sim

HEADER = (
    "# Python policies for a kitchen robot. Call the robot's functions as robot.NAME(...):\n"
    "# move_to(place) pick(obj) place(place) open(container) close(container) fill(ml) pour(target, ml)\n"
    "# turn_on(appliance) turn_off(appliance) wait(seconds) microwave(seconds) wash() dry() cut(food)\n"
    "# wear_mitt() remove_mitt() where(obj) is_open(container) temperature(obj) holding() contents(obj)\n"
    "# throw_away()\n"
    f"# Places: {' '.join(sim.PLACES)}\n"
    "# Objects: cup_red cup_blue mug glass plate bowl pot pan kettle knife apple bread carrot cheese egg milk\n"
    "# Rules: open a door before reaching inside and close it after; wear the mitt to hold hot things;\n"
    "# wash and dry dishes before storing them in the cabinet; never switch on an empty stove.\n\n"
)
"""The API description every prompt starts with (cached once by the caching methods)."""

EXAMPLE = '''# Task: Bring the apple to the counter, then bring the cheese to the table.
def main(robot):
    robot.move_to("table")
    robot.pick("apple")
    robot.move_to("counter")
    robot.place("counter")
    robot.move_to("fridge")
    robot.open("fridge")
    robot.pick("cheese")
    robot.close("fridge")
    robot.move_to("table")
    robot.place("table")


'''
"""Free generation's in-context example (it has no skeletons to follow)."""


def skeleton_segment(code: str) -> str:
    """A skeleton as it sits in a prompt."""
    return code.rstrip("\n") + "\n\n\n"


def task_segment(text: str) -> str:
    """The task and the start of its ``main``."""
    return f"# Task: {text}\ndef main(robot):"
