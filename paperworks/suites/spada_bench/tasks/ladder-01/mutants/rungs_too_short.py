"""Mutant of ladder-01: rungs 4 mm short (must fail a hidden test or check).

Ladder: two rails with evenly spaced round rungs between them.
"""
import cadquery as cq

PARAMS = {
    "rail_section": [20.0, 40.0],  # mm, X Y
    "rail_length": 2000.0,
    "inner_width": 360.0,  # between the rails
    "rungs": 6,
    "rung_diameter": 28.0,
    "first_rung": 250.0,
    "pitch": 300.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    rx, ry = p["rail_section"]
    w = p["inner_width"]
    rail = cq.Workplane("XY").box(rx, ry, p["rail_length"], centered=(False, True, False))
    rung = cq.Workplane("YZ").circle(p["rung_diameter"] / 2).extrude(w - 4)
    assy = cq.Assembly(name="ladder")
    assy.add(rail, name="rail_left", loc=cq.Location(cq.Vector(-w / 2 - rx, 0, 0)))
    assy.add(rail, name="rail_right", loc=cq.Location(cq.Vector(w / 2, 0, 0)))
    for i in range(p["rungs"]):
        z = p["first_rung"] + i * p["pitch"]
        assy.add(rung, name=f"rung_{i + 1}", loc=cq.Location(cq.Vector(-w / 2, 0, z)))
    return assy
