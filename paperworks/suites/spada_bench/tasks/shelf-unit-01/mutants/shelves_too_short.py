"""Mutant of shelf-unit-01: shelves 4 mm short of the sides (must fail a hidden test or check).

Shelf unit: two upright sides and evenly spaced shelves spanning between them.
"""
import cadquery as cq

PARAMS = {
    "width": 800.0,  # mm, outside of the sides
    "depth": 300.0,
    "height": 1000.0,
    "board": 18.0,  # thickness of the sides and shelves
    "shelves": 4,
    "first_shelf": 50.0,  # bottom face of the lowest shelf
    "pitch": 300.0,  # shelf spacing
}


def build(params: dict) -> cq.Assembly:
    p = params
    w, d, t = p["width"], p["depth"], p["board"]
    side = cq.Workplane("XY").box(t, d, p["height"], centered=(False, True, False))
    shelf = cq.Workplane("XY").box(w - 2 * t - 4, d, t, centered=(True, True, False))
    assy = cq.Assembly(name="shelf_unit")
    assy.add(side, name="side_left", loc=cq.Location(cq.Vector(-w / 2, 0, 0)))
    assy.add(side, name="side_right", loc=cq.Location(cq.Vector(w / 2 - t, 0, 0)))
    for i in range(p["shelves"]):
        z = p["first_shelf"] + i * p["pitch"]
        assy.add(shelf, name=f"shelf_{i + 1}", loc=cq.Location(cq.Vector(0, 0, z)))
    return assy
