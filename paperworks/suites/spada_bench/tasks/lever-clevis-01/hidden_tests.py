"""Hidden tests for lever-clevis-01: the contract an assembly is judged by (never shown to the agent)."""

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
    assert {"base", "clevis", "lever", "pin"} <= set(ctx.parts), f"got {sorted(ctx.parts)}"


def test_base_and_clevis(ctx):
    for got, want in zip(ctx.bbox("base"), (-40, -20, 0, 40, 20, 10), strict=True):
        _near(got, want, 0.1, "base bounds")
    b = ctx.bbox("clevis")
    _near(b[2], 10, 0.05, "clevis on the base")
    _near(b[5], 60, 0.1, "cheek top")
    assert _probe(ctx, "clevis", 12.3, (0, 0, 21), (0, 0, 1), 38) < 1e-3, "the cheeks must leave a 12.4 mm gap"
    _hole(ctx, "clevis", 8.4, (-20, 0, 45), (1, 0, 0), 40)
    _touch(ctx, "clevis", "base")


def test_lever(ctx):
    for got, want in zip(ctx.bbox("lever"), (-6, -20, 37, 6, 80, 53), strict=True):
        _near(got, want, 0.1, "lever bounds")
    _hole(ctx, "lever", 8, (-10, 0, 45), (1, 0, 0), 20, tol=0.1)
    gap = ctx.distance("lever", "clevis")
    _near(gap, 0.2, 0.05, "side clearance between the lever and the cheeks")


def test_pin(ctx):
    b = ctx.bbox("pin")
    assert b[0] <= -14.2 and b[3] >= 14.2, f"the pin must pass through both cheeks (x {b[0]:.1f} to {b[3]:.1f})"
    _near(_slab(ctx, "pin", 0, -10, 10)[1], 8, 0.05, "pin diameter")
    _, y, z = ctx.center("pin")
    _near(abs(y) + abs(z - 45), 0, 0.05, "pin on the pivot axis")
    _touch(ctx, "pin", "clevis")
    _touch(ctx, "pin", "lever")


def test_no_overlaps(ctx):
    names = ["base", "clevis", "lever", "pin"]
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            _apart(ctx, a, b)
