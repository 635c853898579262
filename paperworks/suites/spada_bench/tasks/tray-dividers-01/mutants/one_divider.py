"""Mutant of tray-dividers-01: one divider (must fail a hidden test or check).

Divided tray: an open tray with dividers making equal compartments.
"""
import cadquery as cq

PARAMS = {
    "tray_size": [200.0, 120.0, 40.0],  # mm, outside X Y Z
    "wall": 4.0,
    "dividers": 1,
    "divider_thickness": 3.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    (lx, ly, lz), t, dt, n = p["tray_size"], p["wall"], p["divider_thickness"], p["dividers"]
    inside = cq.Workplane("XY").box(lx - 2 * t, ly - 2 * t, lz, centered=(True, True, False)).translate((0, 0, t))
    tray = cq.Workplane("XY").box(lx, ly, lz, centered=(True, True, False)).cut(inside)
    divider = cq.Workplane("XY").box(dt, ly - 2 * t, lz - t, centered=(False, True, False))
    cell = (lx - 2 * t - n * dt) / (n + 1)  # equal compartments
    assy = cq.Assembly(name="divided_tray")
    assy.add(tray, name="tray")
    for i in range(n):
        x = -lx / 2 + t + (i + 1) * cell + i * dt
        assy.add(divider, name=f"divider_{i + 1}", loc=cq.Location(cq.Vector(x, 0, t)))
    return assy
