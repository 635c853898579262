"""Mutant of enclosure-lid-01: screws 2 mm off the bosses (must fail a hidden test or check).

Enclosure with a screwed lid: an open box with corner bosses, a lid and four screws.
"""
import cadquery as cq

PARAMS = {
    "box_size": [120.0, 80.0, 40.0],  # mm, outside X Y Z
    "wall": 3.0,
    "boss_diameter": 8.0,
    "boss_points": [[-52.0, -32.0], [52.0, -32.0], [52.0, 32.0], [-52.0, 32.0]],
    "pilot_hole": 2.5,
    "pilot_depth": 15.0,
    "lid_thickness": 3.0,
    "clearance_hole": 3.4,
    "screw_diameter": 2.5,
    "screw_length": 12.0,
    "head_diameter": 5.5,
    "head_height": 2.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    (bx, by, bz), t = p["box_size"], p["wall"]
    points = [tuple(xy) for xy in p["boss_points"]]
    inside = cq.Workplane("XY").box(bx - 2 * t, by - 2 * t, bz, centered=(True, True, False)).translate((0, 0, t))
    bosses = cq.Workplane("XY").pushPoints(points).circle(p["boss_diameter"] / 2).extrude(bz)
    pilots = (cq.Workplane("XY").pushPoints(points).circle(p["pilot_hole"] / 2).extrude(p["pilot_depth"])
              .translate((0, 0, bz - p["pilot_depth"])))
    enclosure = cq.Workplane("XY").box(bx, by, bz, centered=(True, True, False)).cut(inside).union(bosses).cut(pilots)
    lid = (cq.Workplane("XY").box(bx, by, p["lid_thickness"], centered=(True, True, False))
           .faces(">Z").workplane().pushPoints(points).hole(p["clearance_hole"]))
    screw = (cq.Workplane("XY").circle(p["screw_diameter"] / 2).extrude(-p["screw_length"])
             .union(cq.Workplane("XY").circle(p["head_diameter"] / 2).extrude(p["head_height"])))
    top = bz + p["lid_thickness"]
    assy = cq.Assembly(name="enclosure_lid")
    assy.add(enclosure, name="enclosure")
    assy.add(lid, name="lid", loc=cq.Location(cq.Vector(0, 0, bz)))
    for i, (x, y) in enumerate(points, 1):
        assy.add(screw, name=f"screw_{i}", loc=cq.Location(cq.Vector(x * 0.96, y, top)))
    return assy
