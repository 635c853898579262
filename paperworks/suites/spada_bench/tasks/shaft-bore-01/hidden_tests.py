"""Hidden tests for shaft-bore-01: the contract an assembly is judged by (never shown to the agent)."""

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
    assert {"housing", "shaft"} <= set(ctx.parts), f"expected housing and shaft, got {sorted(ctx.parts)}"


def test_housing_size(ctx):
    for got, want, axis in zip(_size(ctx, "housing"), (60, 50, 50), "XYZ", strict=True):
        _near(got, want, 0.1, f"housing size along {axis}")


def test_bore(ctx):
    _hole(ctx, "housing", 20.2, (-40, 0, 30), (1, 0, 0), 80, tol=0.1)


def test_shaft(ctx):
    _, dy, dz = _slab(ctx, "shaft", 0, -39, -31)
    _near(dy, 20, 0.05, "shaft diameter")
    _near(dz, 20, 0.05, "shaft diameter")
    b = ctx.bbox("shaft")
    _near(b[0], -40, 0.1, "shaft left end x")
    _near(b[3], 70, 0.1, "shaft right end x")


def test_collar(ctx):
    _, dy, _ = _slab(ctx, "shaft", 0, 30.5, 34.5)
    _near(dy, 28, 0.1, "collar diameter")


def test_shaft_on_bore_axis(ctx):
    _, cy, cz = ctx.center("shaft")
    _near(cy, 0, 0.05, "shaft axis y")
    _near(cz, 30, 0.05, "shaft axis z")


def test_fit(ctx):
    _apart(ctx, "shaft", "housing")
    _touch(ctx, "shaft", "housing")
