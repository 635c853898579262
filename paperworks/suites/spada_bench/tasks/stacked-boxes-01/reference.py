"""Stacked boxes: three open-top boxes stacked on each other, with a lid on top."""
import cadquery as cq

PARAMS = {
    "box_size": [100.0, 80.0, 40.0],  # mm, outside X Y Z
    "wall": 3.0,
    "count": 3,
    "lid_thickness": 5.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    bx, by, bz = p["box_size"]
    t = p["wall"]
    inside = cq.Workplane("XY").box(bx - 2 * t, by - 2 * t, bz, centered=(True, True, False)).translate((0, 0, t))
    box = cq.Workplane("XY").box(bx, by, bz, centered=(True, True, False)).cut(inside)  # open at the top
    lid = cq.Workplane("XY").box(bx, by, p["lid_thickness"], centered=(True, True, False))
    assy = cq.Assembly(name="stacked_boxes")
    for i in range(p["count"]):
        assy.add(box, name=f"box_{i + 1}", loc=cq.Location(cq.Vector(0, 0, i * bz)))
    assy.add(lid, name="lid", loc=cq.Location(cq.Vector(0, 0, p["count"] * bz)))
    return assy
