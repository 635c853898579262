"""Mutant of pin-plate-01: pin lifted off the plate (must fail a hidden test or check).

Pin in a plate: a headed pin through a clearance hole at the centre of a rectangular plate.
"""
import cadquery as cq

PARAMS = {
    "plate_length": 80.0,  # mm, along X
    "plate_width": 50.0,  # mm, along Y
    "plate_thickness": 6.0,
    "hole_diameter": 8.4,  # clearance hole for the pin
    "pin_diameter": 8.0,
    "pin_length": 20.0,  # shank length under the head
    "head_diameter": 14.0,
    "head_height": 3.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    t = p["plate_thickness"]
    plate = (cq.Workplane("XY").box(p["plate_length"], p["plate_width"], t, centered=(True, True, False))
             .faces(">Z").workplane().hole(p["hole_diameter"]))
    pin = (cq.Workplane("XY").circle(p["pin_diameter"] / 2).extrude(-p["pin_length"])
           .faces(">Z").workplane().circle(p["head_diameter"] / 2).extrude(p["head_height"]))
    assy = cq.Assembly(name="pin_plate")
    assy.add(plate, name="plate")
    assy.add(pin, name="pin", loc=cq.Location(cq.Vector(0, 0, t + 2)))  # head rests on the top face
    return assy
