"""Programs in the styles real CadQuery users write (CadQuery's examples and docs, CQ-editor,
ocp_vscode / jupyter-cadquery / cq-server scripts, argparse scripts, benchmark programs) must be
accepted and measured right. Every expected volume and box below is computed by hand (formulas in
the comments), never by CadQuery."""

from __future__ import annotations

import math

import pytest

from paperworks.tools.cad.sandbox import SandboxResult, WorkerPool

PI = math.pi


def _part(r: SandboxResult, name: str) -> dict:
    by_name = {p["name"]: p for p in r.parts}
    assert name in by_name, f"no part {name!r}: {sorted(by_name)} ({r.stage}: {r.error})"
    return by_name[name]


def _built(r: SandboxResult) -> None:
    assert r.stage == "done", f"{r.stage}: {r.error}"
    failed = [(t.name, t.message) for t in r.tests if not t.passed]
    assert not failed, failed


# A pillow-block style assembly with the imports and helpers people use: PARAMS + build(params),
# dataclasses, typing, functools, itertools, numpy, colours, locations with a rotation.
PILLOW = '''import functools
import itertools
import math
from dataclasses import dataclass
from typing import Dict, List, Tuple

import numpy as np
import cadquery as cq

PARAMS = {"length": 60.0, "width": 40.0, "thickness": 8.0, "hole_d": 5.0, "bolt_d": 4.8}


@dataclass(frozen=True)
class Bolt:
    d: float
    head_d: float = 8.0
    head_h: float = 3.0


@functools.lru_cache(maxsize=None)
def bolt_shape(d: float, length: float, head_d: float, head_h: float) -> cq.Workplane:
    shank = cq.Workplane("XY").circle(d / 2).extrude(length)
    return shank.faces(">Z").workplane().circle(head_d / 2).extrude(head_h)


def hole_points(p: Dict[str, float]) -> List[Tuple[float, float]]:
    xs = np.array([-1.0, 1.0]) * (p["length"] / 2 - 8)
    ys = np.array([-1.0, 1.0]) * (p["width"] / 2 - 8)
    return [(float(x), float(y)) for x, y in itertools.product(xs, ys)]


def build(params):
    p = params
    plate = (cq.Workplane("XY").box(p["length"], p["width"], p["thickness"], centered=(True, True, False))
             .faces(">Z").workplane().pushPoints(hole_points(p)).hole(p["hole_d"]))
    rib = cq.Workplane("XY").box(30, 4, 12, centered=(True, True, False))
    spec = Bolt(p["bolt_d"])
    assy = cq.Assembly(name="pillow")
    assy.add(plate, name="plate", color=cq.Color("gray"))
    # the rib stands on the plate, turned 90 degrees about Z
    assy.add(rib, name="rib", loc=cq.Location(cq.Vector(0, 0, p["thickness"]), cq.Vector(0, 0, 1), 90),
             color=cq.Color(0.2, 0.4, 0.8, 1))
    for i, (x, y) in enumerate(hole_points(p)):
        assy.add(bolt_shape(spec.d, p["thickness"], spec.head_d, spec.head_h), name=f"bolt_{i}",
                 loc=cq.Location((x, y, 0)))
    return assy
'''
PILLOW_TESTS = '''import math


def test_plate_volume(ctx):
    # 60*40*8 - 4 holes pi*2.5^2*8
    assert abs(ctx.volume("plate") - (60 * 40 * 8 - 4 * math.pi * 2.5 ** 2 * 8)) < 0.5


def test_rib_turned(ctx):
    # 30 x 4 x 12 turned 90 degrees about Z: 4 along x, 30 along y, standing on z = 8
    x0, y0, z0, x1, y1, z1 = ctx.bbox("rib")
    assert abs((x1 - x0) - 4) < 1e-3 and abs((y1 - y0) - 30) < 1e-3
    assert abs(z0 - 8) < 1e-6 and abs(z1 - 20) < 1e-6


def test_bolt_fit(ctx):
    assert abs(ctx.fit("bolt_0", "plate") - 0.2) < 1e-6
'''


@pytest.mark.slow
def test_pillow_block_assembly_with_common_imports(pool: WorkerPool) -> None:
    r = pool.check(PILLOW, PILLOW_TESTS)
    _built(r)
    assert [t.name for t in r.tests] == ["test_plate_volume", "test_rib_turned", "test_bolt_fit"]
    assert r.ok, [(c.name, c.message) for c in r.checks if not c.passed]
    assert sorted(p["name"] for p in r.parts) == ["bolt_0", "bolt_1", "bolt_2", "bolt_3", "plate", "rib"]
    bolt = PI * 2.4 ** 2 * 8 + PI * 4 ** 2 * 3  # shank + head
    assert _part(r, "bolt_3")["volume"] == pytest.approx(bolt, rel=1e-6)
    assert _part(r, "bolt_3")["bbox"] == pytest.approx([22 - 4, 12 - 4, 0, 22 + 4, 12 + 4, 11], abs=1e-6)
    # a parameter edit through --set still works for such a program
    r2 = pool.check(PILLOW, None, params={"thickness": 10})
    assert r2.stage == "done", r2.error
    assert _part(r2, "plate")["volume"] == pytest.approx(60 * 40 * 10 - 4 * PI * 2.5 ** 2 * 10, rel=1e-6)


# Typical operations in one CQ-editor style script: revolve, shell, loft, sweep along an arc,
# fillet, spline, text, and export calls to paths of the author's machine.
OPERATIONS = '''import cadquery as cq

cup = cq.Workplane("XZ").rect(10, 20, centered=False).revolve(360, (0, 0, 0), (0, 1, 0))
tray = cq.Workplane().box(20, 20, 20).faces(">Z").shell(-2)
frustum = cq.Workplane().rect(20, 20).workplane(offset=10).rect(10, 10).loft()
path = cq.Workplane("XZ").moveTo(20, 0).radiusArc((0, 20), -20)  # centre at the origin
tube = cq.Workplane("XY").center(20, 0).circle(1).sweep(path)
rounded = cq.Workplane().box(20, 20, 10).edges("|Z").fillet(2)
wave = (cq.Workplane().moveTo(0, 0).spline([(10, 5), (20, 0)], includeCurrent=True).close().extrude(2))
label = cq.Workplane().text("CQ", 8, 1, halign="left", valign="bottom")

for name, obj in [("cup", cup), ("tray", tray), ("frustum", frustum), ("tube", tube), ("rounded", rounded),
                  ("wave", wave), ("label", label)]:
    show_object(obj, name=name, options={"color": "steelblue", "alpha": 0.5})
cq.exporters.export(rounded, "/home/someone/rounded.step")
rounded.val().exportStl("C:/Users/someone/rounded.stl")
'''


@pytest.mark.slow
def test_typical_operations_measure_right(pool: WorkerPool) -> None:
    r = pool.check(OPERATIONS, "def test_seven(ctx):\n    assert len(ctx.parts) == 7\n")
    _built(r)
    assert r.source == "show_object(...)"
    expected = {"cup": PI * 10 ** 2 * 20,  # solid of revolution: a cylinder r 10, h 20
                "tray": 20 ** 3 - 16 * 16 * 18,  # open box, walls 2 thick
                "frustum": 10 / 3 * (400 + 100 + math.sqrt(400 * 100)),  # h/3 (A1 + A2 + sqrt(A1 A2))
                "tube": PI * 1 ** 2 * (PI * 20 / 2),  # Pappus: section area x quarter-circle path length
                "rounded": 20 * 20 * 10 - 4 * (2 ** 2 - PI * 2 ** 2 / 4) * 10}  # 4 corners lose (r^2 - pi r^2/4)
    for name, volume in expected.items():
        assert _part(r, name)["volume"] == pytest.approx(volume, rel=2e-3), name
    wave = _part(r, "wave")["bbox"]
    assert wave[0] == pytest.approx(0, abs=1e-6) and wave[3] == pytest.approx(20, abs=1e-6)
    assert wave[2] == pytest.approx(0, abs=1e-6) and wave[5] == pytest.approx(2, abs=1e-6)
    label = _part(r, "label")
    assert label["volume"] > 10 and label["bbox"][5] == pytest.approx(1, abs=1e-6)
    assert all(_part(r, n)["valid"] for n in expected)


# ocp_vscode is rarely installed where programs are checked; its show() names parts.
OCP_VSCODE = '''import cadquery as cq
from ocp_vscode import show, show_object, set_port, set_defaults, Camera

set_port(3939)
set_defaults(reset_camera=Camera.CENTER, ortho=True)
base = cq.Workplane().box(30, 20, 4)
knob = cq.Workplane().cylinder(6, 3).translate((0, 0, 5))
show(base, knob, names=["base", "knob"], colors=["gray", "red"])
'''
JUPYTER = '''import cadquery as cq
from jupyter_cadquery import show, set_defaults, open_viewer
from jupyter_cadquery.viewer.client import show as client_show

open_viewer("CadQuery")
set_defaults(axes=True)
result = cq.Workplane().box(10, 10, 10)
show(result)
'''
CQ_SERVER = '''import cadquery as cq

if __name__ != "__cqgi__":
    from cq_server.ui import ui, show_object

show_object(cq.Workplane().sphere(5), name="ball", options={"color": "red"})
debug(cq.Workplane().box(1, 1, 1))
'''
CQ_VIS = '''import cadquery as cq
from cadquery.vis import show

plate = cq.Workplane().box(20, 20, 2)
post = cq.Workplane().cylinder(10, 2).translate((0, 0, 6))
show(plate, post)
'''


@pytest.mark.parametrize("code, volumes", [
    (OCP_VSCODE, {"base": 30 * 20 * 4, "knob": PI * 9 * 6}),
    (JUPYTER, {"part": 1000.0}),
    (CQ_SERVER, {"ball": 4 / 3 * PI * 125}),
    (CQ_VIS, {"part1": 800.0, "part2": PI * 4 * 10}),
])
def test_viewer_scripts_are_accepted(pool: WorkerPool, code: str, volumes: dict[str, float]) -> None:
    r = pool.check(code, None)
    assert r.stage == "done", r.error
    assert {p["name"]: p["volume"] for p in r.parts} == pytest.approx(volumes, rel=1e-6)


# A command-line script: argparse with defaults, an export that is read back, sys.exit(0).
SCRIPT = '''import argparse
import sys

import cadquery as cq


def main() -> int:
    parser = argparse.ArgumentParser(description="spacer")
    parser.add_argument("--od", type=float, default=20.0)
    parser.add_argument("--out", default="out/spacer.step")
    args = parser.parse_args()
    spacer = cq.Workplane().circle(args.od / 2).circle(4).extrude(5)
    cq.exporters.export(spacer, args.out)
    again = cq.importers.importStep(args.out)
    show_object(again, name="spacer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''


def test_argparse_script_with_export_roundtrip_and_exit(pool: WorkerPool) -> None:
    r = pool.check(SCRIPT, None)
    assert r.stage == "done", r.error
    assert _part(r, "spacer")["volume"] == pytest.approx(PI * (10 ** 2 - 4 ** 2) * 5, rel=1e-6)
    failing = pool.check(SCRIPT.replace("return 0", "return 3"), None)
    assert failing.stage == "build" and "SystemExit: 3" in (failing.error or "")


# Free-function style (CadQuery's quickstart): `top` (a face) is first assigned after `base`,
# but `base` is assigned last and holds the solid.
FREE_FUNC = '''from cadquery.func import box, cylinder, extrude, face, rect

base = box(40, 30, 10)
top = base.faces(">Z")
hole = cylinder(10, 10)  # d 10, h 10, on the axis of the (x-y centred) box
base = base - hole
'''
SELECTION_LAST = '''import cadquery as cq
body = cq.Workplane().box(40, 30, 10).faces(">Z").workplane().hole(10)
top_edges = body.edges(">Z")
'''


def test_last_assigned_solid_variable_wins(pool: WorkerPool) -> None:
    r = pool.check(FREE_FUNC, None)
    assert r.stage == "done" and r.source == "variable `base`", (r.source, r.error)
    assert _part(r, "part")["volume"] == pytest.approx(40 * 30 * 10 - PI * 5 ** 2 * 10, rel=1e-6)
    r = pool.check(SELECTION_LAST, None)
    assert r.source == "variable `body`", (r.source, r.error)
    assert _part(r, "part")["volume"] == pytest.approx(40 * 30 * 10 - PI * 5 ** 2 * 10, rel=1e-6)


# Part types people pass to show_object: a Sketch, an OCP TopoDS_Shape, a list of shapes, and
# Location/Vector markers next to real parts.
PART_TYPES = '''import cadquery as cq
from OCP.BRepPrimAPI import BRepPrimAPI_MakeBox

sk = cq.Sketch().rect(30, 20).push([(0, 0)]).circle(4, mode="s")
plate = cq.Workplane().placeSketch(sk).extrude(5)
show_object(plate, name="plate")
show_object(sk, name="outline")
show_object(BRepPrimAPI_MakeBox(2, 3, 4).Shape(), name="raw")
show_object([cq.Workplane().box(2, 2, 2), cq.Solid.makeSphere(1).moved(cq.Location((0, 0, 2)))], name="stack")
show_object(cq.Location((0, 0, 10)), name="marker")
show_object(cq.Vector(1, 2, 3))
'''


def test_sketch_topods_list_and_markers(pool: WorkerPool) -> None:
    r = pool.check(PART_TYPES, None)
    assert r.stage == "done", r.error
    assert sorted(p["name"] for p in r.parts) == ["outline", "plate", "raw", "stack"]
    assert _part(r, "plate")["volume"] == pytest.approx((30 * 20 - PI * 16) * 5, rel=1e-6)
    assert _part(r, "raw")["volume"] == pytest.approx(24, rel=1e-9)
    assert _part(r, "raw")["bbox"] == pytest.approx([0, 0, 0, 2, 3, 4], abs=1e-6)
    assert _part(r, "outline")["bbox"] == pytest.approx([-15, -10, 0, 15, 10, 0], abs=1e-6)
    assert not _part(r, "outline")["valid"]  # a sketch is faces, not a solid: the check says so
    stack = _part(r, "stack")["bbox"]
    assert stack == pytest.approx([-1, -1, -1, 1, 1, 3], abs=1e-6)
    only_markers = pool.check("import cadquery as cq\nshow_object(cq.Location((1, 2, 3)))\n", None)
    assert only_markers.stage == "build" and "only markers" in (only_markers.error or "")


# A real assembly of more than 64 parts: a perforated plate with 100 pins.
MANY = '''import cadquery as cq
assy = cq.Assembly()
assy.add(cq.Workplane().box(100, 100, 5).translate((0, 0, -2.5)), name="plate")
pin = cq.Workplane().cylinder(6, 1).translate((0, 0, 3))
for i in range(10):
    for j in range(10):
        assy.add(pin, name=f"pin_{i}_{j}", loc=cq.Location((-45 + 10 * i, -45 + 10 * j, 0)))
'''


def test_assembly_over_64_parts(pool: WorkerPool) -> None:
    r = pool.check(MANY, "def test_count(ctx):\n    assert len(ctx.parts) == 101\n")
    _built(r)
    assert len(r.parts) == 101 and r.ok, [(c.name, c.message) for c in r.checks if not c.passed]
    assert _part(r, "pin_9_9")["bbox"] == pytest.approx([44, 44, 0, 46, 46, 6], abs=1e-6)
    assert _part(r, "pin_9_9")["volume"] == pytest.approx(PI * 6, rel=1e-6)


def test_missing_sibling_module_or_data_file_says_what_to_do(pool: WorkerPool) -> None:
    # refused by design (the sandbox gets the program text only); the message says what to do instead
    for code in ("import cadquery as cq\nfrom base import make_base\n",
                 "import cadquery as cq\nprofile = cq.importers.importDXF('vslot-2020_1.dxf')\n"):
        r = pool.check(code, None)
        assert r.stage == "build" and r.error_line == 2, r.error
        assert "runs the program file alone" in (r.error or "") and "into the program" in (r.error or ""), r.error
