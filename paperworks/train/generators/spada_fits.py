"""SPADA problem families with one fit each: a headed pin in a plate's clearance hole (``pin_plate``) and a
collared shaft in a housing's bore (``shaft_bore``)."""

from __future__ import annotations

from typing import Any

from paperworks.train.generators.spada_templates import Family, Mutation, Params, fl, num

# ----------------------------------------------------------------------------------------------- pin in a plate

PLATES = ("plate", "base_plate", "mount_plate", "panel", "deck")
PINS = ("pin", "peg", "locating_pin", "stud", "rivet")


def _pin_draw(rng: Any) -> Params:
    d = rng.randint(4, 12)
    head = d + rng.randint(4, 8)
    length, width = rng.randrange(60, 125, 5), rng.randrange(40, 85, 5)
    mx, my = int((length / 2 - head / 2 - 5) // 5), int((width / 2 - head / 2 - 5) // 5)
    t = rng.randint(4, 12)
    return {"plate": rng.choice(PLATES), "pin": rng.choice(PINS), "length": length, "width": width, "t": t,
            "hx": 5 * rng.randint(-mx, mx), "hy": 5 * rng.randint(-my, my),
            "hole": d + rng.choice((0.2, 0.3, 0.4, 0.5)), "d": d, "shank": t + rng.randint(6, 25),
            "head": head, "head_h": rng.randint(2, 5)}


def _pin_where(p: Params) -> str:
    return "at its centre" if p["hx"] == 0 and p["hy"] == 0 else f"at x = {num(p['hx'])}, y = {num(p['hy'])}"


def _pin_train_a(p: Params) -> str:
    return (f"Z is up. Model a rectangular `{p['plate']}` {num(p['length'])} mm (X) x {num(p['width'])} mm (Y) x "
            f"{num(p['t'])} mm (Z), bottom face at z = 0, centred on the origin in X and Y, with one vertical "
            f"through hole of diameter {num(p['hole'])} mm {_pin_where(p)} (a clearance hole). A headed "
            f"`{p['pin']}` goes down through the hole: shank diameter {num(p['d'])} mm and {num(p['shank'])} mm "
            f"long, head diameter {num(p['head'])} mm and {num(p['head_h'])} mm tall; the underside of the head "
            f"rests on the plate's top face (z = {num(p['t'])}) and the shank is coaxial with the hole. Exactly "
            f"these two parts, named `{p['plate']}` and `{p['pin']}`; they must not overlap.")


def _pin_train_b(p: Params) -> str:
    return (f"Build a two-part assembly, Z up. Part `{p['plate']}`: a plate {num(p['length'])} x "
            f"{num(p['width'])} x {num(p['t'])} mm (X x Y x Z) lying on z = 0, centred on the origin in X and Y, "
            f"pierced by a vertical {num(p['hole'])} mm clearance hole at (x, y) = ({num(p['hx'])}, "
            f"{num(p['hy'])}). Part `{p['pin']}`: a {num(p['d'])} mm diameter shank {num(p['shank'])} mm long "
            f"under a {num(p['head'])} mm diameter head {num(p['head_h'])} mm thick. The pin sits in the hole on "
            "the hole's axis with the head's underside on the plate's top face, so the shank sticks out below "
            "the plate. The two parts touch but do not overlap.")


def _pin_heldout(p: Params) -> str:
    return (f"A locating pin in a plate (Z is the vertical axis); make exactly two solids. The plate, called "
            f"`{p['plate']}`, measures {num(p['length'])} mm along X and {num(p['width'])} mm along Y and is "
            f"{num(p['t'])} mm thick; its underside is on z = 0 and it is centred at the origin in plan. Drill a "
            f"{num(p['hole'])} mm hole straight through it, centred at x = {num(p['hx'])} mm, y = "
            f"{num(p['hy'])} mm. The pin, called `{p['pin']}`, has a {num(p['shank'])} mm long shank of "
            f"{num(p['d'])} mm diameter under a head of {num(p['head'])} mm diameter and {num(p['head_h'])} mm "
            "height; drop it into the hole so that its head bears on the plate's upper face and its axis is the "
            "hole's axis. The parts may touch but must not intersect.")


def _pin_code(p: Params) -> str:
    return f'''"""Pin in a plate: a headed pin through a clearance hole of a rectangular plate."""
import cadquery as cq

PARAMS = {{
    "plate_length": {fl(p["length"])},  # mm, along X
    "plate_width": {fl(p["width"])},  # mm, along Y
    "plate_thickness": {fl(p["t"])},
    "hole_x": {fl(p["hx"])},
    "hole_y": {fl(p["hy"])},
    "hole_diameter": {fl(p["hole"])},  # clearance hole for the pin
    "pin_diameter": {fl(p["d"])},
    "pin_length": {fl(p["shank"])},  # shank length under the head
    "head_diameter": {fl(p["head"])},
    "head_height": {fl(p["head_h"])},
}}


def build(params: dict) -> cq.Assembly:
    p = params
    t = p["plate_thickness"]
    hole = (cq.Workplane("XY").workplane(offset=-1).center(p["hole_x"], p["hole_y"])
            .circle(p["hole_diameter"] / 2).extrude(t + 2))
    plate = cq.Workplane("XY").box(p["plate_length"], p["plate_width"], t, centered=(True, True, False)).cut(hole)
    pin = (cq.Workplane("XY").circle(p["head_diameter"] / 2).extrude(p["head_height"])
           .union(cq.Workplane("XY").circle(p["pin_diameter"] / 2).extrude(-p["pin_length"])))
    assy = cq.Assembly(name="pin_plate")
    assy.add(plate, name="{p["plate"]}")
    assy.add(pin, name="{p["pin"]}", loc=cq.Location(cq.Vector(p["hole_x"], p["hole_y"], t)))  # head on the top face
    return assy


result = build(PARAMS)
'''


def _pin_tests(p: Params) -> str:
    a, b, t = repr(p["plate"]), repr(p["pin"]), num(p["t"])
    return f'''
def test_parts_named(ctx):
    assert {{{a}, {b}}} <= set(ctx.parts), f"expected parts {p["plate"]} and {p["pin"]}, got {{sorted(ctx.parts)}}"


def test_plate(ctx):
    _bounds(ctx, {a}, (-{num(p["length"] / 2)}, -{num(p["width"] / 2)}, 0, {num(p["length"] / 2)}, \
{num(p["width"] / 2)}, {t}))


def test_plate_hole(ctx):
    _hole(ctx, {a}, {num(p["hole"])}, ({num(p["hx"])}, {num(p["hy"])}, -1), (0, 0, 1), {t} + 2)


def test_pin_shank(ctx):
    dx, dy, _ = _slab(ctx, {b}, 2, -1000, -1)
    _near(dx, {num(p["d"])}, 0.05, "shank diameter")
    _near(dy, {num(p["d"])}, 0.05, "shank diameter")
    _near(_size(ctx, {b})[2], {num(p["shank"] + p["head_h"])}, 0.1, "pin length including the head")


def test_pin_head(ctx):
    dx, dy, dz = _slab(ctx, {b}, 2, {t} + 0.01, 1000)
    _near(dx, {num(p["head"])}, 0.1, "head diameter")
    _near(dy, {num(p["head"])}, 0.1, "head diameter")
    _near(dz, {num(p["head_h"] - 0.01)}, 0.1, "head height above the plate")


def test_pin_coaxial_with_hole(ctx):
    cx, cy, _ = ctx.center({b})
    _near(cx, {num(p["hx"])}, 0.05, "pin axis x")
    _near(cy, {num(p["hy"])}, 0.05, "pin axis y")
    _near(ctx.bbox({b})[2], {num(p["t"] - p["shank"])}, 0.1, "bottom of the shank")


def test_fit(ctx):
    _apart(ctx, {b}, {a})
    _touch(ctx, {b}, {a})
'''


PIN_PLATE = Family(
    name="pin_plate", category="fit", draw=_pin_draw,
    requests={"train": [_pin_train_a, _pin_train_b], "heldout": [_pin_heldout]},
    abstract=lambda p: (f"A headed {num(p['d'])} mm pin seated in a clearance hole of a "
                        f"{num(p['length'])} x {num(p['width'])} mm plate."),
    code=_pin_code, tests=_pin_tests,
    size=lambda p: (p["length"], p["width"], p["shank"] + p["head_h"]),
    parts=lambda p: [p["plate"], p["pin"]],
    signature=lambda p: [p[k] for k in ("length", "width", "t", "hole", "d", "shank", "head", "head_h", "hx", "hy")],
    mutations=(
        Mutation("pin_too_thick", "pin wider than the hole",
                 lambda p: (f'"pin_diameter": {fl(p["d"])},', f'"pin_diameter": {fl(p["hole"] + 0.4)},')),
        Mutation("hole_no_clearance", "hole the size of the pin",
                 lambda p: (f'"hole_diameter": {fl(p["hole"])},', f'"hole_diameter": {fl(p["d"])},')),
        Mutation("pin_floating", "pin lifted off the plate",
                 lambda p: ('p["hole_y"], t)', 'p["hole_y"], t + 2)')),
        Mutation("pin_off_centre", "pin not coaxial with the hole",
                 lambda p: ('cq.Vector(p["hole_x"], p["hole_y"]', 'cq.Vector(p["hole_x"] + 0.3, p["hole_y"]')),
    ),
)

# ------------------------------------------------------------------------------------------- shaft in a bore

HOUSINGS = ("housing", "block", "bearing_block", "body", "pillow_block")
SHAFTS = ("shaft", "axle", "spindle", "rod", "arbor")


def _shaft_draw(rng: Any) -> Params:
    d = rng.randint(8, 30)
    bore = d + rng.choice((0.2, 0.3, 0.4))
    collar = d + 2 * rng.randint(3, 6)
    lx = rng.randrange(30, 82, 2)
    ly = 2 * rng.randint(int(collar / 2 + 5), int(collar / 2 + 20))
    axis = rng.randint(int(bore / 2 + 6), int(bore / 2 + 20))
    lz = axis + int(bore / 2) + rng.randint(6, 20)
    before, after, cl = rng.randint(5, 20), rng.randint(5, 30), rng.randint(3, 8)
    return {"housing": rng.choice(HOUSINGS), "shaft": rng.choice(SHAFTS), "lx": lx, "ly": ly, "lz": lz,
            "axis": axis, "bore": bore, "d": d, "start": -lx / 2 - before, "length": lx + before + cl + after,
            "collar": collar, "collar_len": cl}


def _shaft_train_a(p: Params) -> str:
    end = p["start"] + p["length"]
    return (f"Z is up. A `{p['housing']}` block {num(p['lx'])} mm (X) x {num(p['ly'])} mm (Y) x {num(p['lz'])} mm "
            f"(Z), bottom face at z = 0, centred on the origin in X and Y, with a through bore of diameter "
            f"{num(p['bore'])} mm along X whose axis is at y = 0, z = {num(p['axis'])}. A `{p['shaft']}` of "
            f"diameter {num(p['d'])} mm and {num(p['length'])} mm long lies in the bore on the same axis, from "
            f"x = {num(p['start'])} to x = {num(end)}, with an integral shoulder collar of diameter "
            f"{num(p['collar'])} mm and {num(p['collar_len'])} mm long whose face bears against the housing's +X "
            f"face (x = {num(p['lx'] / 2)} to {num(p['lx'] / 2 + p['collar_len'])}). Parts named "
            f"`{p['housing']}` and `{p['shaft']}`; no overlap.")


def _shaft_train_b(p: Params) -> str:
    return (f"Two parts, Z up. `{p['housing']}`: a rectangular block, {num(p['lx'])} long in X, {num(p['ly'])} "
            f"wide in Y and {num(p['lz'])} tall, standing on z = 0 and centred on the origin in plan, bored "
            f"through along X with a {num(p['bore'])} mm hole on the axis y = 0, z = {num(p['axis'])}. "
            f"`{p['shaft']}`: a {num(p['d'])} mm round bar {num(p['length'])} mm long on that axis, its left end "
            f"at x = {num(p['start'])}, carrying a shoulder collar ({num(p['collar'])} mm diameter, "
            f"{num(p['collar_len'])} mm long, one solid with the bar) that rests against the block's +X face. All "
            "sizes in mm; the parts must touch and must not overlap.")


def _shaft_heldout(p: Params) -> str:
    return (f"Please model a shaft running in a bored housing, with Z pointing up. The housing part "
            f"`{p['housing']}` is a box of {num(p['lx'])} by {num(p['ly'])} by {num(p['lz'])} mm (X by Y by Z) "
            f"sitting on the plane z = 0 with its centre on the Z axis; a {num(p['bore'])} mm bore runs right "
            f"through it parallel to X, {num(p['axis'])} mm above the bottom, in the plane y = 0. The shaft part "
            f"`{p['shaft']}` ({num(p['d'])} mm diameter, {num(p['length'])} mm overall, starting at x = "
            f"{num(p['start'])}) runs through the bore on its axis; a {num(p['collar_len'])} mm long, "
            f"{num(p['collar'])} mm diameter collar made in one piece with it presses on the housing's face at "
            f"x = {num(p['lx'] / 2)}. Nothing may interpenetrate.")


def _shaft_code(p: Params) -> str:
    return f'''"""Shaft in a bore: a collared shaft in a clearance bore through a housing block."""
import cadquery as cq

PARAMS = {{
    "housing_size": [{fl(p["lx"])}, {fl(p["ly"])}, {fl(p["lz"])}],  # mm, X Y Z
    "axis_height": {fl(p["axis"])},  # bore axis above the housing's bottom face
    "bore_diameter": {fl(p["bore"])},
    "shaft_diameter": {fl(p["d"])},
    "shaft_length": {fl(p["length"])},
    "shaft_start": {fl(p["start"])},  # x of the shaft's left end
    "collar_diameter": {fl(p["collar"])},
    "collar_length": {fl(p["collar_len"])},
}}


def build(params: dict) -> cq.Assembly:
    p = params
    sx, sy, sz = p["housing_size"]
    z = p["axis_height"]
    block = cq.Workplane("XY").box(sx, sy, sz, centered=(True, True, False))
    hole = (cq.Workplane("YZ").workplane(offset=-sx).center(0, z)
            .circle(p["bore_diameter"] / 2).extrude(2 * sx))  # from x = -sx to x = +sx
    collar_at = sx / 2 - p["shaft_start"]  # from the shaft's left end to the housing's +X face
    bar = cq.Workplane("YZ").circle(p["shaft_diameter"] / 2).extrude(p["shaft_length"])
    collar = (cq.Workplane("YZ").workplane(offset=collar_at)
              .circle(p["collar_diameter"] / 2).extrude(p["collar_length"]))
    assy = cq.Assembly(name="shaft_in_housing")
    assy.add(block.cut(hole), name="{p["housing"]}")
    assy.add(bar.union(collar), name="{p["shaft"]}", loc=cq.Location(cq.Vector(p["shaft_start"], 0, z)))
    return assy


result = build(PARAMS)
'''


def _shaft_tests(p: Params) -> str:
    a, b, half = repr(p["housing"]), repr(p["shaft"]), p["lx"] / 2
    return f'''
def test_parts_named(ctx):
    assert {{{a}, {b}}} <= set(ctx.parts), f"expected {p["housing"]} and {p["shaft"]}, got {{sorted(ctx.parts)}}"


def test_housing(ctx):
    _bounds(ctx, {a}, (-{num(half)}, -{num(p["ly"] / 2)}, 0, {num(half)}, {num(p["ly"] / 2)}, {num(p["lz"])}))


def test_bore(ctx):
    _hole(ctx, {a}, {num(p["bore"])}, ({num(-half - 10)}, 0, {num(p["axis"])}), (1, 0, 0), {num(p["lx"] + 20)}, \
tol=0.1)


def test_shaft(ctx):
    _, dy, dz = _slab(ctx, {b}, 0, {num(p["start"] + 1)}, {num(-half - 1)})
    _near(dy, {num(p["d"])}, 0.05, "shaft diameter")
    _near(dz, {num(p["d"])}, 0.05, "shaft diameter")
    b = ctx.bbox({b})
    _near(b[0], {num(p["start"])}, 0.1, "shaft left end x")
    _near(b[3], {num(p["start"] + p["length"])}, 0.1, "shaft right end x")


def test_collar(ctx):
    _, dy, dz = _slab(ctx, {b}, 0, {num(half + 0.5)}, {num(half + p["collar_len"] - 0.5)})
    _near(dy, {num(p["collar"])}, 0.1, "collar diameter")
    _near(dz, {num(p["collar"])}, 0.1, "collar diameter")


def test_shaft_on_bore_axis(ctx):
    _, cy, cz = ctx.center({b})
    _near(cy, 0, 0.05, "shaft axis y")
    _near(cz, {num(p["axis"])}, 0.05, "shaft axis z")


def test_fit(ctx):
    _apart(ctx, {b}, {a})
    _touch(ctx, {b}, {a})
'''


def _shaft_size(p: Params) -> tuple[float, float, float]:
    top, bottom = max(p["lz"], p["axis"] + p["collar"] / 2), min(0, p["axis"] - p["collar"] / 2)
    return (p["length"], max(p["ly"], p["collar"]), top - bottom)


SHAFT_BORE = Family(
    name="shaft_bore", category="fit", draw=_shaft_draw,
    requests={"train": [_shaft_train_a, _shaft_train_b], "heldout": [_shaft_heldout]},
    abstract=lambda p: (f"A collared {num(p['d'])} mm shaft running in a clearance bore through a "
                        f"{num(p['lx'])} mm long housing block."),
    code=_shaft_code, tests=_shaft_tests, size=_shaft_size,
    parts=lambda p: [p["housing"], p["shaft"]],
    signature=lambda p: [p[k] for k in ("lx", "ly", "lz", "axis", "bore", "d", "start", "length", "collar",
                                        "collar_len")],
    mutations=(
        Mutation("bore_too_tight", "bore the size of the shaft",
                 lambda p: (f'"bore_diameter": {fl(p["bore"])},', f'"bore_diameter": {fl(p["d"])},')),
        Mutation("shaft_off_axis", "shaft below the bore's axis",
                 lambda p: ('cq.Vector(p["shaft_start"], 0, z)', 'cq.Vector(p["shaft_start"], 0, z - 0.5)')),
        Mutation("collar_gap", "collar 1 mm off the housing's face",
                 lambda p: ('collar_at = sx / 2 - p["shaft_start"]', 'collar_at = sx / 2 - p["shaft_start"] + 1')),
        Mutation("shaft_too_short", "shaft 10 mm short",
                 lambda p: (f'"shaft_length": {fl(p["length"])},', f'"shaft_length": {fl(p["length"] - 10)},')),
    ),
)
