"""Mutant of gear-pair-01: pitch circles 2 mm apart (must fail a hidden test or check).

Spur gear pair: two pitch-cylinder gears on shafts at the centre distance m * (z1 + z2) / 2.
"""
import cadquery as cq

PARAMS = {
    "module": 2.0,  # mm
    "teeth": [20, 40],
    "gear_width": 10.0,
    "gear_height": 20.0,  # bottom face of both gears
    "shaft_diameter": 10.0,
    "shaft_length": 40.0,
    "plate_size": [140.0, 80.0, 10.0],
}


def build(params: dict) -> cq.Assembly:
    p = params
    m, (z1, z2) = p["module"], p["teeth"]
    a = m * (z1 + z2) / 2 + 2  # centre distance: the pitch circles touch
    px, py, pz = p["plate_size"]
    plate = cq.Workplane("XY").box(px, py, pz, centered=(True, True, False))
    shaft = cq.Workplane("XY").circle(p["shaft_diameter"] / 2).extrude(p["shaft_length"])
    assy = cq.Assembly(name="gear_pair")
    assy.add(plate, name="plate")
    for i, (teeth, x) in enumerate(((z1, -a / 2), (z2, a / 2)), 1):
        gear = (cq.Workplane("XY").circle(m * teeth / 2).circle(p["shaft_diameter"] / 2)
                .extrude(p["gear_width"]))
        assy.add(shaft, name=f"shaft_{i}", loc=cq.Location(cq.Vector(x, 0, pz)))
        assy.add(gear, name=f"gear_{i}", loc=cq.Location(cq.Vector(x, 0, p["gear_height"])))
    return assy
