"""Mutant of linear-slide-01: carriage driven into the right stop (must fail a hidden test or check).

Linear slide: a channelled carriage riding on a rail between two end stops.
"""
import cadquery as cq

PARAMS = {
    "rail_size": [300.0, 20.0, 15.0],  # mm, X Y Z
    "carriage_size": [50.0, 40.0, 25.0],
    "clearance": 0.2,  # each side of the rail
    "carriage_x": 120.0,
    "stop_size": [10.0, 20.0, 20.0],
}


def build(params: dict) -> cq.Assembly:
    p = params
    rx, ry, rz = p["rail_size"]
    cx, cy, cz = p["carriage_size"]
    sx, sy, sz = p["stop_size"]
    rail = cq.Workplane("XY").box(rx, ry, rz, centered=(True, True, False))
    channel = cq.Workplane("XY").box(cx, ry + 2 * p["clearance"], rz, centered=(True, True, False))
    carriage = cq.Workplane("XY").box(cx, cy, cz, centered=(True, True, False)).cut(channel)
    stop = cq.Workplane("XY").box(sx, sy, sz, centered=(False, True, False))
    assy = cq.Assembly(name="linear_slide")
    assy.add(rail, name="rail")
    assy.add(carriage, name="carriage", loc=cq.Location(cq.Vector(p["carriage_x"], 0, 0)))
    assy.add(stop, name="stop_left", loc=cq.Location(cq.Vector(-rx / 2, 0, rz)))
    assy.add(stop, name="stop_right", loc=cq.Location(cq.Vector(rx / 2 - sx, 0, rz)))
    return assy
