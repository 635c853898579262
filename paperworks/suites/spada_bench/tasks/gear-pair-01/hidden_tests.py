"""Hidden tests for gear-pair-01: the contract an assembly is judged by (never shown to the agent)."""

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
    want = {"plate", "shaft_1", "shaft_2", "gear_1", "gear_2"}
    assert want <= set(ctx.parts), f"missing {sorted(want - set(ctx.parts))}"


def test_pitch_diameters(ctx):
    for name, d in (("gear_1", 40), ("gear_2", 80)):
        dx, dy, dz = _size(ctx, name)
        _near(dx, d, 0.1, f"{name} pitch diameter")
        _near(dy, d, 0.1, f"{name} pitch diameter")
        _near(dz, 10, 0.1, f"{name} width")


def test_centre_distance(ctx):
    (x1, y1, z1), (x2, y2, z2) = ctx.center("gear_1"), ctx.center("gear_2")
    _near(math.hypot(x2 - x1, y2 - y1), 60, 0.05, "centre distance")
    _near(z1, z2, 0.05, "gears at the same height")
    _touch(ctx, "gear_1", "gear_2")
    _apart(ctx, "gear_1", "gear_2")


def test_shafts(ctx):
    for i in (1, 2):
        shaft, gear = f"shaft_{i}", f"gear_{i}"
        dx, dy, dz = _size(ctx, shaft)
        _near(dx, 10, 0.05, f"{shaft} diameter")
        _near(dz, 40, 0.1, f"{shaft} length")
        (sx, sy, _), (gx, gy, _) = ctx.center(shaft), ctx.center(gear)
        _near(math.hypot(sx - gx, sy - gy), 0, 0.05, f"{gear} on the axis of {shaft}")
        _touch(ctx, shaft, "plate")
        _apart(ctx, shaft, "plate")
        _apart(ctx, shaft, gear)
        _touch(ctx, shaft, gear)
