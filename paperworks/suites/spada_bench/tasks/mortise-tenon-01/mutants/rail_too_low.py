"""Mutant of mortise-tenon-01: rail at the wrong height (must fail a hidden test or check).

Mortise and tenon: a rail's tenon in a clearance mortise in a square post.
"""
import cadquery as cq

PARAMS = {
    "post_size": 50.0,  # mm, square section
    "post_height": 300.0,
    "rail_section": [30.0, 60.0],  # Y, Z
    "rail_length": 250.0,  # shoulder to end
    "rail_height": 150.0,  # centre of the rail above the floor
    "tenon": [30.0, 10.0, 40.0],  # length X, thickness Y, height Z
    "mortise": [32.0, 10.4, 40.4],  # depth X, width Y, height Z
}


def build(params: dict) -> cq.Assembly:
    p = params
    s, z = p["post_size"], p["rail_height"]
    tl, tt, th = p["tenon"]
    md, mw, mh = p["mortise"]
    mortise = cq.Workplane("XY").box(md, mw, mh).translate((s / 2 - md / 2, 0, z))
    post = cq.Workplane("XY").box(s, s, p["post_height"], centered=(True, True, False)).cut(mortise)
    ry, rz = p["rail_section"]
    rail = (cq.Workplane("XY").box(p["rail_length"], ry, rz, centered=(False, True, True))
            .union(cq.Workplane("XY").box(tl, tt, th, centered=(False, True, True)).translate((-tl, 0, 0))))
    assy = cq.Assembly(name="mortise_tenon")
    assy.add(post, name="post")
    assy.add(rail, name="rail", loc=cq.Location(cq.Vector(s / 2, 0, z)))
    return assy
