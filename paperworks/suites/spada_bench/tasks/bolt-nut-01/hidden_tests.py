"""Hidden tests for bolt-nut-01: the contract an assembly is judged by (never shown to the agent)."""

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
    want = {"plate_a", "plate_b", "bolt", "washer", "nut"}
    assert want <= set(ctx.parts), f"missing {sorted(want - set(ctx.parts))}"


def test_plates(ctx):
    for name, z in (("plate_a", 0), ("plate_b", 10)):
        for got, want in zip(ctx.bbox(name), (-30, -20, z, 30, 20, z + 10), strict=True):
            _near(got, want, 0.1, f"{name} bounds")
        _hole(ctx, name, 10.5, (0, 0, -1), (0, 0, 1), 22)


def test_bolt(ctx):
    _near(_slab(ctx, "bolt", 2, 1, 19)[0], 10, 0.05, "shank diameter")
    head = _slab(ctx, "bolt", 2, -6, -0.5)
    _near(min(head[0], head[1]), 16, 0.1, "head across flats")
    b = ctx.bbox("bolt")
    _near(b[2], -6.4, 0.1, "head underside z")
    assert b[5] >= ctx.bbox("nut")[5] - 0.1, "the shank must pass through the whole nut"
    _touch(ctx, "bolt", "plate_a")


def test_washer_and_nut(ctx):
    dx, _, dz = _size(ctx, "washer")
    _near(dx, 20, 0.1, "washer outer diameter")
    _near(dz, 2, 0.05, "washer thickness")
    _hole(ctx, "washer", 10.5, (0, 0, 19), (0, 0, 4), 4)
    _near(ctx.bbox("washer")[2], 20, 0.05, "washer on plate_b")
    nx, ny, nz = _size(ctx, "nut")
    _near(min(nx, ny), 16, 0.1, "nut across flats")
    _near(nz, 8, 0.1, "nut height")
    _touch(ctx, "nut", "washer")
    _touch(ctx, "washer", "plate_b")


def test_coaxial_and_clear(ctx):
    names = ["plate_a", "plate_b", "bolt", "washer", "nut"]
    for name in ("washer", "nut"):
        x, y, _ = ctx.center(name)
        _near(abs(x) + abs(y), 0, 0.05, f"{name} on the bolt axis")
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            _apart(ctx, a, b)
