"""Hidden tests for pipe-flange-01: the contract an assembly is judged by (never shown to the agent)."""

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


BOLTS = ["bolt_1", "bolt_2", "bolt_3", "bolt_4"]


def test_parts_named(ctx):
    want = {"pipe_a", "pipe_b", "flange_a", "flange_b", "gasket"}
    assert want <= set(ctx.parts), f"missing {sorted(want - set(ctx.parts))}"
    assert _named(ctx, "bolt") == BOLTS, f"expected bolt_1..bolt_4, got {_named(ctx, 'bolt')}"


def test_pipes(ctx):
    for name, z0 in (("pipe_a", -200), ("pipe_b", 2)):
        dx, dy, dz = _size(ctx, name)
        _near(dx, 60, 0.1, f"{name} outer diameter")
        _near(dz, 200, 0.1, f"{name} length")
        _near(ctx.bbox(name)[2], z0, 0.1, f"{name} start z")
        _hole(ctx, name, 50, (0, 0, z0 - 1), (0, 0, 1), 202, tol=0.1)


def test_flanges_and_gasket(ctx):
    for name, z0 in (("flange_a", -16), ("flange_b", 2)):
        dx, _, dz = _size(ctx, name)
        _near(dx, 150, 0.1, f"{name} diameter")
        _near(dz, 16, 0.1, f"{name} thickness")
        _near(ctx.bbox(name)[2], z0, 0.1, f"{name} bottom z")
    dx, _, dz = _size(ctx, "gasket")
    _near(dx, 100, 0.1, "gasket outer diameter")
    _near(dz, 2, 0.05, "gasket thickness")
    _touch(ctx, "gasket", "flange_a")
    _touch(ctx, "gasket", "flange_b")


def test_bolts(ctx):
    angles = []
    for name in BOLTS:
        x, y, _ = ctx.center(name)
        _near(math.hypot(x, y), 60, 0.1, f"{name} pitch radius")
        angles.append(math.degrees(math.atan2(y, x)) % 360)
        _near(_slab(ctx, name, 2, -10, 20)[0], 12, 0.05, f"{name} shank diameter")
        for flange in ("flange_a", "flange_b"):
            _hole(ctx, flange, 14, (x, y, -20), (0, 0, 1), 42)
        _touch(ctx, name, "flange_a")
    angles.sort()
    for a, b in zip(angles, angles[1:] + [angles[0] + 360], strict=True):
        _near(b - a, 90, 0.5, "angle between bolts")


def test_no_overlaps(ctx):
    names = list(ctx.parts)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            _apart(ctx, a, b)
