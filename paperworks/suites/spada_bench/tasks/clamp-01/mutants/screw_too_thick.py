"""Mutant of clamp-01: screw wider than its hole (must fail a hidden test or check).

C-clamp: a C frame, a screw through its arm, a swivel pad and a tommy-bar handle.
"""
import cadquery as cq

PARAMS = {
    "bar": 15.0,  # mm, frame bar section (X/Z)
    "thickness": 12.0,  # frame thickness (Y)
    "reach": 60.0,  # arm length from the spine's back
    "height": 100.0,
    "screw_x": -15.0,
    "hole_diameter": 10.0,
    "screw_diameter": 11.0,
    "screw_length": 90.0,
    "opening": 30.0,  # anvil to pad
    "pad_diameter": 20.0,
    "pad_thickness": 5.0,
    "handle_diameter": 6.0,
    "handle_length": 60.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    b, t, h, x0 = p["bar"], p["thickness"], p["height"], -p["reach"]
    frame = (cq.Workplane("XY").box(b, t, h, centered=(False, True, False)).translate((x0, 0, 0))
             .union(cq.Workplane("XY").box(p["reach"], t, b, centered=(False, True, False)).translate((x0, 0, 0)))
             .union(cq.Workplane("XY").box(p["reach"], t, b, centered=(False, True, False)).translate((x0, 0, h - b))))
    frame = frame.cut(cq.Workplane("XY").circle(p["hole_diameter"] / 2).extrude(b).translate((p["screw_x"], 0, h - b)))
    pad_z = b + p["opening"]
    handle_z = pad_z + p["pad_thickness"] + p["screw_length"] - 7
    cross = cq.Workplane("YZ").circle(p["handle_diameter"] / 2).extrude(p["screw_diameter"], both=True)
    screw = (cq.Workplane("XY").circle(p["screw_diameter"] / 2).extrude(p["screw_length"])
             .cut(cross.translate((0, 0, handle_z - pad_z - p["pad_thickness"]))))
    pad = cq.Workplane("XY").circle(p["pad_diameter"] / 2).extrude(p["pad_thickness"])
    handle = cq.Workplane("YZ").circle(p["handle_diameter"] / 2).extrude(p["handle_length"] / 2, both=True)
    assy = cq.Assembly(name="clamp")
    assy.add(frame, name="frame")
    assy.add(screw, name="screw", loc=cq.Location(cq.Vector(p["screw_x"], 0, pad_z + p["pad_thickness"])))
    assy.add(pad, name="pad", loc=cq.Location(cq.Vector(p["screw_x"], 0, pad_z)))
    assy.add(handle, name="handle", loc=cq.Location(cq.Vector(p["screw_x"], 0, handle_z)))
    return assy
