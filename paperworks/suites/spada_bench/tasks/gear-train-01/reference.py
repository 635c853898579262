"""Gear train: three pitch-cylinder gears in a line, each at m * (z1 + z2) / 2 from its neighbour."""
import cadquery as cq

PARAMS = {
    "module": 1.5,  # mm
    "teeth": [18, 30, 24],  # driver, idler, driven
    "gear_width": 8.0,
    "gear_height": 15.0,  # bottom face of the gears
    "shaft_diameter": 6.0,
    "shaft_length": 30.0,
    "plate_size": [140.0, 60.0, 8.0],
    "plate_start": -30.0,  # x of the plate's left edge
}


def build(params: dict) -> cq.Assembly:
    p = params
    m, teeth = p["module"], p["teeth"]
    px, py, pz = p["plate_size"]
    plate = cq.Workplane("XY").box(px, py, pz, centered=(False, True, False)).translate((p["plate_start"], 0, 0))
    shaft = cq.Workplane("XY").circle(p["shaft_diameter"] / 2).extrude(p["shaft_length"])
    assy = cq.Assembly(name="gear_train")
    assy.add(plate, name="plate")
    x = 0.0
    for i, z in enumerate(teeth, 1):
        if i > 1:
            x += m * (teeth[i - 2] + z) / 2  # pitch circles touch
        gear = cq.Workplane("XY").circle(m * z / 2).circle(p["shaft_diameter"] / 2).extrude(p["gear_width"])
        assy.add(shaft, name=f"shaft_{i}", loc=cq.Location(cq.Vector(x, 0, pz)))
        assy.add(gear, name=f"gear_{i}", loc=cq.Location(cq.Vector(x, 0, p["gear_height"])))
    return assy
