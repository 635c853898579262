"""SPADA problem families that stack parts: a plug lid on an open box (``box_lid``) and two boards held apart
by four standoffs on a rectangular hole pattern (``standoff_stack``)."""

from __future__ import annotations

from typing import Any

from paperworks.train.generators.spada_templates import Family, Mutation, Params, fl, num

# ------------------------------------------------------------------------------------------- lid on a box

BOXES = ("box", "tray", "container", "case", "bin")
LIDS = ("lid", "cover", "cap", "top_cover")


def _box_draw(rng: Any) -> Params:
    wall = rng.randint(2, 5)
    bz = rng.randrange(30, 85, 5)
    return {"box": rng.choice(BOXES), "lid": rng.choice(LIDS), "bx": rng.randrange(60, 170, 10),
            "by": rng.randrange(40, 130, 10), "bz": bz, "wall": wall, "lid_t": rng.randint(2, 6),
            "lip_h": rng.randint(3, 10), "gap": rng.choice((0.2, 0.3, 0.5))}


def _lip(p: Params) -> tuple[float, float]:
    return (p["bx"] - 2 * p["wall"] - 2 * p["gap"], p["by"] - 2 * p["wall"] - 2 * p["gap"])


def _box_train_a(p: Params) -> str:
    lx, ly = _lip(p)
    return (f"Z is up. An open-top `{p['box']}` {num(p['bx'])} mm (X) x {num(p['by'])} mm (Y) x {num(p['bz'])} mm "
            f"(Z) outside, with {num(p['wall'])} mm walls and a {num(p['wall'])} mm floor, bottom at z = 0, centred "
            f"on the origin in X and Y. A `{p['lid']}`: a flat plate {num(p['bx'])} x {num(p['by'])} x "
            f"{num(p['lid_t'])} mm resting on the rim (z = {num(p['bz'])} to {num(p['bz'] + p['lid_t'])}), with a "
            f"locating lip under it, a solid block {num(lx)} x {num(ly)} mm and {num(p['lip_h'])} mm deep "
            f"(z = {num(p['bz'] - p['lip_h'])} to {num(p['bz'])}), centred, that fits inside the opening with "
            f"{num(p['gap'])} mm clearance on every side. The lid is one solid. Parts `{p['box']}` and "
            f"`{p['lid']}`; they touch but do not overlap.")


def _box_train_b(p: Params) -> str:
    lx, ly = _lip(p)
    return (f"Make a box with a plug lid (Z up, all sizes in mm). `{p['box']}`: outside {num(p['bx'])} x "
            f"{num(p['by'])} x {num(p['bz'])} (X x Y x Z), standing on z = 0 and centred on the Z axis, hollowed "
            f"out from the top so that walls and floor are {num(p['wall'])} thick. `{p['lid']}`: a "
            f"{num(p['lid_t'])} thick plate with the box's outside footprint, lying on the box's rim, plus a "
            f"{num(lx)} x {num(ly)} plug {num(p['lip_h'])} deep on its underside that drops into the opening "
            f"leaving a {num(p['gap'])} gap to each wall. Two parts, touching, not overlapping.")


def _box_heldout(p: Params) -> str:
    lx, ly = _lip(p)
    return (f"I need a container and its lid, modelled with Z vertical. The container, named `{p['box']}`, is a "
            f"rectangular open box whose outer dimensions are {num(p['bx'])} mm in X, {num(p['by'])} mm in Y and "
            f"{num(p['bz'])} mm in height; its base sits on z = 0, it is centred about the origin, and its side "
            f"walls and bottom are all {num(p['wall'])} mm thick. The lid, named `{p['lid']}`, covers the whole "
            f"top: a {num(p['lid_t'])} mm plate of the same outline placed on the upper edge of the walls, with a "
            f"{num(p['lip_h'])} mm tall rectangular spigot ({num(lx)} by {num(ly)} mm) on its lower face, centred, "
            f"sitting inside the opening with {num(p['gap'])} mm all round. The two solids may touch but never "
            "intersect.")


def _box_code(p: Params) -> str:
    return f'''"""Box and lid: an open-top box with a flat lid whose locating lip drops into the opening."""
import cadquery as cq

PARAMS = {{
    "box_size": [{fl(p["bx"])}, {fl(p["by"])}, {fl(p["bz"])}],  # mm, outside, X Y Z
    "wall": {fl(p["wall"])},  # walls and floor
    "lid_thickness": {fl(p["lid_t"])},
    "lip_height": {fl(p["lip_h"])},
    "lip_clearance": {fl(p["gap"])},  # per side, between the lip and the walls
}}


def build(params: dict) -> cq.Assembly:
    p = params
    bx, by, bz = p["box_size"]
    w = p["wall"]
    cavity = cq.Workplane("XY").workplane(offset=w).box(bx - 2 * w, by - 2 * w, bz, centered=(True, True, False))
    box = cq.Workplane("XY").box(bx, by, bz, centered=(True, True, False)).cut(cavity)
    inset = 2 * (w + p["lip_clearance"])
    lip = (cq.Workplane("XY").workplane(offset=-p["lip_height"])
           .box(bx - inset, by - inset, p["lip_height"], centered=(True, True, False)))
    lid = cq.Workplane("XY").box(bx, by, p["lid_thickness"], centered=(True, True, False)).union(lip)
    assy = cq.Assembly(name="box_lid")
    assy.add(box, name="{p["box"]}")
    assy.add(lid, name="{p["lid"]}", loc=cq.Location(cq.Vector(0, 0, bz)))  # the plate rests on the rim
    return assy


result = build(PARAMS)
'''


def _box_tests(p: Params) -> str:
    a, b, w, bz = repr(p["box"]), repr(p["lid"]), p["wall"], p["bz"]
    ix, iy = p["bx"] / 2 - w, p["by"] / 2 - w
    lx, ly = _lip(p)
    return f'''
def test_parts_named(ctx):
    assert {{{a}, {b}}} <= set(ctx.parts), f"expected {p["box"]} and {p["lid"]}, got {{sorted(ctx.parts)}}"


def test_box_outside(ctx):
    _bounds(ctx, {a}, (-{num(p["bx"] / 2)}, -{num(p["by"] / 2)}, 0, {num(p["bx"] / 2)}, {num(p["by"] / 2)}, \
{num(bz)}))


def test_box_cavity(ctx):
    empty = _inside(ctx, {a}, ({num(-ix + 0.05)}, {num(-iy + 0.05)}, {num(w + 0.05)}), ({num(ix - 0.05)}, \
{num(iy - 0.05)}, {num(bz + 1)}))
    assert empty < 1e-3, f"the inside of the box must be empty above the floor ({{empty:.2f}} mm3 of material)"
    walls = _inside(ctx, {a}, ({num(-ix - 0.2)}, {num(-iy - 0.2)}, {num(w + 1)}), ({num(ix + 0.2)}, \
{num(iy + 0.2)}, {num(bz - 1)}))
    assert walls > 1e-3, "the walls are thinner than {num(w - 0.2)} mm"
    floor = _inside(ctx, {a}, (-1, -1, 0.05), (1, 1, {num(w - 0.15)}))
    assert floor > 1e-3, "the floor is thinner than {num(w - 0.15)} mm"


def test_lid_plate(ctx):
    _bounds(ctx, {b}, (-{num(p["bx"] / 2)}, -{num(p["by"] / 2)}, {num(bz - p["lip_h"])}, {num(p["bx"] / 2)}, \
{num(p["by"] / 2)}, {num(bz + p["lid_t"])}))
    dx, dy, dz = _slab(ctx, {b}, 2, {num(bz + 0.01)}, 1000)
    _near(dz, {num(p["lid_t"] - 0.01)}, 0.1, "lid plate thickness")


def test_lid_lip(ctx):
    dx, dy, dz = _slab(ctx, {b}, 2, -1000, {num(bz - 0.01)})
    _near(dx, {num(lx)}, 0.05, "lip length (X)")
    _near(dy, {num(ly)}, 0.05, "lip width (Y)")
    _near(dz, {num(p["lip_h"] - 0.01)}, 0.1, "lip depth")
    cx, cy, _ = ctx.center({b})
    _near(cx, 0, 0.05, "lid centre x")
    _near(cy, 0, 0.05, "lid centre y")


def test_fit(ctx):
    _apart(ctx, {b}, {a})
    _touch(ctx, {b}, {a})
'''


BOX_LID = Family(
    name="box_lid", category="containers", draw=_box_draw,
    requests={"train": [_box_train_a, _box_train_b], "heldout": [_box_heldout]},
    abstract=lambda p: (f"An open {num(p['bx'])} x {num(p['by'])} mm box with a plug lid whose lip drops into "
                        "the opening."),
    code=_box_code, tests=_box_tests,
    size=lambda p: (p["bx"], p["by"], p["bz"] + p["lid_t"]),
    parts=lambda p: [p["box"], p["lid"]],
    signature=lambda p: [p[k] for k in ("bx", "by", "bz", "wall", "lid_t", "lip_h", "gap")],
    mutations=(
        Mutation("lid_floating", "lid 1 mm above the rim",
                 lambda p: ("cq.Vector(0, 0, bz)", "cq.Vector(0, 0, bz + 1)")),
        Mutation("lip_too_wide", "lip wider than the opening",
                 lambda p: (f'"lip_clearance": {fl(p["gap"])},', '"lip_clearance": -0.2,')),
        Mutation("thin_walls", "walls 1 mm too thin",
                 lambda p: (f'"wall": {fl(p["wall"])},', f'"wall": {fl(p["wall"] - 1)},')),
    ),
)

# ----------------------------------------------------------------------------------------- standoff stack

BOARDS = (("plate_bottom", "plate_top"), ("board_lower", "board_upper"), ("base_board", "top_board"),
          ("lower_plate", "upper_plate"))
STANDOFFS = ("standoff", "spacer", "post", "pillar")
SCREWS = ((2.7, "M2.5"), (3.2, "M3"), (4.3, "M4"))


def _stack_draw(rng: Any) -> Params:
    bottom, top = rng.choice(BOARDS)
    hole, screw = rng.choice(SCREWS)
    sd = rng.choice((5, 6, 7, 8)) if hole < 4 else rng.choice((7, 8, 10))
    px, py = rng.randrange(60, 150, 10), rng.randrange(40, 110, 10)
    mx, my = rng.randint(int(sd / 2) + 2, 12), rng.randint(int(sd / 2) + 2, 12)
    return {"bottom": bottom, "top": top, "prefix": rng.choice(STANDOFFS), "px": px, "py": py,
            "pz": rng.choice((1.6, 2.0, 3.0)), "hx": px - 2 * mx, "hy": py - 2 * my, "hole": hole, "screw": screw,
            "sd": sd, "sl": rng.randrange(8, 42, 2)}


def _stack_points(p: Params) -> list[tuple[float, float]]:
    hx, hy = p["hx"] / 2, p["hy"] / 2
    return [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]


def _stack_names(p: Params) -> str:
    return f"`{p['prefix']}_1` .. `{p['prefix']}_4`"


def _stack_train_a(p: Params) -> str:
    pz, sl = p["pz"], p["sl"]
    return (f"Z is up. Two boards held apart by four standoffs. `{p['bottom']}`: {num(p['px'])} mm (X) x "
            f"{num(p['py'])} mm (Y) x {num(pz)} mm, bottom at z = 0, centred on the origin, with four "
            f"{num(p['hole'])} mm holes ({p['screw']} clearance) at (+-{num(p['hx'] / 2)}, +-{num(p['hy'] / 2)}). "
            f"Four round standoffs {_stack_names(p)}, diameter {num(p['sd'])} mm and {num(sl)} mm tall, standing "
            f"on {p['bottom']} (z = {num(pz)} to {num(pz + sl)}) centred on those holes, numbered "
            f"counterclockwise from the (-x, -y) corner. `{p['top']}`: the same board as {p['bottom']}, resting "
            f"on the standoffs (z = {num(pz + sl)} to {num(2 * pz + sl)}) with its holes over theirs. Six parts; "
            "standoffs touch both boards, nothing overlaps.")


def _stack_train_b(p: Params) -> str:
    return (f"A board stack, Z up, sizes in mm. Lower board `{p['bottom']}` and upper board `{p['top']}` are "
            f"identical {num(p['px'])} x {num(p['py'])} plates, {num(p['pz'])} thick, centred on the Z axis, each "
            f"drilled with four {num(p['hole'])} holes on a {num(p['hx'])} x {num(p['hy'])} rectangular pattern "
            f"centred on the board. The lower board lies on z = 0. Between the boards, four cylindrical spacers "
            f"{_stack_names(p)} ({num(p['sd'])} diameter, {num(p['sl'])} long) stand on the hole centres, numbered "
            "counterclockwise starting at the corner with negative x and y; the upper board rests on them. Every "
            "spacer touches both boards; no two parts overlap.")


def _stack_heldout(p: Params) -> str:
    return (f"Model two circuit boards stacked with standoffs (vertical axis Z). The bottom board, "
            f"`{p['bottom']}`, is {num(p['px'])} mm long in X, {num(p['py'])} mm in Y and {num(p['pz'])} mm "
            f"thick, with its lower face on z = 0 and its centre on the Z axis; it has {p['screw']} clearance "
            f"holes of {num(p['hole'])} mm at x = +-{num(p['hx'] / 2)} mm, y = +-{num(p['hy'] / 2)} mm. On each "
            f"hole stands a {num(p['sd'])} mm round standoff {num(p['sl'])} mm high, named {_stack_names(p)} going "
            f"anticlockwise from the corner at (-{num(p['hx'] / 2)}, -{num(p['hy'] / 2)}). The top board, "
            f"`{p['top']}`, is a copy of the bottom one lying on top of the standoffs. The six solids must not "
            "intersect, and each standoff must touch both boards.")


def _stack_code(p: Params) -> str:
    return f'''"""Board stack: two plates held apart by four standoffs on a rectangular hole pattern."""
import cadquery as cq

PARAMS = {{
    "plate_size": [{fl(p["px"])}, {fl(p["py"])}, {fl(p["pz"])}],  # mm, X Y Z
    "pattern": [{fl(p["hx"])}, {fl(p["hy"])}],  # hole pattern, X Y
    "hole_diameter": {fl(p["hole"])},
    "standoff_diameter": {fl(p["sd"])},
    "standoff_length": {fl(p["sl"])},
}}


def build(params: dict) -> cq.Assembly:
    p = params
    px, py, pz = p["plate_size"]
    hx, hy = p["pattern"][0] / 2, p["pattern"][1] / 2
    points = [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]  # counterclockwise from (-x, -y)
    holes = cq.Workplane("XY").workplane(offset=-1).pushPoints(points).circle(p["hole_diameter"] / 2).extrude(pz + 2)
    plate = cq.Workplane("XY").box(px, py, pz, centered=(True, True, False)).cut(holes)
    standoff = cq.Workplane("XY").circle(p["standoff_diameter"] / 2).extrude(p["standoff_length"])
    assy = cq.Assembly(name="standoff_stack")
    assy.add(plate, name="{p["bottom"]}")
    for i, (x, y) in enumerate(points, 1):
        assy.add(standoff, name=f"{p["prefix"]}_{{i}}", loc=cq.Location(cq.Vector(x, y, pz)))
    assy.add(plate, name="{p["top"]}", loc=cq.Location(cq.Vector(0, 0, pz + p["standoff_length"])))
    return assy


result = build(PARAMS)
'''


def _stack_tests(p: Params) -> str:
    a, b, pz, sl = repr(p["bottom"]), repr(p["top"]), p["pz"], p["sl"]
    names = [f"{p['prefix']}_{i}" for i in range(1, 5)]
    points = ", ".join(f"({num(x)}, {num(y)})" for x, y in _stack_points(p))
    return f'''
STANDOFFS = {names!r}
POINTS = [{points}]


def test_parts_named(ctx):
    assert {{{a}, {b}}} <= set(ctx.parts), f"got {{sorted(ctx.parts)}}"
    got = _named(ctx, {p["prefix"] + "_"!r})
    assert got == STANDOFFS, f"expected {names[0]}..{names[-1]}, got {{got}}"


def test_boards(ctx):
    for name, z in (({a}, 0), ({b}, {num(pz + sl)})):
        _bounds(ctx, name, (-{num(p["px"] / 2)}, -{num(p["py"] / 2)}, z, {num(p["px"] / 2)}, {num(p["py"] / 2)}, \
z + {num(pz)}))
        for x, y in POINTS:
            _hole(ctx, name, {num(p["hole"])}, (x, y, -1), (0, 0, 1), {num(2 * pz + sl + 2)})


def test_standoffs(ctx):
    for name, (x, y) in zip(STANDOFFS, POINTS, strict=True):
        dx, dy, dz = _size(ctx, name)
        _near(dx, {num(p["sd"])}, 0.05, f"{{name}} diameter")
        _near(dy, {num(p["sd"])}, 0.05, f"{{name}} diameter")
        _near(dz, {num(sl)}, 0.1, f"{{name}} length")
        cx, cy, _ = ctx.center(name)
        _near(cx, x, 0.1, f"{{name}} x")
        _near(cy, y, 0.1, f"{{name}} y")
        _near(ctx.bbox(name)[2], {num(pz)}, 0.1, f"{{name}} bottom")
        for board in ({a}, {b}):
            _touch(ctx, name, board)
            _apart(ctx, name, board)
'''


STANDOFF_STACK = Family(
    name="standoff_stack", category="electronics", draw=_stack_draw,
    requests={"train": [_stack_train_a, _stack_train_b], "heldout": [_stack_heldout]},
    abstract=lambda p: (f"Two {num(p['px'])} x {num(p['py'])} mm boards stacked {num(p['sl'])} mm apart on four "
                        "standoffs."),
    code=_stack_code, tests=_stack_tests,
    size=lambda p: (p["px"], p["py"], 2 * p["pz"] + p["sl"]),
    parts=lambda p: [p["bottom"], *(f"{p['prefix']}_{i}" for i in range(1, 5)), p["top"]],
    signature=lambda p: [p[k] for k in ("px", "py", "pz", "hx", "hy", "hole", "sd", "sl")],
    mutations=(
        Mutation("short_standoffs", "standoffs 1 mm short",
                 lambda p: ('.extrude(p["standoff_length"])', '.extrude(p["standoff_length"] - 1)')),
        Mutation("three_standoffs", "one standoff missing",
                 lambda p: ("enumerate(points, 1)", "enumerate(points[:3], 1)")),
        Mutation("top_plate_shifted", "top board 2 mm off in X",
                 lambda p: ('cq.Vector(0, 0, pz + p["standoff_length"])',
                            'cq.Vector(2, 0, pz + p["standoff_length"])')),
        Mutation("wrong_pattern", "hole pattern 4 mm too wide in X",
                 lambda p: (f'"pattern": [{fl(p["hx"])},', f'"pattern": [{fl(p["hx"] + 4)},')),
    ),
)
