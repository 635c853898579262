"""Hidden tests for planetary-01: the contract an assembly is judged by (never shown to the agent)."""

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


PLANETS = ["planet_1", "planet_2", "planet_3"]


def test_parts_named(ctx):
    assert {"sun", "ring"} <= set(ctx.parts), f"got {sorted(ctx.parts)}"
    assert _named(ctx, "planet") == PLANETS, f"expected three planets, got {_named(ctx, 'planet')}"


def test_sizes(ctx):
    _near(_size(ctx, "sun")[0], 20, 0.05, "sun pitch diameter")
    for name in PLANETS:
        _near(_size(ctx, name)[0], 10, 0.05, f"{name} pitch diameter")
        _near(_size(ctx, name)[2], 8, 0.1, f"{name} width")
    _near(_size(ctx, "ring")[0], 50, 0.1, "ring outer diameter")
    _hole(ctx, "ring", 40, (0, 0, -1), (0, 0, 1), 10, tol=0.1)


def test_planet_positions(ctx):
    angles = []
    for name in PLANETS:
        x, y, z = ctx.center(name)
        _near(math.hypot(x, y), 15, 0.05, f"{name} centre radius")
        _near(z, 4, 0.1, f"{name} mid-height")
        angles.append(math.degrees(math.atan2(y, x)) % 360)
    angles.sort()
    for a, b in zip(angles, angles[1:] + [angles[0] + 360], strict=True):
        _near(b - a, 120, 0.5, "angle between neighbouring planets")


def test_meshing(ctx):
    for name in PLANETS:
        for other in ("sun", "ring"):
            _touch(ctx, name, other)
            _apart(ctx, name, other)
    for i, a in enumerate(PLANETS):
        for b in PLANETS[i + 1:]:
            _apart(ctx, a, b)
    _apart(ctx, "sun", "ring")
