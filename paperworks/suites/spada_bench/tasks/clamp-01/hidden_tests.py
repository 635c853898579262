"""Hidden tests for clamp-01: the contract an assembly is judged by (never shown to the agent)."""

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
    assert {"frame", "screw", "pad", "handle"} <= set(ctx.parts), f"got {sorted(ctx.parts)}"


def test_frame(ctx):
    for got, want in zip(ctx.bbox("frame"), (-60, -6, 0, 0, 6, 100), strict=True):
        _near(got, want, 0.1, "frame bounds")
    _near(_slab(ctx, "frame", 2, 20, 80)[0], 15, 0.1, "spine width")
    _hole(ctx, "frame", 10, (-15, 0, 80), (0, 0, 1), 25, tol=0.1)


def test_screw(ctx):
    dx, dy, dz = _slab(ctx, "screw", 2, 55, 120)
    _near(dx, 10, 0.05, "screw diameter")
    x, y, _ = ctx.center("screw")
    _near(x, -15, 0.1, "screw axis x")
    _near(y, 0, 0.1, "screw axis y")
    _near(_size(ctx, "screw")[2], 90, 0.1, "screw length")
    _touch(ctx, "screw", "frame")


def test_pad_and_opening(ctx):
    dx, _, dz = _size(ctx, "pad")
    _near(dx, 20, 0.1, "pad diameter")
    _near(dz, 5, 0.1, "pad thickness")
    _near(ctx.bbox("pad")[2] - 15, 30, 0.2, "opening between the anvil and the pad")
    _near(ctx.center("pad")[0], -15, 0.1, "pad on the screw axis")
    _touch(ctx, "pad", "screw")


def test_handle(ctx):
    dx, dy, dz = _size(ctx, "handle")
    _near(dx, 60, 0.1, "handle length along X")
    _near(dz, 6, 0.05, "handle diameter")
    x, _, z = ctx.center("handle")
    _near(x, -15, 0.2, "handle centred on the screw")
    _near(z, 133, 0.2, "handle height")
    _touch(ctx, "handle", "screw")


def test_no_overlaps(ctx):
    names = ["frame", "screw", "pad", "handle"]
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            _apart(ctx, a, b)
