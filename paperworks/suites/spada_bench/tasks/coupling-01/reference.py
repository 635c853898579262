"""Flanged shaft coupling: two flanges on two shafts, clamped by bolts on a bolt circle."""
import math

import cadquery as cq

PARAMS = {
    "shaft_diameter": 20.0,  # mm
    "shaft_length": 60.0,
    "flange_diameter": 80.0,
    "flange_thickness": 12.0,
    "bolt_count": 4,
    "bolt_circle": 60.0,  # diameter
    "bolt_diameter": 8.0,
    "hole_diameter": 9.0,  # clearance holes in both flanges
    "bolt_length": 30.0,  # shank
    "head_diameter": 13.0,
    "head_height": 5.0,
}


def bolt_points(p: dict) -> list[tuple[float, float]]:
    r, n = p["bolt_circle"] / 2, p["bolt_count"]
    return [(r * math.cos(math.radians(45 + 360 * i / n)), r * math.sin(math.radians(45 + 360 * i / n)))
            for i in range(n)]


def build(params: dict) -> cq.Assembly:
    p = params
    t, d, length = p["flange_thickness"], p["shaft_diameter"], p["shaft_length"]
    holes = cq.Workplane("XY").pushPoints(bolt_points(p)).circle(p["hole_diameter"] / 2).extrude(t)
    flange = (cq.Workplane("XY").circle(p["flange_diameter"] / 2).circle(d / 2).extrude(t).cut(holes))
    shaft = cq.Workplane("XY").circle(d / 2).extrude(length)
    bolt = (cq.Workplane("XY").circle(p["bolt_diameter"] / 2).extrude(-p["bolt_length"])
            .faces(">Z").workplane().circle(p["head_diameter"] / 2).extrude(p["head_height"]))
    assy = cq.Assembly(name="coupling")
    assy.add(flange, name="flange_a")
    assy.add(flange, name="flange_b", loc=cq.Location(cq.Vector(0, 0, t)))
    assy.add(shaft, name="shaft_a", loc=cq.Location(cq.Vector(0, 0, t - length)))
    assy.add(shaft, name="shaft_b", loc=cq.Location(cq.Vector(0, 0, t)))
    for i, (x, y) in enumerate(bolt_points(p), 1):
        assy.add(bolt, name=f"bolt_{i}", loc=cq.Location(cq.Vector(x, y, 2 * t)))
    return assy
