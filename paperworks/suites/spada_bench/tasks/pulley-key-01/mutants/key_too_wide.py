"""Mutant of pulley-key-01: key wider than the keyways (must fail a hidden test or check).

Pulley on a shaft with a parallel key in matching keyways.
"""
import cadquery as cq

PARAMS = {
    "shaft_diameter": 20.0,  # mm
    "shaft_length": 100.0,
    "pulley_diameter": 80.0,
    "pulley_width": 25.0,
    "pulley_z": 40.0,  # bottom face of the pulley
    "key_width": 6.0,
    "key_height": 6.0,
    "shaft_keyway_depth": 3.5,
    "shaft_keyway_length": 30.0,
    "hub_keyway_depth": 2.8,  # beyond the bore
}


def build(params: dict) -> cq.Assembly:
    p = params
    r, kw, w, z0 = p["shaft_diameter"] / 2, p["key_width"], p["pulley_width"], p["pulley_z"]
    seat = r - p["shaft_keyway_depth"]  # y of the shaft keyway's bottom
    keyway = (cq.Workplane("XY")
              .box(kw, p["shaft_keyway_depth"] + 1, p["shaft_keyway_length"], centered=(True, False, False))
              .translate((0, seat, z0 + w / 2 - p["shaft_keyway_length"] / 2)))
    shaft = cq.Workplane("XY").circle(r).extrude(p["shaft_length"]).cut(keyway)
    hub_keyway = cq.Workplane("XY").box(kw, r + p["hub_keyway_depth"], w, centered=(True, False, False))
    pulley = cq.Workplane("XY").circle(p["pulley_diameter"] / 2).circle(r).extrude(w).cut(hub_keyway)
    key = cq.Workplane("XY").box(kw + 2, p["key_height"], w, centered=(True, False, False))
    assy = cq.Assembly(name="pulley_key")
    assy.add(shaft, name="shaft")
    assy.add(pulley, name="pulley", loc=cq.Location(cq.Vector(0, 0, z0)))
    assy.add(key, name="key", loc=cq.Location(cq.Vector(0, seat, z0)))
    return assy
