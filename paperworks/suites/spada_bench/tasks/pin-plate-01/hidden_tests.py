"""Hidden tests for pin-plate-01: the contract an assembly is judged by (never shown to the agent)."""

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
    assert {"plate", "pin"} <= set(ctx.parts), f"expected parts plate and pin, got {sorted(ctx.parts)}"


def test_plate_size(ctx):
    for got, want, axis in zip(_size(ctx, "plate"), (80, 50, 6), "XYZ", strict=True):
        _near(got, want, 0.1, f"plate size along {axis}")


def test_plate_hole(ctx):
    _hole(ctx, "plate", 8.4, (0, 0, -1), (0, 0, 1), 8)


def test_pin_shank(ctx):
    dx, dy, _ = _slab(ctx, "pin", 2, -1000, -1)
    _near(dx, 8, 0.05, "shank diameter")
    _near(dy, 8, 0.05, "shank diameter")
    _near(_size(ctx, "pin")[2], 23, 0.1, "pin length including the head")


def test_pin_head(ctx):
    dx, _, dz = _slab(ctx, "pin", 2, 6.01, 1000)
    _near(dx, 14, 0.1, "head diameter")
    _near(dz, 2.99, 0.1, "head height above the plate")


def test_pin_coaxial_with_hole(ctx):
    cx, cy, _ = ctx.center("pin")
    _near(cx, 0, 0.05, "pin axis x")
    _near(cy, 0, 0.05, "pin axis y")
    assert ctx.bbox("pin")[2] < -1, "the shank must pass through the plate"


def test_fit(ctx):
    _apart(ctx, "pin", "plate")
    _touch(ctx, "pin", "plate")
