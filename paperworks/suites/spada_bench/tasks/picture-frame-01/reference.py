"""Picture frame: four butt-jointed bars around a panel that fills the opening."""
import cadquery as cq

PARAMS = {
    "outside": [300.0, 200.0],  # mm, X Y
    "bar_width": 20.0,
    "bar_thickness": 15.0,
    "panel_thickness": 3.0,
}


def build(params: dict) -> cq.Assembly:
    p = params
    (w, h), b, t = p["outside"], p["bar_width"], p["bar_thickness"]
    rail = cq.Workplane("XY").box(w, b, t, centered=(True, True, False))
    stile = cq.Workplane("XY").box(b, h - 2 * b, t, centered=(True, True, False))
    panel = cq.Workplane("XY").box(w - 2 * b, h - 2 * b, p["panel_thickness"], centered=(True, True, False))
    assy = cq.Assembly(name="picture_frame")
    assy.add(rail, name="rail_top", loc=cq.Location(cq.Vector(0, h / 2 - b / 2, 0)))
    assy.add(rail, name="rail_bottom", loc=cq.Location(cq.Vector(0, -h / 2 + b / 2, 0)))
    assy.add(stile, name="stile_left", loc=cq.Location(cq.Vector(-w / 2 + b / 2, 0, 0)))
    assy.add(stile, name="stile_right", loc=cq.Location(cq.Vector(w / 2 - b / 2, 0, 0)))
    assy.add(panel, name="panel")
    return assy
