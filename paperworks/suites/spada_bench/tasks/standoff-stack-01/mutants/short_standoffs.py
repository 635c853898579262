"""Mutant of standoff-stack-01: 28 mm standoffs (must fail a hidden test or check).

Board stack: two plates held 30 mm apart by four standoffs on a rectangular hole pattern.
"""
import cadquery as cq

PARAMS = {
    "plate_size": [100.0, 80.0, 3.0],  # mm, X Y Z
    "pattern": [80.0, 60.0],  # hole pattern, X Y
    "hole_diameter": 3.2,
    "standoff_diameter": 8.0,
    "standoff_length": 28.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    px, py, pz = p["plate_size"]
    hx, hy = p["pattern"][0] / 2, p["pattern"][1] / 2
    points = [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]
    plate = (cq.Workplane("XY").box(px, py, pz, centered=(True, True, False))
             .faces(">Z").workplane().pushPoints(points).hole(p["hole_diameter"]))
    standoff = cq.Workplane("XY").circle(p["standoff_diameter"] / 2).extrude(p["standoff_length"])
    assy = cq.Assembly(name="standoff_stack")
    assy.add(plate, name="plate_bottom")
    for i, (x, y) in enumerate(points, 1):
        assy.add(standoff, name=f"standoff_{i}", loc=cq.Location(cq.Vector(x, y, pz)))
    assy.add(plate, name="plate_top", loc=cq.Location(cq.Vector(0, 0, pz + p["standoff_length"])))
    return assy
