"""Mutant of wheel-axle-01: axle wider than the frame bore (must fail a hidden test or check).

Wheels and axle: an axle in a frame's clearance bore, located by collars, with two wheels.
"""
import cadquery as cq

PARAMS = {
    "axle_diameter": 13.0,  # mm
    "axle_length": 160.0,
    "bore_diameter": 12.5,  # frame clearance bore
    "frame_size": [100.0, 40.0, 30.0],
    "collar_diameter": 20.0,
    "collar_length": 5.0,
    "wheel_diameter": 80.0,
    "wheel_width": 20.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    d, half = p["axle_diameter"], p["axle_length"] / 2
    fx, fy, fz = p["frame_size"]
    z = p["wheel_diameter"] / 2  # wheels on the ground
    bore = cq.Workplane("YZ").circle(p["bore_diameter"] / 2).extrude(fx, both=True)
    frame = cq.Workplane("XY").box(fx, fy, fz).cut(bore)
    axle = cq.Workplane("YZ").circle(d / 2).extrude(half, both=True)
    collar = cq.Workplane("YZ").circle(p["collar_diameter"] / 2).circle(d / 2).extrude(p["collar_length"])
    wheel = cq.Workplane("YZ").circle(p["wheel_diameter"] / 2).circle(d / 2).extrude(p["wheel_width"])
    assy = cq.Assembly(name="wheel_axle")
    assy.add(frame, name="frame", loc=cq.Location(cq.Vector(0, 0, z)))
    assy.add(axle, name="axle", loc=cq.Location(cq.Vector(0, 0, z)))
    assy.add(collar, name="collar_left", loc=cq.Location(cq.Vector(-fx / 2 - p["collar_length"], 0, z)))
    assy.add(collar, name="collar_right", loc=cq.Location(cq.Vector(fx / 2, 0, z)))
    assy.add(wheel, name="wheel_left", loc=cq.Location(cq.Vector(-half, 0, z)))
    assy.add(wheel, name="wheel_right", loc=cq.Location(cq.Vector(half - p["wheel_width"], 0, z)))
    return assy
