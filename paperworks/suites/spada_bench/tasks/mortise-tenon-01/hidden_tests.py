"""Hidden tests for mortise-tenon-01: the contract an assembly is judged by (never shown to the agent)."""

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
    assert {"post", "rail"} <= set(ctx.parts), f"expected post and rail, got {sorted(ctx.parts)}"


def test_post(ctx):
    for got, want, axis in zip(_size(ctx, "post"), (50, 50, 300), "XYZ", strict=True):
        _near(got, want, 0.1, f"post size along {axis}")
    _near(ctx.bbox("post")[2], 0, 0.05, "post bottom z")


def test_rail_section_and_position(ctx):
    _, dy, dz = _slab(ctx, "rail", 0, 30, 270)
    _near(dy, 30, 0.1, "rail width")
    _near(dz, 60, 0.1, "rail height")
    b = ctx.bbox("rail")
    _near((b[2] + b[5]) / 2, 200, 0.1, "rail centre height")
    _near(b[3], 275, 0.1, "rail end x")


def test_tenon(ctx):
    _, dy, dz = _slab(ctx, "rail", 0, -4, 24)
    _near(dy, 10, 0.1, "tenon thickness")
    _near(dz, 40, 0.1, "tenon height")
    _near(ctx.bbox("rail")[0], -5, 0.1, "tenon end x (30 mm long from the face at x = 25)")


def test_joint(ctx):
    _apart(ctx, "rail", "post")
    _touch(ctx, "rail", "post")
