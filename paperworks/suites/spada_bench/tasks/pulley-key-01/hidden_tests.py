"""Hidden tests for pulley-key-01: the contract an assembly is judged by (never shown to the agent)."""

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
    assert {"shaft", "pulley", "key"} <= set(ctx.parts), f"got {sorted(ctx.parts)}"


def test_shaft(ctx):
    dx, dy, _ = _slab(ctx, "shaft", 2, 1, 30)
    _near(dx, 20, 0.05, "shaft diameter")
    _near(_size(ctx, "shaft")[2], 100, 0.1, "shaft length")


def test_pulley(ctx):
    dx, dy, dz = _size(ctx, "pulley")
    _near(dx, 80, 0.1, "pulley diameter")
    _near(dz, 25, 0.1, "pulley width")
    _near(ctx.bbox("pulley")[2], 40, 0.1, "pulley bottom z")
    _hole(ctx, "pulley", 20, (0, 0, 39), (0, 0, 1), 27, tol=0.1)


def test_key(ctx):
    for got, want in zip(_size(ctx, "key"), (6, 6, 25), strict=True):
        _near(got, want, 0.1, "key size (X, Y, Z)")
    b = ctx.bbox("key")
    _near(b[1], 6.5, 0.1, "key seated on the keyway bottom (y)")
    p = ctx.bbox("pulley")
    assert b[2] >= p[2] - 0.1 and b[5] <= p[5] + 0.1, "the key must lie within the pulley's width"
    _touch(ctx, "key", "shaft")


def test_no_overlaps(ctx):
    _apart(ctx, "key", "shaft")
    _apart(ctx, "key", "pulley")
    _apart(ctx, "pulley", "shaft")
    _touch(ctx, "pulley", "shaft")
