"""Mutant of hinge-01: pin lifted off the knuckle (must fail a hidden test or check).

Butt hinge: two leaves with one knuckle each and a headed pin, lying open and flat.
"""
import cadquery as cq

PARAMS = {
    "height": 40.0,  # mm, along the pin axis (Z)
    "leaf_reach": 30.0,  # from the pin axis to the leaf's outer edge
    "leaf_thickness": 3.0,
    "knuckle_diameter": 10.0,
    "bore_diameter": 4.4,
    "pin_diameter": 4.0,
    "head_diameter": 7.0,
    "head_height": 2.0,
}


def leaf(p: dict, side: int, z0: float, z1: float) -> cq.Workplane:
    """One leaf on the side `side` (-1 or +1) with its knuckle between z0 and z1."""
    r, t, h = p["knuckle_diameter"] / 2, p["leaf_thickness"], p["height"]
    gap = 1.0  # plate clearance from the other leaf's knuckle
    plate = cq.Workplane("XY").box(p["leaf_reach"] - r - gap, t, h, centered=False) \
        .translate((r + gap, -t / 2, 0))
    web = cq.Workplane("XY").box(r + gap + 0.5 - 3, t, z1 - z0, centered=False).translate((3, -t / 2, z0))
    knuckle = cq.Workplane("XY").circle(r).extrude(z1 - z0).translate((0, 0, z0))
    bore = cq.Workplane("XY").circle(p["bore_diameter"] / 2).extrude(h)
    body = plate.union(web).union(knuckle).cut(bore)
    return body.mirror("YZ") if side < 0 else body


def build(params: dict) -> cq.Assembly:
    p = params
    h = p["height"]
    pin = (cq.Workplane("XY").circle(p["pin_diameter"] / 2).extrude(h)
           .faces(">Z").workplane().circle(p["head_diameter"] / 2).extrude(p["head_height"]))
    assy = cq.Assembly(name="hinge")
    assy.add(leaf(p, -1, 0, h / 2), name="leaf_a")
    assy.add(leaf(p, +1, h / 2, h), name="leaf_b")
    assy.add(pin, name="pin", loc=cq.Location(cq.Vector(0, 0, 1)))
    return assy
