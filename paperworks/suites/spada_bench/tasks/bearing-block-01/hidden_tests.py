"""Hidden tests for bearing-block-01: the contract an assembly is judged by (never shown to the agent)."""

import math

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
    assert {"base", "housing", "bearing", "shaft"} <= set(ctx.parts), f"got {sorted(ctx.parts)}"


def test_base_and_housing(ctx):
    for got, want in zip(_size(ctx, "base"), (120, 60, 10), strict=True):
        _near(got, want, 0.1, "base size")
    for got, want in zip(_size(ctx, "housing"), (50, 40, 40), strict=True):
        _near(got, want, 0.1, "housing size")
    _near(ctx.bbox("housing")[2], 10, 0.05, "housing bottom on the base")
    _touch(ctx, "housing", "base")


def test_bore(ctx):
    _hole(ctx, "housing", 30, (0, -30, 35), (0, 1, 0), 60, tol=0.1)


def test_bearing(ctx):
    dx, dy, dz = _size(ctx, "bearing")
    _near(dx, 30, 0.05, "bearing outer diameter")
    _near(dy, 12, 0.1, "bearing width")
    _hole(ctx, "bearing", 15, (0, -10, 35), (0, 1, 0), 20, tol=0.1)


def test_shaft(ctx):
    dx, dy, dz = _size(ctx, "shaft")
    _near(dx, 15, 0.05, "shaft diameter")
    _near(dy, 100, 0.1, "shaft length")


def test_coaxial(ctx):
    for name in ("bearing", "shaft"):
        x, y, z = ctx.center(name)
        _near(math.hypot(x, z - 35), 0, 0.05, f"{name} axis offset from the bore axis")
        _near(y, 0, 0.1, f"{name} centred along Y")


def test_no_overlaps(ctx):
    names = ["base", "housing", "bearing", "shaft"]
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            _apart(ctx, a, b)
    _touch(ctx, "bearing", "housing")
    _touch(ctx, "shaft", "bearing")
