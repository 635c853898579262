"""Mutant of rack-pinion-01: module 2.5 (must fail a hidden test or check).

Rack and pinion: a pitch-cylinder pinion rolling on a rack's pitch line, on its shaft.
"""
import cadquery as cq

PARAMS = {
    "module": 2.5,  # mm
    "pinion_teeth": 15,
    "rack_size": [200.0, 20.0, 20.0],  # X Y Z; the top face is the pitch line
    "pinion_width": 20.0,
    "shaft_diameter": 8.0,
    "shaft_length": 60.0,
    "pinion_x": 0.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    rx, ry, rz = p["rack_size"]
    r = p["module"] * p["pinion_teeth"] / 2  # pitch radius
    axis = cq.Vector(p["pinion_x"], 0, rz + r)
    rack = cq.Workplane("XY").box(rx, ry, rz, centered=(True, True, False))
    pinion = (cq.Workplane("XZ").circle(r).circle(p["shaft_diameter"] / 2)
              .extrude(p["pinion_width"] / 2, both=True))
    shaft = cq.Workplane("XZ").circle(p["shaft_diameter"] / 2).extrude(p["shaft_length"] / 2, both=True)
    assy = cq.Assembly(name="rack_pinion")
    assy.add(rack, name="rack")
    assy.add(pinion, name="pinion", loc=cq.Location(axis))
    assy.add(shaft, name="shaft", loc=cq.Location(axis))
    return assy
