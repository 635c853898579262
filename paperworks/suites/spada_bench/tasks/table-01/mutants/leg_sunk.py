"""Mutant of table-01: one leg 5 mm low (must fail a hidden test or check).

Table: a rectangular top on four square legs inset from its edges.
"""
import cadquery as cq

PARAMS = {
    "top_size": [1200.0, 600.0, 25.0],  # mm, X Y Z
    "height": 725.0,  # floor to the top's upper face
    "leg_section": 50.0,
    "inset": 50.0,  # from the top's edges to the legs' outer faces
}


def build(params: dict) -> cq.Assembly:
    p = params
    tx, ty, tz = p["top_size"]
    s, leg_height = p["leg_section"], p["height"] - tz
    top = cq.Workplane("XY").box(tx, ty, tz, centered=(True, True, False))
    leg = cq.Workplane("XY").box(s, s, leg_height, centered=(True, True, False))
    dx, dy = tx / 2 - p["inset"] - s / 2, ty / 2 - p["inset"] - s / 2
    assy = cq.Assembly(name="table")
    assy.add(top, name="top", loc=cq.Location(cq.Vector(0, 0, leg_height)))
    for i, (x, y) in enumerate([(-dx, -dy), (dx, -dy), (dx, dy), (-dx, dy)], 1):
        assy.add(leg, name=f"leg_{i}", loc=cq.Location(cq.Vector(x, y, -5 if i == 3 else 0)))
    return assy
