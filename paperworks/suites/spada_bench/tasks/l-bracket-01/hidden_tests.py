"""Hidden tests for l-bracket-01: the contract an assembly is judged by (never shown to the agent)."""

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


BOLTS = ["bolt_1", "bolt_2"]


def test_parts_named(ctx):
    assert {"base", "bracket"} <= set(ctx.parts), f"got {sorted(ctx.parts)}"
    assert _named(ctx, "bolt") == BOLTS, f"expected bolt_1 and bolt_2, got {_named(ctx, 'bolt')}"


def test_base(ctx):
    for got, want in zip(ctx.bbox("base"), (-60, -40, 0, 60, 40, 10), strict=True):
        _near(got, want, 0.1, "base bounds")


def test_bracket_shape(ctx):
    for got, want in zip(ctx.bbox("bracket"), (-30, -20, 10, 30, 20, 70), strict=True):
        _near(got, want, 0.1, "bracket bounds")
    _near(_slab(ctx, "bracket", 0, -29, 20)[2], 5, 0.05, "horizontal leg thickness")
    _near(_slab(ctx, "bracket", 2, 20, 69)[0], 5, 0.05, "vertical leg thickness")
    _touch(ctx, "bracket", "base")


def test_bolts(ctx):
    for name in BOLTS:
        x, cy, _ = ctx.center(name)
        _near(x, -10, 0.1, f"{name} x")
        _near(abs(cy), 10, 0.1, f"{name} |y|")
        _near(_slab(ctx, name, 2, 1, 14)[0], 6, 0.05, f"{name} shank diameter")
        _near(_slab(ctx, name, 2, 15.01, 30)[0], 10, 0.1, f"{name} head diameter")
        _near(ctx.bbox(name)[2], 0, 0.1, f"{name} shank end (through the base)")
        _touch(ctx, name, "bracket")
    _near(abs(ctx.center("bolt_1")[1] - ctx.center("bolt_2")[1]), 20, 0.1, "bolt spacing")


def test_holes(ctx):
    for name in BOLTS:
        x, y, _ = ctx.center(name)
        _hole(ctx, "bracket", 6.6, (x, y, 9), (0, 0, 1), 7)
        _hole(ctx, "base", 6.0, (x, y, -1), (0, 0, 1), 12, tol=0.1)
        _apart(ctx, name, "bracket")
        _apart(ctx, name, "base")
