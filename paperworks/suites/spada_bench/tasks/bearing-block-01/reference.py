"""Bearing block: a housing on a base plate, with a bearing ring in its bore and a shaft."""
import cadquery as cq

PARAMS = {
    "base_size": [120.0, 60.0, 10.0],  # mm, X Y Z
    "housing_size": [50.0, 40.0, 40.0],
    "axis_height": 35.0,  # bore axis above the floor (z = 0)
    "bore_diameter": 30.0,
    "bearing_od": 30.0,
    "bearing_id": 15.0,
    "bearing_width": 12.0,
    "shaft_diameter": 15.0,
    "shaft_length": 100.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    bx, by, bz = p["base_size"]
    hx, hy, hz = p["housing_size"]
    z = p["axis_height"]
    base = cq.Workplane("XY").box(bx, by, bz, centered=(True, True, False))
    bore = cq.Workplane("XZ").center(0, z - bz).circle(p["bore_diameter"] / 2).extrude(hy, both=True)
    housing = cq.Workplane("XY").box(hx, hy, hz, centered=(True, True, False)).cut(bore)
    bearing = (cq.Workplane("XZ").circle(p["bearing_od"] / 2).circle(p["bearing_id"] / 2)
               .extrude(p["bearing_width"] / 2, both=True))
    shaft = cq.Workplane("XZ").circle(p["shaft_diameter"] / 2).extrude(p["shaft_length"] / 2, both=True)
    assy = cq.Assembly(name="bearing_block")
    assy.add(base, name="base")
    assy.add(housing, name="housing", loc=cq.Location(cq.Vector(0, 0, bz)))
    assy.add(bearing, name="bearing", loc=cq.Location(cq.Vector(0, 0, z)))
    assy.add(shaft, name="shaft", loc=cq.Location((0, 0, z)))
    return assy
