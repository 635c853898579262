"""Mutant of shaft-bore-01: bore smaller than the shaft (must fail a hidden test or check).

Shaft in a bore: a shouldered shaft in a clearance bore through a housing block.
"""
import cadquery as cq

PARAMS = {
    "housing_size": [60.0, 50.0, 50.0],  # mm, X Y Z
    "axis_height": 30.0,  # bore axis above the housing's bottom face
    "bore_diameter": 19.8,
    "shaft_diameter": 20.0,
    "shaft_length": 110.0,
    "shaft_start": -40.0,  # x of the shaft's left end
    "collar_diameter": 28.0,
    "collar_length": 5.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    lx, ly, lz = p["housing_size"]
    z = p["axis_height"]
    bore = cq.Workplane("YZ").center(0, z).circle(p["bore_diameter"] / 2).extrude(lx, both=True)
    housing = cq.Workplane("XY").box(lx, ly, lz, centered=(True, True, False)).cut(bore)
    collar_at = lx / 2 - p["shaft_start"]  # the collar's face meets the housing's +X face
    shaft = (cq.Workplane("YZ").circle(p["shaft_diameter"] / 2).extrude(p["shaft_length"])
             .union(cq.Workplane("YZ").workplane(offset=collar_at)
                    .circle(p["collar_diameter"] / 2).extrude(p["collar_length"])))
    assy = cq.Assembly(name="shaft_bore")
    assy.add(housing, name="housing")
    assy.add(shaft, name="shaft", loc=cq.Location(cq.Vector(p["shaft_start"], 0, z)))
    return assy
