"""Mutant of dowel-joint-01: a single dowel (must fail a hidden test or check).

Dowel joint: two stacked blocks located by two dowels in blind holes.
"""
import cadquery as cq

PARAMS = {
    "block_size": [60.0, 40.0, 20.0],  # mm, X Y Z of each block
    "dowel_diameter": 8.0,
    "dowel_length": 20.0,
    "dowel_spacing": 40.0,  # centre to centre, along X
    "hole_depth": 12.0,  # blind hole depth in each block
}


def build(params: dict) -> cq.Assembly:
    p = params
    lx, ly, h = p["block_size"]
    d, s = p["dowel_diameter"], p["dowel_spacing"]
    holes = cq.Workplane("XY").pushPoints([(-s / 2, 0), (s / 2, 0)]).circle(d / 2).extrude(p["hole_depth"])
    block = cq.Workplane("XY").box(lx, ly, h, centered=(True, True, False))
    block_a = block.cut(holes.translate((0, 0, h - p["hole_depth"])))  # holes open at the top
    block_b = block.cut(holes)  # holes open at the bottom
    assy = cq.Assembly(name="dowel_joint")
    assy.add(block_a, name="block_a")
    assy.add(block_b, name="block_b", loc=cq.Location(cq.Vector(0, 0, h)))
    dowel = cq.Workplane("XY").circle(d / 2).extrude(p["dowel_length"])
    for i, x in enumerate((-s / 2,), 1):
        assy.add(dowel, name=f"dowel_{i}", loc=cq.Location(cq.Vector(x, 0, h - p["dowel_length"] / 2)))
    return assy
