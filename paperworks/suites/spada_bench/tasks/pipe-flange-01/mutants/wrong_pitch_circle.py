"""Mutant of pipe-flange-01: 130 mm pitch circle (must fail a hidden test or check).

Flanged pipe joint: two pipes, slip-on flanges, a gasket and bolts on a pitch circle.
"""
import math

import cadquery as cq

PARAMS = {
    "pipe_od": 60.0,  # mm
    "pipe_id": 50.0,
    "pipe_length": 200.0,
    "flange_od": 150.0,
    "flange_thickness": 16.0,
    "gasket_od": 100.0,
    "gasket_thickness": 2.0,
    "bolt_count": 4,
    "pitch_circle": 130.0,
    "hole_diameter": 14.0,
    "bolt_diameter": 12.0,
    "bolt_length": 42.0,
    "head_diameter": 20.0,
    "head_height": 8.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    t, g = p["flange_thickness"], p["gasket_thickness"]
    r = p["pitch_circle"] / 2
    points = [(r * math.cos(2 * math.pi * i / p["bolt_count"]), r * math.sin(2 * math.pi * i / p["bolt_count"]))
              for i in range(p["bolt_count"])]
    pipe = cq.Workplane("XY").circle(p["pipe_od"] / 2).circle(p["pipe_id"] / 2).extrude(p["pipe_length"])
    holes = cq.Workplane("XY").pushPoints(points).circle(p["hole_diameter"] / 2).extrude(t)
    flange = cq.Workplane("XY").circle(p["flange_od"] / 2).circle(p["pipe_od"] / 2).extrude(t).cut(holes)
    gasket = cq.Workplane("XY").circle(p["gasket_od"] / 2).circle(p["pipe_id"] / 2).extrude(g)
    bolt = (cq.Workplane("XY").circle(p["bolt_diameter"] / 2).extrude(p["bolt_length"])
            .union(cq.Workplane("XY").circle(p["head_diameter"] / 2).extrude(-p["head_height"])))
    assy = cq.Assembly(name="pipe_flange")
    assy.add(pipe, name="pipe_a", loc=cq.Location(cq.Vector(0, 0, -p["pipe_length"])))
    assy.add(flange, name="flange_a", loc=cq.Location(cq.Vector(0, 0, -t)))
    assy.add(gasket, name="gasket")
    assy.add(flange, name="flange_b", loc=cq.Location(cq.Vector(0, 0, g)))
    assy.add(pipe, name="pipe_b", loc=cq.Location(cq.Vector(0, 0, g)))
    for i, (x, y) in enumerate(points, 1):
        assy.add(bolt, name=f"bolt_{i}", loc=cq.Location(cq.Vector(x, y, -t)))
    return assy
