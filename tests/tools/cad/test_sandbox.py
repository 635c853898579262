"""check_program / WorkerPool on ordinary programs: conventions, errors, tests, checks, artifacts."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperworks.tools.cad.sandbox import CheckOptions, WorkerPool, check_program, sandbox_info

PIN_IN_PLATE = '''
import cadquery as cq

PARAMS = {"w": 20.0, "t": 5.0, "hole_d": 5.4, "pin_d": 5.0, "pin_z": 3.0}


def build(p):
    plate = cq.Workplane().box(p["w"], p["w"], p["t"]).faces(">Z").workplane().hole(p["hole_d"])
    pin = cq.Workplane().cylinder(12, p["pin_d"] / 2)
    head = cq.Workplane().workplane(offset=p["t"] / 2 + 1).cylinder(2, 4)
    a = cq.Assembly(name="pinned")
    a.add(plate, name="plate")
    a.add(pin.union(head), name="pin", loc=cq.Location((0, 0, p["pin_z"])))
    return a
'''

TESTS = '''
def test_width(ctx):
    b = ctx.bbox("plate")
    assert abs((b[3] - b[0]) - ctx.params["w"]) < 1e-6, f"plate width {b[3] - b[0]} != {ctx.params['w']}"


def test_fit(ctx):
    ctx.fit("pin", "plate", min_mm=0.1, max_mm=0.6)


def test_pin_valid(ctx):
    assert ctx.is_valid("pin")
    assert ctx.volume("pin") > 0
'''


@pytest.mark.slow
def test_pass_and_parts(pool: WorkerPool) -> None:
    r = pool.check(PIN_IN_PLATE, TESTS, params={"pin_z": 0.0})
    assert r.stage == "done", r.error
    assert [t.passed for t in r.tests] == [True, True, True], r.tests
    assert r.params["pin_z"] == 0.0 and r.params["w"] == 20.0
    assert {p["name"] for p in r.parts} == {"plate", "pin"}
    names = {c.name: c for c in r.checks}
    assert names["valid_solids"].passed and names["interference"].passed
    assert names["contact"].passed, names  # the head rests on the plate
    assert r.ok


def test_compile_error_has_line(pool: WorkerPool) -> None:
    r = pool.check("import cadquery as cq\n\nresult = cq.Workplane(.box(1, 1, 1)\n")
    assert not r.ok and r.stage == "compile"
    assert r.error_line == 3 and r.error and r.error.startswith("line 3: SyntaxError")


def test_runtime_error_has_line(pool: WorkerPool) -> None:
    r = pool.check("import cadquery as cq\n\ndef build(p):\n    return cq.Workplane().box(x, 1, 1)\n\nPARAMS = {}\n")
    assert r.stage == "build" and r.error_line == 4
    assert r.error == "line 4: NameError: name 'x' is not defined"


def test_failing_test_message(pool: WorkerPool) -> None:
    tests = "def test_big(ctx):\n    assert ctx.volume('plate') > 1e9, 'plate too small'\n" \
            "def test_bare(ctx):\n    assert ctx.params['w'] == 3\n" \
            "def test_fit_tight(ctx):\n    ctx.fit('pin', 'plate', max_mm=0.1)\n"
    r = pool.check(PIN_IN_PLATE, tests, params={"pin_z": 0})
    assert not r.ok and r.stage == "done"
    msgs = {t.name: t.message for t in r.tests}
    assert msgs["test_big"] == "plate too small"
    assert "assert ctx.params['w'] == 3" in msgs["test_bare"] and "tests.py line 4" in msgs["test_bare"]
    assert "diametral clearance 0.4" in msgs["test_fit_tight"]


def test_interference_and_floating(pool: WorkerPool) -> None:
    code = ("import cadquery as cq\na = cq.Assembly()\na.add(cq.Workplane().box(10, 10, 10), name='a')\n"
            "a.add(cq.Workplane().box(10, 10, 10), name='b', loc=cq.Location((5, 0, 0)))\n"
            "a.add(cq.Workplane().sphere(2), name='c', loc=cq.Location((50, 0, 0)))\nresult = a\n")
    r = pool.check(code)
    checks = {c.name: c for c in r.checks}
    assert not r.ok
    assert abs(checks["interference:a/b"].details["volume"] - 500) < 1e-3
    assert not checks["floating:c"].passed and "floating:a" not in checks


def test_override_changes_geometry_and_unknown_param(pool: WorkerPool) -> None:
    small = pool.check(PIN_IN_PLATE, params={"w": 20})
    big = pool.check(PIN_IN_PLATE, params={"w": 40})
    vol = [{p["name"]: p["volume"] for p in r.parts}["plate"] for r in (small, big)]
    assert vol[1] > 3.5 * vol[0]
    assert big.params["w"] == 40.0 and isinstance(big.params["w"], float)
    bad = pool.check(PIN_IN_PLATE, params={"width": 3})
    assert bad.stage == "build" and "unknown parameter(s) width" in (bad.error or "")


def test_show_object_and_result_conventions(pool: WorkerPool) -> None:
    r = pool.check("import cadquery as cq\nshow_object(cq.Workplane().box(1, 1, 1), name='cube')\n"
                   "show_object(cq.Workplane().sphere(1).translate((0, 0, 1.5)))\n")
    assert [p["name"] for p in r.parts] == ["cube", "part2"] and r.ok, r
    r = pool.check("import cadquery as cq\nresult = cq.Workplane().box(2, 3, 4).val()\n")
    assert r.ok and r.parts[0]["name"] == "part" and abs(r.parts[0]["volume"] - 24) < 1e-6
    r = pool.check("import cadquery as cq\nx = 1\n")
    assert r.stage == "build" and r.error == (
        "NameError: the program made no shape: looked for build(params), `result`, show_object(...) calls, "
        "`final_result`, a module-level cq.Assembly, cq.Workplane or cq.Shape variable, an exported object")


def test_envelope_and_clearance(pool: WorkerPool) -> None:
    opts = CheckOptions(envelope=(10, 10, 10), clearances=[("plate", "pin", 0.0, 0.0)], density=7.85)
    r = pool.check(PIN_IN_PLATE, options=opts, params={"pin_z": 0})
    checks = {c.name: c for c in r.checks}
    assert not checks["envelope"].passed and "exceeds" in checks["envelope"].message
    assert checks["clearance:plate/pin"].passed
    plate = next(p for p in r.parts if p["name"] == "plate")
    assert abs(plate["mass"] - plate["volume"] * 7.85e-3) < 1e-9


def test_artifacts(pool: WorkerPool, tmp_path: Path) -> None:
    r = pool.check(PIN_IN_PLATE, params={"pin_z": 0}, out_dir=tmp_path / "out")
    assert r.ok
    assert set(r.artifacts) == {"step", "stl", "render_iso", "render_front", "render_top", "render_side"}
    for key, path in r.artifacts.items():
        data = Path(path).read_bytes()
        assert Path(path).parent == tmp_path / "out"
        if key.startswith("render"):
            assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"ISO-10303-21" in Path(r.artifacts["step"]).read_bytes()[:200]


@pytest.mark.slow
def test_check_program_fresh_process(tmp_path: Path) -> None:
    r = check_program("import cadquery as cq\nresult = cq.Workplane().box(1, 1, 1)\n", out_dir=tmp_path)
    assert r.ok and "render_iso" in r.artifacts


def test_sandbox_info() -> None:
    info = sandbox_info()
    assert info["mode"] in ("bwrap", "unshare", "none")
    assert "remaining" in info and info["clean_env"]


def test_candidate_can_import_fresh_modules(pool: WorkerPool) -> None:
    """Modules the warm worker never imported load from the read-only Python inside the sandbox."""
    r = pool.check("import statistics, fractions\nimport cadquery as cq\n"
                   "result = cq.Workplane().box(statistics.mean([1, 3]), 1, 1)\n")
    assert r.ok, r.error


@pytest.mark.slow
def test_fallback_without_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without bubblewrap (forced here) the sandbox still runs programs, limits time, and says what remains."""
    from paperworks.tools.cad.sandbox import SandboxLimits

    monkeypatch.setenv("PAPERWORKS_CAD_ISOLATION", "unshare")
    info = sandbox_info()
    assert info["mode"] == "unshare" and any("no filesystem isolation" in g for g in info["remaining"])
    with WorkerPool(1, SandboxLimits(wall_s=3, cpu_s=3)) as p:
        assert p.check("import cadquery as cq\nresult = cq.Workplane().box(1, 1, 1)\n").ok
        assert p.check("while True:\n    pass\n").stage in ("timeout", "killed")
