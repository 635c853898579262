"""Geometry and physics checks on the parts of an assembly, and the ``ctx`` object given to tests.

This module runs INSIDE the sandbox worker (it is bind-mounted there next to ``worker.py``): it
imports only the standard library at module level and CadQuery/OCP inside functions, and never
imports ``paperworks``. Results are plain JSON-able dicts.

Checks (names as they appear in ``SandboxResult.checks``):

- ``valid_solids``: every part holds at least one solid, ``isValid()`` and every shell closed.
- ``one_body`` (every part is one connected body) or ``disjoint:name`` per part made of several solids
  that do not touch (farther apart than ``contact_tol_mm``), e.g. a union that never happened.
- ``interference`` (all clear) or ``interference:a/b`` per pair whose boolean intersection volume
  exceeds ``interference_tol_mm3``.
- ``contact`` (every part touches another) or ``floating:name`` per part farther than
  ``contact_tol_mm`` from every other part (a single part is never floating).
- ``envelope``: the assembly's overall size within ``envelope`` (x, y, z), when given.
- ``clearance:a/b``: minimum distance within [min, max] for each configured ``clearances`` pair.
"""

from __future__ import annotations

import math
from typing import Any

Bbox = tuple[float, float, float, float, float, float]


def bbox_of(shape: Any) -> Bbox:
    """Axis-aligned bounding box (xmin, ymin, zmin, xmax, ymax, zmax) of a cq.Shape."""
    b = shape.BoundingBox()
    return (b.xmin, b.ymin, b.zmin, b.xmax, b.ymax, b.zmax)


def bbox_gap(a: Bbox, b: Bbox) -> float:
    """Lower bound of the distance between two boxes (0 when they overlap)."""
    d = [max(0.0, a[i] - b[i + 3], b[i] - a[i + 3]) for i in range(3)]
    return math.sqrt(sum(x * x for x in d))


def is_closed_solid(shape: Any) -> bool:
    """True when the shape has at least one solid, is valid, and every shell is closed."""
    from OCP.BRep import BRep_Tool

    solids = shape.Solids()
    if not solids or not shape.isValid():
        return False
    for solid in solids:
        if solid.Volume() <= 0:
            return False
        for shell in solid.Shells():
            if not BRep_Tool.IsClosed_s(shell.wrapped):
                return False
    return True


def interference_volume(a: Any, b: Any) -> float:
    """Volume of the boolean intersection of two shapes (0 when their boxes do not overlap).

    Only the intersection's solids count: parts that merely touch intersect in faces, whose
    ``Volume()`` OCCT reports as non-zero (a rim resting on a floor came out as its area)."""
    if bbox_gap(bbox_of(a), bbox_of(b)) > 0:
        return 0.0
    common = a.intersect(b)
    solids = common.Solids() if hasattr(common, "Solids") else []
    return float(sum(s.Volume() for s in solids))


def _axial_range(bb: Bbox, origin: tuple[float, ...], direction: tuple[float, ...]) -> tuple[float, float]:
    corners = [(x, y, z) for x in (bb[0], bb[3]) for y in (bb[1], bb[4]) for z in (bb[2], bb[5])]
    ts = [sum((c[i] - origin[i]) * direction[i] for i in range(3)) for c in corners]
    return min(ts), max(ts)


def _cylinders(shape: Any) -> list[tuple[float, tuple[float, ...], tuple[float, ...], Bbox]]:
    """(radius, axis point, axis direction, face bounding box) of each cylindrical face."""
    out: list[tuple[float, tuple[float, ...], tuple[float, ...], Bbox]] = []
    for face in shape.Faces():
        if face.geomType() != "CYLINDER":
            continue
        cyl = face._geomAdaptor().Cylinder()
        p, d = cyl.Axis().Location(), cyl.Axis().Direction()
        out.append((cyl.Radius(), (p.X(), p.Y(), p.Z()), (d.X(), d.Y(), d.Z()), bbox_of(face)))
    return out


def diametral_clearance(shaft: Any, bore: Any) -> tuple[float, float, float]:
    """(clearance, shaft diameter, bore diameter) of the closest-fitting coaxial cylinder pair:
    a cylindrical face of ``shaft`` and one of ``bore`` on a common axis with overlapping axial extents,
    the pair with the smallest |clearance| (negative for an interference fit). Raises ValueError when
    no such pair exists."""
    best: tuple[float, float, float] | None = None
    for rs, ps, ds, bbs in _cylinders(shaft):
        for rb, pb, db, bbb in _cylinders(bore):
            if abs(sum(ds[i] * db[i] for i in range(3))) < 0.999:
                continue
            v = [ps[i] - pb[i] for i in range(3)]
            t = sum(v[i] * db[i] for i in range(3))
            if math.sqrt(max(0.0, sum(x * x for x in v) - t * t)) > 0.05 * max(rb, 1e-9) + 1e-6:
                continue
            lo_s, hi_s = _axial_range(bbs, pb, db)
            lo_b, hi_b = _axial_range(bbb, pb, db)
            if min(hi_s, hi_b) - max(lo_s, lo_b) <= 1e-6 or rb < 0.9 * rs:
                continue
            gap = 2 * (rb - rs)
            if best is None or abs(gap) < abs(best[0]):
                best = (gap, 2 * rs, 2 * rb)
    if best is None:
        raise ValueError("no coaxial cylindrical surfaces found (is the shaft inside the bore?)")
    return best


class Ctx:
    """What a test function receives. See ``paperworks.tools.cad`` for the documented helpers."""

    def __init__(self, params: dict[str, Any], parts: dict[str, Any], assembly: Any) -> None:
        self.params = params
        self.parts = parts
        self.assembly = assembly

    def _part(self, name: str) -> Any:
        if name not in self.parts:
            raise KeyError(f"no part named {name!r} (parts: {', '.join(self.parts) or 'none'})")
        return self.parts[name]

    def bbox(self, name: str) -> Bbox:
        """(xmin, ymin, zmin, xmax, ymax, zmax) of a part."""
        return bbox_of(self._part(name))

    def size(self, name: str) -> tuple[float, float, float]:
        """(dx, dy, dz) extent of a part's bounding box."""
        b = self.bbox(name)
        return (b[3] - b[0], b[4] - b[1], b[5] - b[2])

    def volume(self, name: str) -> float:
        """Volume of a part in mm³."""
        return float(self._part(name).Volume())

    def interference(self, a: str, b: str) -> float:
        """Volume (mm³) of the intersection of two parts."""
        return interference_volume(self._part(a), self._part(b))

    def distance(self, a: str, b: str) -> float:
        """Minimum distance between two parts (0 when they touch or overlap)."""
        return float(self._part(a).distance(self._part(b)))

    def center(self, name: str) -> tuple[float, float, float]:
        """Centre of mass of a part."""
        c = self._part(name).Center()
        return (c.x, c.y, c.z)

    def is_valid(self, name: str) -> bool:
        """True when a part is a valid closed solid."""
        return is_closed_solid(self._part(name))

    def fit(self, shaft: str, bore: str, min_mm: float | None = None, max_mm: float | None = None) -> float:
        """Diametral clearance (bore diameter − shaft diameter) between coaxial cylindrical faces of
        ``shaft`` (pin, shaft) and ``bore`` (hole, bore); asserts it lies in [min_mm, max_mm] when given."""
        try:
            gap, ds, db = diametral_clearance(self._part(shaft), self._part(bore))
        except ValueError as exc:
            raise AssertionError(f"fit {shaft} in {bore}: {exc}") from None
        if (min_mm is not None and gap < min_mm - 1e-9) or (max_mm is not None and gap > max_mm + 1e-9):
            raise AssertionError(f"fit {shaft} in {bore}: diametral clearance {gap:.4g} mm (shaft Ø{ds:.4g}, "
                                 f"bore Ø{db:.4g}) not within [{min_mm}, {max_mm}]")
        return gap


def _check(name: str, passed: bool, message: str, **details: Any) -> dict[str, Any]:
    return {"name": name, "passed": bool(passed), "message": message, "details": details}


def _clean(x: float) -> float:
    """Round away floating-point noise (1e-16 → 0.0) for readable reports."""
    return round(float(x), 9) + 0.0


def mass_properties(parts: dict[str, Any], density: Any = None) -> list[dict[str, Any]]:
    """Per part: name, volume, valid, bbox, center and mass (grams, when ``density`` in g/cm³ is given,
    a number or a {part: density} dict)."""
    rows = []
    for name, shape in parts.items():
        c = shape.Center()
        row: dict[str, Any] = {"name": name, "volume": float(shape.Volume()), "valid": is_closed_solid(shape),
                               "bbox": [_clean(x) for x in bbox_of(shape)], "center": [_clean(c.x), _clean(c.y),
                                                                                       _clean(c.z)]}
        rho = density.get(name) if isinstance(density, dict) else density
        if isinstance(rho, int | float):
            row["mass"] = row["volume"] * float(rho) / 1000.0
        rows.append(row)
    return rows


def bodies(shape: Any, tol: float) -> int:
    """How many separate bodies a shape's solids form (solids closer than ``tol`` are one body)."""
    solids = list(shape.Solids())
    if len(solids) < 2:
        return len(solids)
    boxes = [bbox_of(s) for s in solids]
    group = list(range(len(solids)))

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for i in range(len(solids)):
        for j in range(i + 1, len(solids)):
            if root(i) != root(j) and bbox_gap(boxes[i], boxes[j]) <= tol \
                    and float(solids[i].distance(solids[j])) <= tol:
                group[root(j)] = root(i)
    return len({root(i) for i in range(len(solids))})


def _bodies_checks(parts: dict[str, Any], tol: float) -> list[dict[str, Any]]:
    out = []
    for name, shape in parts.items():
        n = bodies(shape, tol)
        if n > 1:
            out.append(_check(f"disjoint:{name}", False, f"{name} is made of {n} disjoint solids (one part must be "
                              "one connected body; fuse them or make them separate parts)", bodies=n))
    return out or [_check("one_body", True, "every part is one connected body")]


def run_checks(parts: dict[str, Any], options: dict[str, Any]) -> list[dict[str, Any]]:
    """All assembly checks on located parts (name → cq.Shape); see the module docstring."""
    out: list[dict[str, Any]] = []
    invalid = [n for n, s in parts.items() if not is_closed_solid(s)]
    out.append(_check("valid_solids", not invalid and bool(parts),
                      f"invalid or open solids: {', '.join(invalid)}" if invalid else
                      (f"{len(parts)} valid closed solids" if parts else "no parts"), invalid=invalid))
    names = list(parts)
    boxes = {n: bbox_of(s) for n, s in parts.items()}
    tol_v = float(options.get("interference_tol_mm3", 1e-3))
    tol_c = float(options.get("contact_tol_mm", 0.05))
    out.extend(_bodies_checks(parts, tol_c))
    touching: dict[str, set[str]] = {n: set() for n in names}
    clashes = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if bbox_gap(boxes[a], boxes[b]) > tol_c:
                continue
            vol = interference_volume(parts[a], parts[b])
            if vol > tol_v:
                clashes.append((a, b, vol))
                touching[a].add(b)
                touching[b].add(a)
            elif float(parts[a].distance(parts[b])) <= tol_c:
                touching[a].add(b)
                touching[b].add(a)
    for a, b, vol in clashes:
        out.append(_check(f"interference:{a}/{b}", False, f"{a} and {b} overlap by {vol:.4g} mm³ "
                          f"(tolerance {tol_v:g} mm³)", volume=vol))
    if not clashes:
        out.append(_check("interference", True, f"no interference among {len(names)} parts"))
    floating = [n for n in names if len(names) > 1 and not touching[n]]
    for n in floating:
        out.append(_check(f"floating:{n}", False, f"{n} touches no other part (farther than {tol_c:g} mm "
                          "from every part)"))
    if not floating:
        out.append(_check("contact", True, "every part touches another" if len(names) > 1 else "single part",
                          graph={n: sorted(v) for n, v in touching.items()}))
    env = options.get("envelope")
    if env and parts:
        lo = [min(boxes[n][i] for n in names) for i in range(3)]
        hi = [max(boxes[n][i + 3] for n in names) for i in range(3)]
        size = [hi[i] - lo[i] for i in range(3)]
        ok = all(size[i] <= float(env[i]) + 1e-6 for i in range(3))
        out.append(_check("envelope", ok, f"size {size[0]:.4g} x {size[1]:.4g} x {size[2]:.4g} mm "
                          f"{'within' if ok else 'exceeds'} {env[0]:g} x {env[1]:g} x {env[2]:g}", size=size))
    for spec in options.get("clearances") or []:
        a, b, lo_mm, hi_mm = (list(spec) + [None, None])[:4]
        if a not in parts or b not in parts:
            out.append(_check(f"clearance:{a}/{b}", False, f"unknown part in clearance pair {a}/{b}"))
            continue
        d = float(parts[a].distance(parts[b]))
        ok = (lo_mm is None or d >= lo_mm - 1e-9) and (hi_mm is None or d <= hi_mm + 1e-9)
        out.append(_check(f"clearance:{a}/{b}", ok, f"minimum distance {d:.4g} mm, required "
                          f"[{lo_mm}, {hi_mm}]", distance=d))
    return out
