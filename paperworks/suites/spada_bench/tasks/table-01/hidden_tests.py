"""Hidden tests for table-01: the contract an assembly is judged by (never shown to the agent)."""

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


LEGS = ["leg_1", "leg_2", "leg_3", "leg_4"]


def test_parts_named(ctx):
    assert "top" in ctx.parts, f"got {sorted(ctx.parts)}"
    assert _named(ctx, "leg") == LEGS, f"expected four legs leg_1..leg_4, got {_named(ctx, 'leg')}"


def test_top(ctx):
    for got, want in zip(ctx.bbox("top"), (-600, -300, 700, 600, 300, 725), strict=True):
        _near(got, want, 0.1, "top bounds")


def test_legs(ctx):
    corners = set()
    for name in LEGS:
        for got, want in zip(_size(ctx, name), (50, 50, 700), strict=True):
            _near(got, want, 0.1, f"{name} size")
        _near(ctx.bbox(name)[2], 0, 0.05, f"{name} on the floor")
        x, y, _ = ctx.center(name)
        _near(abs(x), 525, 0.1, f"{name} |x|")
        _near(abs(y), 225, 0.1, f"{name} |y|")
        corners.add((x > 0, y > 0))
        _touch(ctx, name, "top")
        _apart(ctx, name, "top")
    assert len(corners) == 4, "one leg under each corner"
