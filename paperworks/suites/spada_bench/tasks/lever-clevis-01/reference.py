"""Lever in a clevis: a lever on a pivot pin between the two cheeks of a U bracket."""
import cadquery as cq

PARAMS = {
    "base_size": [80.0, 40.0, 10.0],  # mm, X Y Z
    "web_size": [60.0, 30.0, 10.0],
    "cheek_thickness": 8.0,
    "gap": 12.4,  # between the cheeks
    "cheek_top": 60.0,  # z
    "pivot_z": 45.0,
    "cheek_hole": 8.4,
    "lever_size": [12.0, 100.0, 16.0],  # X Y Z
    "lever_back": 20.0,  # lever length behind the pivot
    "lever_hole": 8.0,
    "pin_diameter": 8.0,
    "pin_length": 32.0,
    "head_diameter": 12.0,
    "head_length": 2.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    bx, by, bz = p["base_size"]
    wx, wy, wz = p["web_size"]
    g, t, zp = p["gap"], p["cheek_thickness"], p["pivot_z"]
    top = bz + wz
    base = cq.Workplane("XY").box(bx, by, bz, centered=(True, True, False))
    clevis = cq.Workplane("XY").box(wx, wy, wz, centered=(True, True, False)).translate((0, 0, bz))
    for x in (-g / 2 - t, g / 2):
        cheek = cq.Workplane("XY").box(t, wy, p["cheek_top"] - top, centered=(False, True, False))
        clevis = clevis.union(cheek.translate((x, 0, top)))
    pivot = cq.Workplane("YZ").center(0, zp).circle(p["cheek_hole"] / 2).extrude(g + 2 * t, both=True)
    clevis = clevis.cut(pivot)
    lx, ly, lz = p["lever_size"]
    lever = (cq.Workplane("XY").box(lx, ly, lz, centered=(True, False, True)).translate((0, -p["lever_back"], 0))
             .cut(cq.Workplane("YZ").circle(p["lever_hole"] / 2).extrude(lx, both=True)))
    pin = (cq.Workplane("YZ").circle(p["pin_diameter"] / 2).extrude(p["pin_length"])
           .union(cq.Workplane("YZ").circle(p["head_diameter"] / 2).extrude(-p["head_length"])))
    assy = cq.Assembly(name="lever_clevis")
    assy.add(base, name="base")
    assy.add(clevis, name="clevis")
    assy.add(lever, name="lever", loc=cq.Location(cq.Vector(0, 0, zp)))
    assy.add(pin, name="pin", loc=cq.Location(cq.Vector(-g / 2 - t, 0, zp)))
    return assy
