"""Planetary gear set: sun, three planets and a ring as pitch cylinders (ring teeth = sun + 2 * planet)."""
import math

import cadquery as cq

PARAMS = {
    "module": 1.0,  # mm
    "sun_teeth": 20,
    "planet_teeth": 10,
    "planets": 3,
    "width": 8.0,
    "ring_outer_diameter": 50.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    m, zs, zp, w = p["module"], p["sun_teeth"], p["planet_teeth"], p["width"]
    zr = zs + 2 * zp  # internal teeth of the ring
    r = m * (zs + zp) / 2  # planet centre radius
    assy = cq.Assembly(name="planetary")
    assy.add(cq.Workplane("XY").circle(m * zs / 2).extrude(w), name="sun")
    planet = cq.Workplane("XY").circle(m * zp / 2).extrude(w)
    for i in range(p["planets"]):
        angle = math.radians(90 + 360 * i / p["planets"])
        at = cq.Vector(r * math.cos(angle), r * math.sin(angle), 0)
        assy.add(planet, name=f"planet_{i + 1}", loc=cq.Location(at))
    ring = cq.Workplane("XY").circle(p["ring_outer_diameter"] / 2).circle(m * zr / 2).extrude(w)
    assy.add(ring, name="ring")
    return assy
