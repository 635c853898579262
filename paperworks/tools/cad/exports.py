"""STEP/STL exports and PNG renders of an assembly's parts.

Runs INSIDE the sandbox worker (bind-mounted next to ``worker.py``): standard library at module level,
CadQuery inside functions, no ``paperworks`` imports.

Renders are flat-shaded, one colour per part, drawn with the painter's algorithm into an SVG
(tessellated faces plus feature edges, sorted far to near), with the part names as a legend; the
SVG becomes a PNG through ``rsvg-convert`` (or ``cairosvg`` when installed). Views: isometric
(from +x −y +z), front (from −y), top (from +z), side (from +x); z is up.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path
from typing import Any

Vec = tuple[float, float, float]
VIEWS: dict[str, tuple[Vec, Vec]] = {  # name → (towards the viewer, up)
    "iso": ((1.0, -1.0, 1.0), (0.0, 0.0, 1.0)),
    "front": ((0.0, -1.0, 0.0), (0.0, 0.0, 1.0)),
    "top": ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0)),
    "side": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
}
PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7",
           "#9c755f", "#bab0ac"]
SIZE = 640


def _unit(v: Vec) -> Vec:
    n = math.sqrt(sum(x * x for x in v)) or 1.0
    return (v[0] / n, v[1] / n, v[2] / n)


def _cross(a: Vec, b: Vec) -> Vec:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a: Vec, b: Vec) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _shade(hex_color: str, k: float) -> str:
    r, g, b = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{max(0, min(255, int(c * k))):02x}" for c in (r, g, b))


def export_step_stl(parts: dict[str, Any], folder: Path) -> dict[str, str]:
    """Write ``assembly.step`` (named, coloured parts) and ``assembly.stl``; returns artifact → file name."""
    import cadquery as cq

    out: dict[str, str] = {}
    assy = cq.Assembly(name="assembly")
    for i, (name, shape) in enumerate(parts.items()):
        r, g, b = (int(PALETTE[i % len(PALETTE)][j:j + 2], 16) / 255 for j in (1, 3, 5))
        assy.add(shape, name=name, color=cq.Color(r, g, b))
    assy.export(str(folder / "assembly.step"))
    out["step"] = "assembly.step"
    compound = cq.Compound.makeCompound(list(parts.values()))
    diag = compound.BoundingBox().DiagonalLength or 1.0
    cq.exporters.export(compound, str(folder / "assembly.stl"), tolerance=diag / 1000, angularTolerance=0.2)
    out["stl"] = "assembly.stl"
    return out


def _split(tri: list[Vec], longest: float, depth: int = 0) -> list[list[Vec]]:
    """Split a triangle into four until its edges are shorter than ``longest`` (better depth sorting)."""
    a, b, c = tri
    if depth >= 2 or max(math.dist(a, b), math.dist(b, c), math.dist(c, a)) <= longest:
        return [tri]
    ab, bc, ca = (tuple((p[i] + q[i]) / 2 for i in range(3)) for p, q in ((a, b), (b, c), (c, a)))
    out: list[list[Vec]] = []
    for t in ([a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]):
        out.extend(_split(t, longest, depth + 1))  # type: ignore[arg-type]
    return out


def _mesh(parts: dict[str, Any]) -> tuple[list[tuple[int, list[Vec]]], list[tuple[int, list[Vec]]], float]:
    """Triangles and edge polylines of every part (with the part's index), and the assembly diagonal."""
    import cadquery as cq

    compound = cq.Compound.makeCompound(list(parts.values()))
    diag = compound.BoundingBox().DiagonalLength or 1.0
    tris: list[tuple[int, list[Vec]]] = []
    lines: list[tuple[int, list[Vec]]] = []
    for i, shape in enumerate(parts.values()):
        verts, faces = shape.tessellate(diag / 200, 0.5)
        pts = [(v.x, v.y, v.z) for v in verts]
        for a, b, c in faces:
            tris.extend((i, t) for t in _split([pts[a], pts[b], pts[c]], diag / 10))
        for edge in shape.Edges():
            n = max(2 if edge.geomType() == "LINE" else 24, min(64, int(edge.Length() / (diag / 40)) + 2))
            try:
                poly = [edge.positionAt(k / (n - 1)) for k in range(n)]
            except Exception:  # degenerate edges (seams of spheres, cones' apex)
                continue
            lines.append((i, [(p.x, p.y, p.z) for p in poly]))
    return tris, lines, diag


def render_svg(parts: dict[str, Any], view: str, mesh: Any = None) -> str:
    """One view of the parts as an SVG document (painter's algorithm, shaded, one colour per part)."""
    tris, lines, diag = mesh or _mesh(parts)
    toward, up = VIEWS[view]
    v = _unit(toward)
    right = _unit(_cross(up, v))
    upv = _cross(v, right)
    light = _unit((v[0] + 0.3 * right[0] + 0.5 * upv[0], v[1] + 0.3 * right[1] + 0.5 * upv[1],
                   v[2] + 0.3 * right[2] + 0.5 * upv[2]))

    def proj(p: Vec) -> tuple[float, float, float]:
        return (_dot(p, right), _dot(p, upv), _dot(p, v))

    items: list[tuple[float, str, int, list[tuple[float, float]], float]] = []
    for i, tri in tris:
        a, b, c = tri
        n = _unit(_cross((b[0] - a[0], b[1] - a[1], b[2] - a[2]), (c[0] - a[0], c[1] - a[1], c[2] - a[2])))
        if _dot(n, v) < -1e-9:  # back face (tessellation is outward-oriented)
            continue
        q = [proj(p) for p in tri]
        items.append((sum(x[2] for x in q) / 3, "t", i, [(x[0], x[1]) for x in q], 0.3 + 0.7 * abs(_dot(n, light))))
    bias = diag / 30
    for i, poly in lines:
        q = [proj(p) for p in poly]
        for s in range(len(q) - 1):
            depth = max(q[s][2], q[s + 1][2]) + bias
            items.append((depth, "l", i, [(q[s][0], q[s][1]), (q[s + 1][0], q[s + 1][1])], 0.0))
    if not items:
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="{SIZE}" height="{SIZE}"/>'
    xs = [p[0] for it in items for p in it[3]]
    ys = [p[1] for it in items for p in it[3]]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    legend_h = 18 * ((len(parts) + 3) // 4) + 30
    scale = (SIZE - 40) / span * min(1.0, (SIZE - legend_h) / SIZE)
    cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    oy = SIZE / 2 - legend_h / 2 + 15

    def pts(poly: list[tuple[float, float]]) -> str:
        return " ".join(f"{SIZE / 2 + (x - cx) * scale:.1f},{oy - (y - cy) * scale:.1f}" for x, y in poly)

    body = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{SIZE}" height="{SIZE}" viewBox="0 0 {SIZE} {SIZE}">',
            f'<rect width="{SIZE}" height="{SIZE}" fill="white"/>',
            f'<text x="8" y="18" font-family="sans-serif" font-size="14" fill="#333">{view} view</text>']
    for _, kind, i, poly, k in sorted(items, key=lambda it: it[0]):
        color = PALETTE[i % len(PALETTE)]
        if kind == "t":
            fill = _shade(color, k)
            body.append(f'<polygon points="{pts(poly)}" fill="{fill}" stroke="{fill}" stroke-width="0.6"/>')
        else:
            body.append(f'<polyline points="{pts(poly)}" fill="none" stroke="{_shade(color, 0.35)}" '
                        'stroke-width="1.2" stroke-linecap="round"/>')
    for j, name in enumerate(parts):
        x, y = 10 + (j % 4) * (SIZE - 20) / 4, SIZE - legend_h + 22 + 18 * (j // 4)
        safe = name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")[:24]
        body.append(f'<rect x="{x:.0f}" y="{y - 11:.0f}" width="12" height="12" fill="{PALETTE[j % len(PALETTE)]}"/>'
                    f'<text x="{x + 16:.0f}" y="{y:.0f}" font-family="sans-serif" font-size="12">{safe}</text>')
    body.append("</svg>")
    return "\n".join(body)


def write_svgs(parts: dict[str, Any], folder: Path) -> dict[str, str]:
    """Write ``render_<view>.svg`` for every view; returns artifact key → SVG file name."""
    mesh = _mesh(parts)
    out = {}
    for view in VIEWS:
        (folder / f"render_{view}.svg").write_text(render_svg(parts, view, mesh))
        out[f"render_{view}"] = f"render_{view}.svg"
    return out


def svgs_to_pngs(pairs: list[tuple[str, str]], timeout_s: float = 30) -> None:
    """Convert several SVGs to PNGs at once (parallel rsvg-convert processes); failures are skipped."""
    exe = shutil.which("rsvg-convert") or ("/usr/bin/rsvg-convert" if Path("/usr/bin/rsvg-convert").exists() else None)
    if not exe:
        for svg, png in pairs:
            try:
                svg_to_png(Path(svg), Path(png), timeout_s)
            except Exception:
                pass
        return
    procs = [subprocess.Popen([exe, "-f", "png", "-o", png, svg], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL) for svg, png in pairs]
    for proc in procs:
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def svg_to_png(svg: Path, png: Path, timeout_s: float = 30) -> bool:
    """Convert an SVG to PNG with rsvg-convert (or cairosvg); False when neither is available or it fails."""
    exe = shutil.which("rsvg-convert") or next((p for p in ("/usr/bin/rsvg-convert",) if Path(p).exists()), None)
    if exe:
        done = subprocess.run([exe, "-f", "png", "-o", str(png), str(svg)], capture_output=True, timeout=timeout_s)
        return done.returncode == 0 and png.exists()
    try:
        import cairosvg
    except ImportError:
        return False
    cairosvg.svg2png(url=str(svg), write_to=str(png))
    return png.exists()
