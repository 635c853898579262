"""Mutant of hook-plate-01: hook reaching 35 mm (must fail a hidden test or check).

Wall hook: a plate screwed to the wall and a J hook fixed to its front face.
"""
import cadquery as cq

PARAMS = {
    "plate_size": [100.0, 8.0, 60.0],  # mm, X Y Z (back face at y = 0)
    "hole_diameter": 5.0,
    "hole_spacing": 70.0,
    "hole_z": 30.0,
    "screw_diameter": 4.5,
    "screw_length": 20.0,
    "head_diameter": 9.0,
    "head_thickness": 3.0,
    "foot_diameter": 24.0,
    "foot_thickness": 4.0,
    "arm_diameter": 10.0,
    "reach": 35.0,  # from the plate's front face to the arm's end
    "hook_z": 20.0,
    "tip_top": 45.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    px, py, pz = p["plate_size"]
    s, zh = p["hole_spacing"], p["hole_z"]
    holes = cq.Workplane("XZ").pushPoints([(-s / 2, zh), (s / 2, zh)]).circle(p["hole_diameter"] / 2).extrude(-py)
    plate = cq.Workplane("XY").box(px, py, pz, centered=(True, False, False)).cut(holes)
    r, ft = p["arm_diameter"] / 2, p["foot_thickness"]
    foot = cq.Workplane("XZ").circle(p["foot_diameter"] / 2).extrude(-ft)
    arm = cq.Workplane("XZ").circle(r).extrude(-p["reach"])
    tip = cq.Workplane("XY").circle(r).extrude(p["tip_top"] - p["hook_z"]).translate((0, p["reach"] - r, 0))
    hook = foot.union(arm).union(tip)
    screw = (cq.Workplane("XZ").circle(p["screw_diameter"] / 2).extrude(p["screw_length"])
             .union(cq.Workplane("XZ").circle(p["head_diameter"] / 2).extrude(-p["head_thickness"])))
    assy = cq.Assembly(name="hook_plate")
    assy.add(plate, name="plate")
    assy.add(hook, name="hook", loc=cq.Location(cq.Vector(0, py, p["hook_z"])))
    for i, x in enumerate((-s / 2, s / 2), 1):
        assy.add(screw, name=f"screw_{i}", loc=cq.Location(cq.Vector(x, py, zh)))
    return assy
