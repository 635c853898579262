"""Hidden tests for drawer-cabinet-01: the contract an assembly is judged by (never shown to the agent)."""

import cadquery as cq


def _size(ctx, name):
    """Extents (dx, dy, dz) of a part's bounding box."""
    b = ctx.bbox(name)
    return (b[3] - b[0], b[4] - b[1], b[5] - b[2])


def _near(value, expected, tol, what):
    assert abs(value - expected) <= tol, f"{what}: {value:.3f}, expected {expected} +- {tol}"


def _probe(ctx, name, diameter, start, direction, length):
    """Volume of a part inside a probe cylinder (tests the size of holes and bores)."""
    rod = cq.Solid.makeCylinder(diameter / 2, length, cq.Vector(*start), cq.Vector(*direction))
    return ctx.parts[name].intersect(rod).Volume()


def _hole(ctx, name, diameter, start, direction, length, tol=0.15):
    """The part has a hole of `diameter` (+- tol) along the probe's axis."""
    free = _probe(ctx, name, diameter - tol, start, direction, length)
    assert free < 1e-3, f"{name}: no free hole of diameter {diameter - tol:.2f} at {start} ({free:.2f} mm3 of material)"
    assert _probe(ctx, name, diameter + tol, start, direction, length) > 1e-3, \
        f"{name}: the hole at {start} is wider than {diameter + tol:.2f}"


def _slab(ctx, name, axis, lo, hi):
    """Extents (dx, dy, dz) of the part's material between lo and hi along an axis (0 x, 1 y, 2 z)."""
    lo_pt, size = [-5000.0] * 3, [10000.0] * 3
    lo_pt[axis], size[axis] = lo, hi - lo
    piece = ctx.parts[name].intersect(cq.Solid.makeBox(*size, pnt=cq.Vector(*lo_pt)))
    b = piece.BoundingBox()
    return (b.xlen, b.ylen, b.zlen)


def _named(ctx, prefix):
    """Names of the parts that start with a prefix, sorted."""
    return sorted(n for n in ctx.parts if n.startswith(prefix))


def _touch(ctx, a, b, tol=0.05):
    d = ctx.distance(a, b)
    assert d <= tol, f"{a} and {b} must touch (gap {d:.3f} mm)"


def _apart(ctx, a, b, tol=1e-3):
    # solids of the boolean intersection only: parts that merely touch intersect in faces
    v = sum(s.Volume() for s in ctx.parts[a].intersect(ctx.parts[b]).Solids())
    assert v <= tol, f"{a} and {b} overlap by {v:.3f} mm3"


def test_parts_named(ctx):
    assert {"cabinet", "drawer", "handle"} <= set(ctx.parts), f"got {sorted(ctx.parts)}"


def test_cabinet(ctx):
    for got, want in zip(ctx.bbox("cabinet"), (-200, -225, 0, 200, 225, 200), strict=True):
        _near(got, want, 0.1, "cabinet bounds")
    hollow = 400 * 450 * 200 - 370 * 435 * 170
    _near(ctx.volume("cabinet") / hollow, 1, 0.01, "cabinet volume / (15 mm walls, open front)")


def test_drawer_body(ctx):
    dx, dy, dz = _slab(ctx, "drawer", 1, -220, 150)
    _near(dx, 366, 0.2, "drawer body width")
    _near(dz, 150, 0.2, "drawer body height")
    b = ctx.bbox("drawer")
    _near(b[4], 195, 0.5, "drawer body back (420 mm deep from the front)")
    assert _probe(ctx, "drawer", 100, (0, 0, 100), (0, 0, 1), 60) < 1e-3, "the drawer must be open at the top"


def test_drawer_clearance(ctx):
    xmin, _, zmin, xmax, _, _ = ctx.bbox("drawer")
    body = _slab(ctx, "drawer", 1, -220, 150)
    cx = ctx.center("drawer")[0]
    _near(cx, 0, 0.2, "drawer centred in X")
    gap = (370 - body[0]) / 2
    _near(gap, 2, 0.3, "side clearance each side")
    _near(zmin, 15, 0.05, "drawer resting on the cabinet floor")
    _apart(ctx, "drawer", "cabinet")
    _touch(ctx, "drawer", "cabinet")


def test_front_panel(ctx):
    dx, dy, dz = _slab(ctx, "drawer", 1, -240, -225)
    _near(dx, 396, 0.2, "panel width")
    _near(dz, 166, 0.2, "panel height")
    _near(ctx.bbox("drawer")[1], -240, 0.1, "panel front y")


def test_handle(ctx):
    for got, want in zip(_size(ctx, "handle"), (120, 20, 20), strict=True):
        _near(got, want, 0.1, "handle size")
    x, _, z = ctx.center("handle")
    _near(x, 0, 0.5, "handle centred in X")
    _near(z, 100, 0.5, "handle height")
    _touch(ctx, "handle", "drawer")
    _apart(ctx, "handle", "drawer")
