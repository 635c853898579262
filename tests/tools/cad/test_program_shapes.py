"""Programs as people and models write them: the accepted shapes, export calls redirected into the
sandbox, the disjoint-solids check and error messages that keep multi-line exceptions."""

from __future__ import annotations

import pytest

from paperworks.tools.cad.sandbox import WorkerPool

# the CADTestBench shape: a function, `final_result = create_cad()`, an export line to a path of its own
CADTESTBENCH = '''import cadquery as cq


def create_cad():
    base = cq.Workplane("XY").box(40, 20, 5)
    return base.faces(">Z").workplane().hole(6)


final_result = create_cad()
top = final_result.faces(">Z")
cq.exporters.export(final_result, "/home/user/outputs/part.step")
'''
MAIN_GUARD = '''import cadquery as cq


def make():
    return cq.Workplane().cylinder(10, 3)


if __name__ == "__main__":
    bracket = make()
    bracket.export("bracket.stl")
'''
ASSEMBLY_VARIABLE = '''import cadquery as cq

plate = cq.Workplane().box(20, 20, 2)
post = cq.Workplane().cylinder(10, 2).translate((0, 0, 6))
assy = cq.Assembly()
assy.add(plate, name="plate")
assy.add(post, name="post")
assy.save("/tmp/assy.step")
assy.export("../../assy.step")
'''
EXPORT_ONLY = '''import cadquery as cq
cq.Workplane().sphere(4).val().exportStep("/root/sphere.step")
'''
BUILD_NO_ARGS = '''import cadquery as cq


def build():
    return cq.Workplane().box(3, 3, 3)
'''


@pytest.mark.slow
@pytest.mark.parametrize("code, names, source", [
    (CADTESTBENCH, ["part"], "`final_result`"),
    (MAIN_GUARD, ["part"], "variable `bracket`"),
    (ASSEMBLY_VARIABLE, ["plate", "post"], "variable `assy`"),
    (EXPORT_ONLY, ["part"], "exported object"),
    (BUILD_NO_ARGS, ["part"], "build(params)"),
])
def test_accepted_program_shapes(pool: WorkerPool, code: str, names: list[str], source: str) -> None:
    r = pool.check(code, "def test_any(ctx):\n    assert ctx.parts\n")
    assert r.ok, (r.stage, r.error)
    assert [p["name"] for p in r.parts] == names and r.source == source
    assert [t.passed for t in r.tests] == [True]


def test_no_shape_says_what_was_looked_for(pool: WorkerPool) -> None:
    r = pool.check("import cadquery as cq\nsize = 3\nprofile = 'square'\n")
    assert r.stage == "build" and not r.ok
    for looked in ("build(params)", "`result`", "show_object(...) calls", "`final_result`",
                   "module-level cq.Assembly, cq.Workplane or cq.Shape variable", "an exported object"):
        assert looked in (r.error or ""), looked


def test_exports_write_only_inside_the_sandbox(pool: WorkerPool) -> None:
    """An export to a path outside would have been refused; redirected, it succeeds and writes nothing here."""
    code = ("import cadquery as cq, os\nw = cq.Workplane().box(2, 2, 2)\n"
            "cq.exporters.export(w, '/work/exported.step')\nw.val().exportStl('/etc/x.stl')\n"
            "print(sorted(os.listdir('exports')))\nresult = w\n")
    r = pool.check(code)
    assert r.ok, r.error
    assert "['exported.step', 'x.stl']" in r.stdout_tail


def test_disjoint_solids_in_one_part_fail(pool: WorkerPool) -> None:
    code = ("import cadquery as cq\n"
            "legs = cq.Workplane().pushPoints([(0, 0), (30, 0)]).box(5, 5, 5)\n"
            "touching = cq.Workplane().pushPoints([(0, 0), (5, 0)]).box(5, 5, 5)\n"
            "result = cq.Assembly().add(legs, name='legs').add(touching, name='pair', loc=cq.Location((0, 5, 0)))\n")
    r = pool.check(code)
    checks = {c.name: c for c in r.checks}
    assert not r.ok and not checks["disjoint:legs"].passed
    assert checks["disjoint:legs"].message.startswith("legs is made of 2 disjoint solids")
    assert "disjoint:pair" not in checks  # its two solids touch: one body
    r = pool.check("import cadquery as cq\nresult = cq.Workplane().box(5, 5, 5)\n")
    assert r.ok and {c.name for c in r.checks} >= {"one_body"}


def test_multiline_exception_keeps_its_message(pool: WorkerPool) -> None:
    code = ("import cadquery as cq\n\n"
            "raise ValueError('Cannot find a solid on the stack or in the parent chain\\n'\n"
            "                 '  the workplane holds 0 objects\\n\\n'\n"
            "                 'hint: call extrude() before fillet()')\n")
    r = pool.check(code)
    assert r.error == ("line 3: ValueError: Cannot find a solid on the stack or in the parent chain | the workplane "
                       "holds 0 objects | hint: call extrude() before fillet()")
    long = "raise RuntimeError('\\n'.join(f'line {i}: ' + 'x' * 40 for i in range(100)))\n"
    r = pool.check(long)
    assert r.error is not None and 300 <= len(r.error) <= 420 and "line 5: " in r.error
