"""Hidden tests for rack-pinion-01: the contract an assembly is judged by (never shown to the agent)."""

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
    assert {"rack", "pinion", "shaft"} <= set(ctx.parts), f"got {sorted(ctx.parts)}"


def test_rack(ctx):
    for got, want in zip(ctx.bbox("rack"), (-100, -10, 0, 100, 10, 20), strict=True):
        _near(got, want, 0.1, "rack bounds")


def test_pinion(ctx):
    dx, dy, dz = _size(ctx, "pinion")
    _near(dx, 30, 0.05, "pinion pitch diameter")
    _near(dz, 30, 0.05, "pinion pitch diameter")
    _near(dy, 20, 0.1, "pinion width")
    _hole(ctx, "pinion", 8, (0, -20, 35), (0, 1, 0), 40, tol=0.1)


def test_pitch_contact(ctx):
    x, y, z = ctx.center("pinion")
    _near(z, 35, 0.05, "pinion axis height (rack pitch line + pitch radius)")
    assert -85 <= x <= 85, f"the pinion must mesh along the rack (x = {x:.1f})"
    _touch(ctx, "pinion", "rack")
    _apart(ctx, "pinion", "rack")


def test_shaft(ctx):
    dx, dy, dz = _size(ctx, "shaft")
    _near(dx, 8, 0.05, "shaft diameter")
    _near(dy, 60, 0.1, "shaft length")
    (sx, _, sz), (px, _, pz) = ctx.center("shaft"), ctx.center("pinion")
    _near(abs(sx - px) + abs(sz - pz), 0, 0.05, "shaft on the pinion's axis")
    _apart(ctx, "shaft", "pinion")
    _apart(ctx, "shaft", "rack")
