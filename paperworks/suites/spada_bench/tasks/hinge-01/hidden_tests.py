"""Hidden tests for hinge-01: the contract an assembly is judged by (never shown to the agent)."""

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
    assert {"leaf_a", "leaf_b", "pin"} <= set(ctx.parts), f"got {sorted(ctx.parts)}"


def test_leaves(ctx):
    a, b = ctx.bbox("leaf_a"), ctx.bbox("leaf_b")
    _near(a[0], -30, 0.1, "leaf_a outer edge x")
    _near(b[3], 30, 0.1, "leaf_b outer edge x")
    for name in ("leaf_a", "leaf_b"):
        _near(_size(ctx, name)[2], 40, 0.1, f"{name} height")
        _near(_slab(ctx, name, 0, 10, 29)[1] if name == "leaf_b" else _slab(ctx, name, 0, -29, -10)[1],
              3, 0.05, f"{name} thickness")


def test_knuckle_bores(ctx):
    _hole(ctx, "leaf_a", 4.4, (0, 0, -1), (0, 0, 1), 42)
    _hole(ctx, "leaf_b", 4.4, (0, 0, -1), (0, 0, 1), 42)
    assert _probe(ctx, "leaf_a", 9.9, (0, 0, 20.05), (0, 0, 1), 19.9) < 1e-3, "leaf_a's knuckle must end at z = 20"
    assert _probe(ctx, "leaf_b", 9.9, (0, 0, 0.05), (0, 0, 1), 19.9) < 1e-3, "leaf_b's knuckle must start at z = 20"


def test_pin(ctx):
    dx, dy, _ = _slab(ctx, "pin", 2, 1, 39)
    _near(dx, 4, 0.05, "pin diameter")
    b = ctx.bbox("pin")
    assert b[2] <= 0.5 and b[5] >= 40, f"the pin must span both knuckles (z {b[2]:.1f} to {b[5]:.1f})"
    cx, cy, _ = ctx.center("pin")
    _near(cx, 0, 0.05, "pin axis x")
    _near(cy, 0, 0.05, "pin axis y")


def test_no_overlap(ctx):
    _apart(ctx, "leaf_a", "leaf_b")
    _apart(ctx, "pin", "leaf_a")
    _apart(ctx, "pin", "leaf_b")
