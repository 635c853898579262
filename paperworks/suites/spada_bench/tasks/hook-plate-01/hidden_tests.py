"""Hidden tests for hook-plate-01: the contract an assembly is judged by (never shown to the agent)."""

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
    assert {"plate", "hook"} <= set(ctx.parts), f"got {sorted(ctx.parts)}"
    assert _named(ctx, "screw") == ["screw_1", "screw_2"], f"expected screw_1 and screw_2, got {_named(ctx, 'screw')}"


def test_plate(ctx):
    for got, want in zip(ctx.bbox("plate"), (-50, 0, 0, 50, 8, 60), strict=True):
        _near(got, want, 0.1, "plate bounds")
    for x in (-35, 35):
        _hole(ctx, "plate", 5, (x, -1, 30), (0, 1, 0), 10)


def test_screws(ctx):
    xs = []
    for name in ("screw_1", "screw_2"):
        x, _, z = ctx.center(name)
        xs.append(x)
        _near(z, 30, 0.1, f"{name} height")
        _near(_slab(ctx, name, 1, -11, -1)[0], 4.5, 0.05, f"{name} shank diameter")
        _near(_slab(ctx, name, 1, 8.01, 20)[0], 9, 0.1, f"{name} head diameter")
        _near(ctx.bbox(name)[1], -12, 0.1, f"{name} shank end")
        _touch(ctx, name, "plate")
        _apart(ctx, name, "plate")
        _apart(ctx, name, "hook")
    _near(sorted(xs)[0], -35, 0.1, "left screw x")
    _near(sorted(xs)[1], 35, 0.1, "right screw x")


def test_hook(ctx):
    b = ctx.bbox("hook")
    for got, want in zip((b[1], b[4], b[5]), (8, 58, 45), strict=True):
        _near(got, want, 0.2, "hook y start, reach and tip top")
    _near(ctx.center("hook")[0], 0, 0.1, "hook centred in X")
    _, _, dz = _slab(ctx, "hook", 1, 20, 40)
    _near(dz, 10, 0.05, "arm diameter")
    _touch(ctx, "hook", "plate")
    _apart(ctx, "hook", "plate")
