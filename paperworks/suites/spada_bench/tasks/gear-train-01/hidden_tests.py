"""Hidden tests for gear-train-01: the contract an assembly is judged by (never shown to the agent)."""

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


GEARS = {"gear_1": 27.0, "gear_2": 45.0, "gear_3": 36.0}  # pitch diameters m * z


def test_parts_named(ctx):
    want = {"plate", *GEARS, "shaft_1", "shaft_2", "shaft_3"}
    assert want <= set(ctx.parts), f"missing {sorted(want - set(ctx.parts))}"


def test_pitch_diameters(ctx):
    for name, d in GEARS.items():
        dx, dy, dz = _size(ctx, name)
        _near(dx, d, 0.1, f"{name} pitch diameter")
        _near(dz, 8, 0.1, f"{name} width")
        _near(ctx.bbox(name)[2], 15, 0.1, f"{name} bottom z")


def test_centre_distances(ctx):
    c = {n: ctx.center(n) for n in GEARS}
    _near(c["gear_1"][0], 0, 0.05, "gear_1 x")
    for a, b, want in (("gear_1", "gear_2", 36.0), ("gear_2", "gear_3", 40.5)):
        _near(math.dist(c[a][:2], c[b][:2]), want, 0.05, f"centre distance {a}-{b}")
        _touch(ctx, a, b)
        _apart(ctx, a, b)
    assert ctx.distance("gear_1", "gear_3") > 1, "gear_1 and gear_3 must not mesh"


def test_shafts(ctx):
    for i in (1, 2, 3):
        shaft, gear = f"shaft_{i}", f"gear_{i}"
        dx, _, dz = _size(ctx, shaft)
        _near(dx, 6, 0.05, f"{shaft} diameter")
        _near(dz, 30, 0.1, f"{shaft} length")
        _near(math.dist(ctx.center(shaft)[:2], ctx.center(gear)[:2]), 0, 0.05, f"{gear} on {shaft}'s axis")
        _touch(ctx, shaft, "plate")
        _apart(ctx, shaft, gear)
        _apart(ctx, shaft, "plate")


def test_plate(ctx):
    b = ctx.bbox("plate")
    for got, want in zip(b, (-30, -30, 0, 110, 30, 8), strict=True):
        _near(got, want, 0.1, "plate bounds")
