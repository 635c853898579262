"""SPADA problem family with a bolt pattern: two stacked discs clamped by bolts on a bolt circle
(``bolt_circle``)."""

from __future__ import annotations

import math
from typing import Any

from paperworks.train.generators.spada_templates import Family, Mutation, Params, fl, num

DISCS = (("flange_a", "flange_b"), ("lower_flange", "upper_flange"), ("base_disc", "cover_disc"),
         ("ring_bottom", "ring_top"))
BOLTS = ("bolt", "screw", "cap_screw", "fastener")


def _draw(rng: Any) -> Params:
    while True:
        n, d = rng.randint(3, 6), rng.choice((4, 5, 6, 8, 10))
        head, radius = d + rng.randint(3, 6), rng.randrange(20, 65, 5)
        if 2 * radius * math.sin(math.pi / n) >= head + 3:  # neighbouring heads stay apart
            break
    lower, upper = rng.choice(DISCS)
    t1, t2 = rng.randint(6, 20), rng.randint(6, 20)
    return {"lower": lower, "upper": upper, "prefix": rng.choice(BOLTS), "n": n,
            "diameter": 2 * radius + 2 * (head // 2 + rng.randint(5, 15)), "t1": t1, "t2": t2, "radius": radius,
            "angle": rng.choice((0, 15, 30, 45, 60, 90)), "hole": d + rng.choice((0.4, 0.5, 0.6)), "d": d,
            "length": t1 + t2 + rng.randint(3, 15), "head": head, "head_h": max(2, round(0.6 * d))}


def _points(p: Params) -> list[tuple[float, float]]:
    angles = [math.radians(p["angle"] + 360 * k / p["n"]) for k in range(p["n"])]
    return [(p["radius"] * math.cos(a), p["radius"] * math.sin(a)) for a in angles]


def _names(p: Params) -> list[str]:
    return [f"{p['prefix']}_{i}" for i in range(1, p["n"] + 1)]


def _train_a(p: Params) -> str:
    top = p["t1"] + p["t2"]
    return (f"Z is up. Two discs on the Z axis clamped by {p['n']} bolts. `{p['lower']}`: diameter "
            f"{num(p['diameter'])} mm, {num(p['t1'])} mm thick (z = 0 to {num(p['t1'])}); `{p['upper']}`: the same "
            f"diameter, {num(p['t2'])} mm thick, directly on top (z = {num(p['t1'])} to {num(top)}). Both have "
            f"{p['n']} through holes of diameter {num(p['hole'])} mm equally spaced on a bolt circle of radius "
            f"{num(p['radius'])} mm, the first at {p['angle']} degrees from +X, counterclockwise. Bolts "
            f"`{p['prefix']}_1` .. `{p['prefix']}_{p['n']}` (numbered like the holes), each a round head of "
            f"diameter {num(p['head'])} mm and {num(p['head_h'])} mm tall resting on {p['upper']}'s top face and a "
            f"shank of diameter {num(p['d'])} mm and {num(p['length'])} mm long down through both holes, coaxial "
            f"with them (z = {num(top - p['length'])} to {num(top)}). {p['n'] + 2} parts; no overlaps.")


def _train_b(p: Params) -> str:
    return (f"Bolted disc pair, Z up, mm. A {num(p['t1'])} thick disc `{p['lower']}` of {num(p['diameter'])} "
            f"diameter lies on z = 0 centred on the Z axis; a {num(p['t2'])} thick disc `{p['upper']}` of the same "
            f"diameter sits on it. {p['n']} clearance holes of {num(p['hole'])} go through both, evenly spaced on a "
            f"{num(2 * p['radius'])} pitch-circle diameter, hole 1 at {p['angle']} degrees from the +X axis and the "
            f"rest following counterclockwise. In hole k sits bolt `{p['prefix']}_k`: a {num(p['d'])} x "
            f"{num(p['length'])} shank under a {num(p['head'])} diameter, {num(p['head_h'])} high cylindrical head "
            f"that bears on the upper disc. All parts touch their neighbours but never overlap.")


def _heldout(p: Params) -> str:
    return (f"Please model a bolted joint between two round plates, with Z as the vertical axis. The lower "
            f"plate `{p['lower']}` is a disc {num(p['diameter'])} mm across and {num(p['t1'])} mm thick whose "
            f"bottom face lies on z = 0 and whose centre is on the Z axis; the upper plate `{p['upper']}` is an "
            f"identical disc except for its {num(p['t2'])} mm thickness, stacked on the lower one. Through both "
            f"plates go {p['n']} holes, {num(p['hole'])} mm in diameter, spread evenly around a circle of "
            f"{num(p['radius'])} mm radius; the first hole is at an angle of {p['angle']} degrees measured from "
            f"the positive X axis and the others follow anticlockwise. One bolt per hole, named "
            f"{', '.join(f'`{n}`' for n in _names(p))} in the same order: a {num(p['head'])} mm cylindrical head "
            f"{num(p['head_h'])} mm high seated on top of `{p['upper']}`, and a {num(p['d'])} mm shank "
            f"{num(p['length'])} mm long reaching down through the holes on their axes. No part may intersect "
            "another.")


def _code(p: Params) -> str:
    return f'''"""Bolted discs: two stacked discs clamped by bolts on a bolt circle."""
import math

import cadquery as cq

PARAMS = {{
    "disc_diameter": {fl(p["diameter"])},  # mm
    "lower_thickness": {fl(p["t1"])},
    "upper_thickness": {fl(p["t2"])},
    "bolt_count": {p["n"]},
    "bolt_circle_radius": {fl(p["radius"])},
    "first_angle": {fl(p["angle"])},  # degrees from +X, counterclockwise
    "hole_diameter": {fl(p["hole"])},  # clearance holes
    "bolt_diameter": {fl(p["d"])},
    "bolt_length": {fl(p["length"])},  # shank, under the head
    "head_diameter": {fl(p["head"])},
    "head_height": {fl(p["head_h"])},
}}


def build(params: dict) -> cq.Assembly:
    p = params
    t1, t2 = p["lower_thickness"], p["upper_thickness"]
    n, r = int(p["bolt_count"]), p["bolt_circle_radius"]
    angles = [math.radians(p["first_angle"] + 360 * k / n) for k in range(n)]
    points = [(r * math.cos(a), r * math.sin(a)) for a in angles]
    holes = (cq.Workplane("XY").workplane(offset=-1).pushPoints(points)
             .circle(p["hole_diameter"] / 2).extrude(t1 + t2 + 2))
    lower = cq.Workplane("XY").circle(p["disc_diameter"] / 2).extrude(t1).cut(holes)
    upper = cq.Workplane("XY").workplane(offset=t1).circle(p["disc_diameter"] / 2).extrude(t2).cut(holes)
    bolt = (cq.Workplane("XY").circle(p["head_diameter"] / 2).extrude(p["head_height"])
            .union(cq.Workplane("XY").circle(p["bolt_diameter"] / 2).extrude(-p["bolt_length"])))
    assy = cq.Assembly(name="bolted_discs")
    assy.add(lower, name="{p["lower"]}")
    assy.add(upper, name="{p["upper"]}")
    for i, (x, y) in enumerate(points, 1):
        assy.add(bolt, name=f"{p["prefix"]}_{{i}}", loc=cq.Location(cq.Vector(x, y, t1 + t2)))  # heads on top
    return assy


result = build(PARAMS)
'''


def _tests(p: Params) -> str:
    a, b, t1, top, r = repr(p["lower"]), repr(p["upper"]), p["t1"], p["t1"] + p["t2"], p["diameter"] / 2
    points = ", ".join(f"({x:.4f}, {y:.4f})" for x, y in _points(p))
    return f'''
BOLTS = {_names(p)!r}
POINTS = [{points}]


def test_parts_named(ctx):
    assert {{{a}, {b}}} <= set(ctx.parts), f"got {{sorted(ctx.parts)}}"
    got = _named(ctx, {p["prefix"] + "_"!r})
    assert got == BOLTS, f"expected {_names(p)[0]}..{_names(p)[-1]}, got {{got}}"


def test_discs(ctx):
    for name, lo, hi in (({a}, 0, {num(t1)}), ({b}, {num(t1)}, {num(top)})):
        _bounds(ctx, name, (-{num(r)}, -{num(r)}, lo, {num(r)}, {num(r)}, hi))
        for x, y in POINTS:
            _hole(ctx, name, {num(p["hole"])}, (x, y, -1), (0, 0, 1), {num(top + 2)})


def test_bolts(ctx):
    for name, (x, y) in zip(BOLTS, POINTS, strict=True):
        dx, dy, _ = _slab(ctx, name, 2, -1000, -1)
        _near(dx, {num(p["d"])}, 0.05, f"{{name}} shank diameter")
        _near(dy, {num(p["d"])}, 0.05, f"{{name}} shank diameter")
        dx, _, dz = _slab(ctx, name, 2, {num(top + 0.01)}, 1000)
        _near(dx, {num(p["head"])}, 0.1, f"{{name}} head diameter")
        _near(dz, {num(p["head_h"] - 0.01)}, 0.1, f"{{name}} head height")
        _near(_size(ctx, name)[2], {num(p["length"] + p["head_h"])}, 0.1, f"{{name}} length with the head")
        cx, cy, _ = ctx.center(name)
        _near(cx, x, 0.05, f"{{name}} axis x")
        _near(cy, y, 0.05, f"{{name}} axis y")


def test_fit(ctx):
    _touch(ctx, {a}, {b})
    _apart(ctx, {a}, {b})
    for name in BOLTS:
        _touch(ctx, name, {b})
        _apart(ctx, name, {a})
        _apart(ctx, name, {b})
'''


BOLT_CIRCLE = Family(
    name="bolt_circle", category="fasteners", draw=_draw,
    requests={"train": [_train_a, _train_b], "heldout": [_heldout]},
    abstract=lambda p: f"Two {num(p['diameter'])} mm discs clamped together by {p['n']} bolts on a bolt circle.",
    code=_code, tests=_tests,
    size=lambda p: (p["diameter"], p["diameter"], p["length"] + p["head_h"]),
    parts=lambda p: [p["lower"], p["upper"], *_names(p)],
    signature=lambda p: [p[k] for k in ("diameter", "t1", "t2", "n", "radius", "angle", "hole", "d", "length",
                                        "head", "head_h")],
    mutations=(
        Mutation("wrong_bolt_circle", "bolt circle 2 mm too large",
                 lambda p: (f'"bolt_circle_radius": {fl(p["radius"])},',
                            f'"bolt_circle_radius": {fl(p["radius"] + 2)},')),
        Mutation("bolt_missing", "one bolt left out",
                 lambda p: ("enumerate(points, 1)", "enumerate(points[1:], 1)")),
        Mutation("bolts_floating", "bolts 1 mm above the upper disc",
                 lambda p: ("cq.Vector(x, y, t1 + t2)", "cq.Vector(x, y, t1 + t2 + 1)")),
        Mutation("holes_too_small", "holes the size of the shanks",
                 lambda p: (f'"hole_diameter": {fl(p["hole"])},', f'"hole_diameter": {fl(p["d"])},')),
    ),
)
