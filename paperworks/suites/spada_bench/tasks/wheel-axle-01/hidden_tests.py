"""Hidden tests for wheel-axle-01: the contract an assembly is judged by (never shown to the agent)."""

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


NAMES = ["frame", "axle", "collar_left", "collar_right", "wheel_left", "wheel_right"]


def test_parts_named(ctx):
    assert set(NAMES) <= set(ctx.parts), f"missing {sorted(set(NAMES) - set(ctx.parts))}"


def test_axle_and_frame(ctx):
    for got, want in zip(ctx.bbox("axle"), (-80, -6, 34, 80, 6, 46), strict=True):
        _near(got, want, 0.05, "axle bounds")
    for got, want in zip(ctx.bbox("frame"), (-50, -20, 25, 50, 20, 55), strict=True):
        _near(got, want, 0.1, "frame bounds")
    _hole(ctx, "frame", 12.5, (-60, 0, 40), (1, 0, 0), 120, tol=0.1)


def test_collars(ctx):
    for name, x0 in (("collar_left", -55), ("collar_right", 50)):
        for got, want in zip(ctx.bbox(name), (x0, -10, 30, x0 + 5, 10, 50), strict=True):
            _near(got, want, 0.1, f"{name} bounds")
        _touch(ctx, name, "frame")
        _touch(ctx, name, "axle")


def test_wheels(ctx):
    for name, x0 in (("wheel_left", -80), ("wheel_right", 60)):
        for got, want in zip(ctx.bbox(name), (x0, -40, 0, x0 + 20, 40, 80), strict=True):
            _near(got, want, 0.1, f"{name} bounds (80 mm, on the ground)")
        _touch(ctx, name, "axle")
        for other in ("frame", "collar_left", "collar_right"):
            assert ctx.distance(name, other) > 1, f"{name} must run clear of {other}"


def test_no_overlaps(ctx):
    for i, a in enumerate(NAMES):
        for b in NAMES[i + 1:]:
            _apart(ctx, a, b)
