"""Hidden tests for dowel-joint-01: the contract an assembly is judged by (never shown to the agent)."""

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
    assert {"block_a", "block_b"} <= set(ctx.parts), f"expected block_a and block_b, got {sorted(ctx.parts)}"
    assert _named(ctx, "dowel") == ["dowel_1", "dowel_2"], f"expected dowel_1 and dowel_2, got {_named(ctx, 'dowel')}"


def test_blocks(ctx):
    for name in ("block_a", "block_b"):
        for got, want, axis in zip(_size(ctx, name), (60, 40, 20), "XYZ", strict=True):
            _near(got, want, 0.1, f"{name} size along {axis}")
    _near(ctx.bbox("block_b")[2], ctx.bbox("block_a")[5], 0.05, "block_b bottom on block_a top")
    _touch(ctx, "block_a", "block_b")


def test_dowels(ctx):
    xs = []
    for name in ("dowel_1", "dowel_2"):
        for got, want in zip(_size(ctx, name), (8, 8, 20), strict=True):
            _near(got, want, 0.05, f"{name} size")
        x, y, z = ctx.center(name)
        _near(y, 0, 0.05, f"{name} y")
        _near(z, 20, 0.1, f"{name} centre height (the joint plane)")
        xs.append(x)
    _near(min(xs), -20, 0.1, "left dowel x")
    _near(max(xs), 20, 0.1, "right dowel x")


def test_fit(ctx):
    for dowel in ("dowel_1", "dowel_2"):
        for block in ("block_a", "block_b"):
            _apart(ctx, dowel, block)
    _apart(ctx, "block_a", "block_b")
