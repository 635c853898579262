"""Mutant of drawer-cabinet-01: handle 3 mm in front of the panel (must fail a hidden test or check).

Drawer in a cabinet: an open-front carcass, a drawer with side clearance, and a handle.
"""
import cadquery as cq

PARAMS = {
    "cabinet_size": [400.0, 450.0, 200.0],  # mm, X Y Z (front is -Y)
    "wall": 15.0,
    "side_clearance": 2.0,  # each side of the drawer body
    "drawer_depth": 420.0,
    "drawer_height": 150.0,
    "drawer_wall": 10.0,
    "panel_size": [396.0, 15.0, 166.0],
    "handle_size": [120.0, 20.0, 20.0],
}


def build(params: dict) -> cq.Assembly:
    p = params
    cx, cy, cz = p["cabinet_size"]
    t = p["wall"]
    front = -cy / 2
    cavity = cq.Workplane("XY").box(cx - 2 * t, cy - t, cz - 2 * t, centered=(True, False, False)) \
        .translate((0, front, t))
    cabinet = cq.Workplane("XY").box(cx, cy, cz, centered=(True, True, False)).cut(cavity)
    bw = cx - 2 * t - 2 * p["side_clearance"]
    dw = p["drawer_wall"]
    inside = cq.Workplane("XY").box(bw - 2 * dw, p["drawer_depth"] - 2 * dw, p["drawer_height"],
                                    centered=(True, False, False)).translate((0, dw, dw))
    body = (cq.Workplane("XY").box(bw, p["drawer_depth"], p["drawer_height"], centered=(True, False, False))
            .cut(inside))  # open at the top
    px, py, pz = p["panel_size"]
    panel = cq.Workplane("XY").box(px, py, pz, centered=(True, False, True)).translate((0, -py, cz / 2 - t))
    drawer = body.union(panel)
    hx, hy, hz = p["handle_size"]
    handle = cq.Workplane("XY").box(hx, hy, hz, centered=(True, False, True))
    assy = cq.Assembly(name="drawer_cabinet")
    assy.add(cabinet, name="cabinet")
    assy.add(drawer, name="drawer", loc=cq.Location(cq.Vector(0, front, t)))
    assy.add(handle, name="handle", loc=cq.Location(cq.Vector(0, front - py - hy - 3, cz / 2)))
    return assy
