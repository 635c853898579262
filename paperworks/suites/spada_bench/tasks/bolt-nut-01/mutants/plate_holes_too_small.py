"""Mutant of bolt-nut-01: plate holes smaller than the shank (must fail a hidden test or check).

Bolted joint: two plates clamped by a hex bolt, a washer and a hex nut.
"""
import math

import cadquery as cq

PARAMS = {
    "plate_size": [60.0, 40.0, 10.0],  # mm, X Y Z of each plate
    "hole_diameter": 9.8,
    "bolt_diameter": 10.0,
    "bolt_length": 30.0,  # shank
    "across_flats": 16.0,
    "head_height": 6.4,
    "washer": [20.0, 10.5, 2.0],  # outer, inner, thickness
    "nut_height": 8.0,
    "nut_bore": 10.0,
}


def hexagon(across_flats: float, height: float) -> cq.Workplane:
    return cq.Workplane("XY").polygon(6, across_flats / math.cos(math.pi / 6)).extrude(height)


def build(params: dict) -> cq.Assembly:
    p = params
    px, py, pz = p["plate_size"]
    plate = (cq.Workplane("XY").box(px, py, pz, centered=(True, True, False))
             .faces(">Z").workplane().hole(p["hole_diameter"]))
    bolt = (hexagon(p["across_flats"], p["head_height"]).translate((0, 0, -p["head_height"]))
            .union(cq.Workplane("XY").circle(p["bolt_diameter"] / 2).extrude(p["bolt_length"])))
    wo, wi, wt = p["washer"]
    washer = cq.Workplane("XY").circle(wo / 2).circle(wi / 2).extrude(wt)
    nut = hexagon(p["across_flats"], p["nut_height"]).faces(">Z").workplane().hole(p["nut_bore"])
    assy = cq.Assembly(name="bolted_joint")
    assy.add(plate, name="plate_a")
    assy.add(plate, name="plate_b", loc=cq.Location(cq.Vector(0, 0, pz)))
    assy.add(bolt, name="bolt")
    assy.add(washer, name="washer", loc=cq.Location(cq.Vector(0, 0, 2 * pz)))
    assy.add(nut, name="nut", loc=cq.Location(cq.Vector(0, 0, 2 * pz + wt)))
    return assy
