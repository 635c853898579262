"""Mutant of l-bracket-01: bolts 1 mm off their holes (must fail a hidden test or check).

L-bracket on a base plate, fastened by two bolts through clearance holes into tapped holes.
"""
import cadquery as cq

PARAMS = {
    "base_size": [120.0, 80.0, 10.0],  # mm, X Y Z
    "leg_length": 60.0,  # horizontal leg, along X
    "leg_height": 60.0,  # vertical leg, above the base
    "bracket_width": 40.0,
    "thickness": 5.0,
    "bolt_points": [[-10.0, -10.0], [-10.0, 10.0]],
    "bolt_diameter": 6.0,
    "clearance_hole": 6.6,
    "head_diameter": 10.0,
    "head_height": 4.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    bx, by, bz = p["base_size"]
    t, w, length = p["thickness"], p["bracket_width"], p["leg_length"]
    points = [tuple(xy) for xy in p["bolt_points"]]
    base = (cq.Workplane("XY").box(bx, by, bz, centered=(True, True, False))
            .faces(">Z").workplane().pushPoints(points).hole(p["bolt_diameter"]))
    bracket = (cq.Workplane("XY").box(length, w, t, centered=(True, True, False))
               .union(cq.Workplane("XY").box(t, w, p["leg_height"], centered=(False, True, False))
                      .translate((length / 2 - t, 0, 0)))
               .faces("<Z").workplane().pushPoints([(x, -y) for x, y in points]).hole(p["clearance_hole"]))
    bolt = (cq.Workplane("XY").circle(p["bolt_diameter"] / 2).extrude(-(bz + t))
            .faces(">Z").workplane().circle(p["head_diameter"] / 2).extrude(p["head_height"]))
    assy = cq.Assembly(name="l_bracket")
    assy.add(base, name="base")
    assy.add(bracket, name="bracket", loc=cq.Location(cq.Vector(0, 0, bz)))
    for i, (x, y) in enumerate(points, 1):
        assy.add(bolt, name=f"bolt_{i}", loc=cq.Location(cq.Vector(x, y * 1.1, bz + t)))
    return assy
