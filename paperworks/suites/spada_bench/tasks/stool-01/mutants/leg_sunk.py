"""Mutant of stool-01: leg_2 5 mm low (must fail a hidden test or check).

Stool: a round seat on three legs spaced 120 degrees apart.
"""
import math

import cadquery as cq

PARAMS = {
    "seat_diameter": 350.0,  # mm
    "seat_thickness": 30.0,
    "height": 480.0,
    "legs": 3,
    "leg_diameter": 30.0,
    "leg_radius": 120.0,  # leg axes from the centre
}


def build(params: dict) -> cq.Assembly:
    p = params
    leg_length = p["height"] - p["seat_thickness"]
    seat = cq.Workplane("XY").circle(p["seat_diameter"] / 2).extrude(p["seat_thickness"])
    leg = cq.Workplane("XY").circle(p["leg_diameter"] / 2).extrude(leg_length)
    assy = cq.Assembly(name="stool")
    assy.add(seat, name="seat", loc=cq.Location(cq.Vector(0, 0, leg_length)))
    for i in range(p["legs"]):
        a = math.radians(90 + 360 * i / p["legs"])
        x, y = p["leg_radius"] * math.cos(a), p["leg_radius"] * math.sin(a)
        assy.add(leg, name=f"leg_{i + 1}", loc=cq.Location(cq.Vector(x, y, -5 * (i == 1))))
    return assy
