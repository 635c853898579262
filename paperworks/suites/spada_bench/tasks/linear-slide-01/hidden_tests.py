"""Hidden tests for linear-slide-01: the contract an assembly is judged by (never shown to the agent)."""

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
    want = {"rail", "carriage", "stop_left", "stop_right"}
    assert want <= set(ctx.parts), f"missing {sorted(want - set(ctx.parts))}"


def test_rail(ctx):
    for got, want in zip(ctx.bbox("rail"), (-150, -10, 0, 150, 10, 15), strict=True):
        _near(got, want, 0.1, "rail bounds")


def test_carriage(ctx):
    for got, want in zip(ctx.bbox("carriage"), (-25, -20, 0, 25, 20, 25), strict=True):
        _near(got, want, 0.1, "carriage bounds")
    solid = 50 * 40 * 25 - 50 * 20.4 * 15
    _near(ctx.volume("carriage") / solid, 1, 0.01, "carriage volume / (20.4 x 15 mm channel)")
    _touch(ctx, "carriage", "rail")
    _apart(ctx, "carriage", "rail")


def test_stops(ctx):
    for name, x0 in (("stop_left", -150), ("stop_right", 140)):
        for got, want in zip(ctx.bbox(name), (x0, -10, 15, x0 + 10, 10, 35), strict=True):
            _near(got, want, 0.1, f"{name} bounds")
        _touch(ctx, name, "rail")
        _apart(ctx, name, "carriage")
