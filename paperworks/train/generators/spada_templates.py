"""Shared pieces of the SPADA problem families (``spada_fits``, ``spada_patterns``): number formatting,
the hidden tests' helper preamble, and the ``Family`` record each family fills in.

A family draws its parameters from a ``random.Random`` and, from the same parameters, writes everything a
SPADA-Bench row has: the detailed request (one wording per phrasing variant), the one-sentence abstract
request, the reference program (the suite's program convention: ``PARAMS``, ``build(params)`` returning a
``cq.Assembly`` of named parts, ``result = build(PARAMS)``), the hidden tests (``def test_*(ctx)`` on the
judge's ``ctx``, in the suite's style), the constraints (envelope, tolerances, minimum parts) and the
mutants: each a one-place edit of the reference text that must fail a hidden test or check.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Params = dict[str, Any]


def num(x: float) -> str:
    """A dimension as written in requests and tests: ``80``, ``8.4``, ``-12.5`` (at most 3 decimals)."""
    value = round(float(x), 3)
    if value == 0:
        return "0"
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return text


def fl(x: float) -> str:
    """A dimension as written in a program's ``PARAMS`` (a float literal: ``80.0``, ``8.4``)."""
    return repr(round(float(x), 3) + 0.0)


def ceil_to(x: float, step: int = 10) -> int:
    """``x`` rounded up to a multiple of ``step``."""
    return int(math.ceil(x / step - 1e-9) * step)


def envelope(size: tuple[float, float, float], margin: float = 10) -> list[int]:
    """An assembly envelope: the reference's overall size plus ``margin`` per axis, in whole mm."""
    return [int(math.ceil(s + margin)) for s in size]


CONSTRAINTS = {"interference_tol_mm3": 0.001, "contact_tol_mm": 0.05}
"""The tolerances every SPADA-Bench task uses (the envelope and ``min_parts`` vary per problem)."""

TEST_HELPERS = '''import math

import cadquery as cq


def _size(ctx, name):
    """Extents (dx, dy, dz) of a part's bounding box."""
    b = ctx.bbox(name)
    return (b[3] - b[0], b[4] - b[1], b[5] - b[2])


def _near(value, expected, tol, what):
    assert abs(value - expected) <= tol, f"{what}: {value:.3f}, expected {expected} +- {tol}"


def _bounds(ctx, name, want, tol=0.1):
    """The part's bounding box is (xmin, ymin, zmin, xmax, ymax, zmax) = want (+- tol)."""
    for got, expected, what in zip(ctx.bbox(name), want, ("xmin", "ymin", "zmin", "xmax", "ymax", "zmax"),
                                   strict=True):
        _near(got, expected, tol, f"{name} {what}")


def _solid_volume(shape):
    # solids of a boolean result only: shapes that merely touch meet in faces
    return sum(s.Volume() for s in shape.Solids())


def _probe(ctx, name, diameter, start, direction, length):
    """Volume of a part inside a probe cylinder (tests the size of holes and bores)."""
    rod = cq.Solid.makeCylinder(diameter / 2, length, cq.Vector(*start), cq.Vector(*direction))
    return _solid_volume(ctx.parts[name].intersect(rod))


def _hole(ctx, name, diameter, start, direction, length, tol=0.15):
    """The part has a hole of `diameter` (+- tol) along the probe's axis."""
    free = _probe(ctx, name, diameter - tol, start, direction, length)
    assert free < 1e-3, f"{name}: no free hole of diameter {diameter - tol:.2f} at {start} ({free:.2f} mm3 of material)"
    assert _probe(ctx, name, diameter + tol, start, direction, length) > 1e-3, \\
        f"{name}: the hole at {start} is wider than {diameter + tol:.2f}"


def _inside(ctx, name, lo, hi):
    """Volume of a part inside the box from corner lo to corner hi."""
    size = [b - a for a, b in zip(lo, hi, strict=True)]
    return _solid_volume(ctx.parts[name].intersect(cq.Solid.makeBox(*size, pnt=cq.Vector(*lo))))


def _slab(ctx, name, axis, lo, hi):
    """Extents (dx, dy, dz) of the part's material between lo and hi along an axis (0 x, 1 y, 2 z)."""
    lo_pt, size = [-5000.0] * 3, [10000.0] * 3
    lo_pt[axis], size[axis] = lo, hi - lo
    piece = ctx.parts[name].intersect(cq.Solid.makeBox(*size, pnt=cq.Vector(*lo_pt)))
    assert piece.Solids(), f"{name}: no material between {lo} and {hi} along axis {'xyz'[axis]}"
    b = piece.BoundingBox()
    return (b.xlen, b.ylen, b.zlen)


def _named(ctx, prefix):
    """Names of the parts that start with a prefix, sorted by their number."""
    return sorted((n for n in ctx.parts if n.startswith(prefix)), key=lambda n: (len(n), n))


def _touch(ctx, a, b, tol=0.05):
    d = ctx.distance(a, b)
    assert d <= tol, f"{a} and {b} must touch (gap {d:.3f} mm)"


def _apart(ctx, a, b, tol=1e-3):
    v = _solid_volume(ctx.parts[a].intersect(ctx.parts[b]))
    assert v <= tol, f"{a} and {b} overlap by {v:.3f} mm3"
'''
"""The helpers every generated ``hidden_tests.py`` starts with (after its docstring)."""


def hidden_tests(task_id: str, body: str) -> str:
    """A hidden-tests file: docstring, the shared helpers, then the family's ``test_*`` functions."""
    head = f'"""Hidden tests for {task_id}: the contract an assembly is judged by (never shown to the agent)."""\n\n'
    return head + TEST_HELPERS + "\n\n" + body.strip() + "\n"


def mutant_text(task_id: str, reference: str, name: str, what: str, old: str, new: str) -> str:
    """The reference with one edit (``old`` -> ``new``, which must occur exactly once), and a docstring
    saying which mutant it is."""
    count = reference.count(old)
    if count != 1:
        raise ValueError(f"mutant {name} of {task_id}: the edited text occurs {count} times, expected once: {old!r}")
    code = reference.replace(old, new)
    doc_end = code.index('"""', 3) + 3
    title = code[3:doc_end - 3]
    return f'"""Mutant of {task_id}: {what} (must fail a hidden test or check).\n\n{title}\n"""' + code[doc_end:]


@dataclass(frozen=True)
class Mutation:
    """One mutant: a name, what is wrong, and the edit of the reference text (given the parameters)."""

    name: str
    what: str
    edit: Callable[[Params], tuple[str, str]]


@dataclass(frozen=True)
class Family:
    """A family of parametric assembly problems (see the module docstring)."""

    name: str
    category: str
    draw: Callable[[Any], Params]
    """Parameters (dimensions, positions and part names) from a ``random.Random``."""
    requests: dict[str, list[Callable[[Params], str]]]
    """Detailed request wordings per phrasing (``train``, ``heldout``); different sentences, same contract."""
    abstract: Callable[[Params], str]
    code: Callable[[Params], str]
    tests: Callable[[Params], str]
    """The ``test_*`` functions (the preamble is added by ``hidden_tests``)."""
    size: Callable[[Params], tuple[float, float, float]]
    """The reference assembly's overall size (x, y, z) in mm (the envelope adds a margin)."""
    parts: Callable[[Params], list[str]]
    signature: Callable[[Params], list[float]]
    """The contract's key numbers (for ``overlap``: the same family and numbers is the same problem)."""
    mutations: tuple[Mutation, ...]
