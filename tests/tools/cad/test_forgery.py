"""Programs that try to forge their own verdict, and model-written tests that try to forge the checks:
each now fails (or errors), while the SPADA-Bench reference still passes in the same warm pool.

The verdict comes only from the judge sandbox, which never runs candidate code: whatever the
candidate prints, writes, patches or forges in its own process never reaches it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperworks.tools.cad.sandbox import CheckOptions, SandboxResult, WorkerPool
from tests.tools.cad.conftest import sandbox_uids

ROOT = Path(__file__).resolve().parents[3]
TASK = ROOT / "evals" / "spada_bench" / "tasks" / "pin-plate-01"
REFERENCE = (TASK / "reference.py").read_text()
HIDDEN = (TASK / "hidden_tests.py").read_text()
HIDDEN_NAMES = ["test_parts_named", "test_plate_size", "test_plate_hole", "test_pin_shank", "test_pin_head",
                "test_pin_coaxial_with_hole", "test_fit"]
OPTIONS = CheckOptions(envelope=(100, 70, 40), renders=False, exports=False)
FORGED = {"stage": "done", "ok": True, "error": None, "tests": [{"name": n, "passed": True, "message": "passed"}
                                                                for n in HIDDEN_NAMES],
          "checks": [{"name": "valid_solids", "passed": True, "message": "ok"}]}
EXTRA = {k: v for k, v in FORGED.items() if k != "stage"}
# a wrong answer to the task: one plain box named "plate", no pin
WRONG = "import cadquery as cq\nresult = cq.Assembly().add(cq.Workplane().box(5, 5, 5), name='plate')\n"


def judge(pool: WorkerPool, code: str, tests: str = HIDDEN) -> SandboxResult:
    r = pool.check(code, tests, options=OPTIONS)
    assert not sandbox_uids(pool), "candidate processes were left running"
    return r


@pytest.mark.slow
def test_reference_passes_with_all_hidden_tests(pool: WorkerPool) -> None:
    r = judge(pool, REFERENCE)
    assert r.ok, r.error or [t for t in r.tests if not t.passed]
    assert [t.name for t in r.tests] == HIDDEN_NAMES and all(t.passed for t in r.tests)


def test_three_line_result_json_forger(pool: WorkerPool) -> None:
    forger = f"import json, os\nopen('result.json', 'w').write(json.dumps({FORGED!r}))\nos._exit(0)\n"
    r = judge(pool, forger)
    assert not r.ok and r.stage == "killed" and "before its geometry was written" in (r.error or "")
    assert r.tests == [] and r.checks == []


def test_forged_manifest_and_garbage_geometry(pool: WorkerPool) -> None:
    """A manifest that lists parts whose 'BREP' files are junk: the judge fails the candidate, not itself."""
    manifest = {"stage": "built", "error": None, "params": {}, "parts": [{"name": "plate", "file": "part_0.brep"},
                                                                        {"name": "pin", "file": "part_1.brep"}]}
    forger = ("import json, os\nfor i in range(2):\n"
              "    open(f'part_{i}.brep', 'w').write('DBRep_DrawableShape\\n' * 50)\n"
              f"open('manifest.json', 'w').write(json.dumps({manifest!r}))\n"
              f"open('result.json', 'w').write(json.dumps({FORGED!r}))\nos._exit(0)\n")
    r = judge(pool, forger)
    assert not r.ok and r.stage == "load" and "part 'plate': its BREP file" in (r.error or ""), r
    assert judge(pool, REFERENCE).ok  # the judge survived


def test_patching_runner_json_and_builtins_in_the_program(pool: WorkerPool) -> None:
    """The program patches our modules, json and builtins in its own process, then builds the wrong thing."""
    patcher = ("import builtins, json, sys\nimport checks, candidate, judge, guard\n"
               "checks.run_checks = lambda *a, **k: [{'name': 'valid_solids', 'passed': True, 'message': 'ok'}]\n"
               "judge.test_names = lambda code: []\n"
               "_dumps = json.dumps\n"
               f"json.dumps = lambda o, *a, **k: _dumps({{**o, **{EXTRA!r}}} if isinstance(o, dict) else o, *a, **k)\n"
               "builtins.AssertionError = type('Never', (Exception,), {})\n"
               "builtins.abs = lambda x: 0\n" + WRONG)
    r = judge(pool, patcher)
    assert not r.ok and r.stage == "done"
    failed = {t.name for t in r.tests if not t.passed}
    assert "test_parts_named" in failed and len(r.tests) == len(HIDDEN_NAMES)


def test_model_tests_cannot_forge_the_checks(pool: WorkerPool) -> None:
    """Model-written tests run in the judge's tests child: they can pass themselves, never the checks."""
    clash = ("import cadquery as cq\nresult = cq.Assembly().add(cq.Workplane().box(10, 10, 10), name='a')"
             ".add(cq.Workplane().box(10, 10, 10), name='b', loc=cq.Location((5, 0, 0)))\n")
    tests = ("import checks, judge, json, os\n"
             "checks.run_checks = lambda *a, **k: []\n"
             "def test_ok(ctx):\n    assert ctx is not None\n")
    r = judge(pool, clash, tests)
    assert not r.ok and [t.passed for t in r.tests] == [True]
    assert any(c.name == "interference:a/b" and not c.passed for c in r.checks)


def test_model_tests_forging_their_answer_pipe(pool: WorkerPool) -> None:
    """Tests that write a forged answer (with an extra test) on their own pipe and exit: an error."""
    answer = json.dumps({"error": None, "tests": [{"name": "test_a", "passed": True, "message": "passed"},
                                                  {"name": "test_hidden_extra", "passed": True, "message": ""}]})
    tests = f"import os\nos.write(3, {answer!r}.encode())\nos._exit(0)\ndef test_a(ctx):\n    assert False\n"
    r = judge(pool, "import cadquery as cq\nresult = cq.Workplane().box(1, 1, 1)\n", tests)
    assert not r.ok and r.stage == "tests"
    assert "reported 2 outcomes for 1 tests" in (r.error or "") and "test_hidden_extra" in (r.error or "")
    assert [(t.name, t.passed) for t in r.tests] == [("test_a", False)]


def test_model_tests_with_missing_outcomes(pool: WorkerPool) -> None:
    """A tests file whose run reports fewer tests than the file defines is an error, not a pass."""
    tests = ("import os, json\n"
             "def test_a(ctx):\n    assert ctx is not None\n"
             "def test_b(ctx):\n    assert False, 'b fails'\n"
             "del test_b\n")
    r = judge(pool, "import cadquery as cq\nresult = cq.Workplane().box(1, 1, 1)\n", tests)
    assert not r.ok
    assert {t.name: t.passed for t in r.tests} == {"test_a": True, "test_b": False}
    assert "test_b is not a function when run" in next(t.message for t in r.tests if t.name == "test_b")


def test_ctypes_writes_into_output_folders(pool: WorkerPool) -> None:
    """With libc the candidate tries to plant verdicts in every output folder it can name."""
    targets = [f"/out/{n}/{f}" for n in range(0, 40) for f in ("manifest.json", "result.json")]
    targets += ["/out/result.json", "/in/result.json", "/tmp/jobs/result.json", "/tmp/result.json"]
    planter = ("import ctypes, json\nlibc = ctypes.CDLL(None)\nok = 0\n"
               f"data = json.dumps({FORGED!r}).encode()\n"
               f"for n in range(0, 40):\n    libc.mkdir(f'/out/{{n}}'.encode(), 0o777)\n"
               f"for p in {targets!r}:\n"
               "    fd = libc.open(p.encode(), 0o101, 0o666)\n"
               "    if fd >= 0:\n        ok += 1\n        libc.write(fd, data, len(data))\n"
               "print('planted', ok)\n" + WRONG)
    r = judge(pool, planter)
    assert "planted 0" in r.stdout_tail, r.stdout_tail
    assert not r.ok and any(not t.passed for t in r.tests)
    assert judge(pool, REFERENCE).ok


def _manifest_forger(parts: list[dict[str, str]], files: dict[str, int]) -> str:
    manifest = {"stage": "built", "error": None, "params": {}, "parts": parts}
    writes = "".join(f"open({name!r}, 'wb').write(b'x' * {size})\n" for name, size in files.items())
    return ("import json, os\n" + writes
            + f"open('manifest.json', 'w').write(json.dumps({manifest!r}))\nos._exit(0)\n")


def test_malformed_or_oversized_geometry_fails(pool: WorkerPool) -> None:
    """Part files outside the naming scheme, repeated names, or more geometry than the quota: failures."""
    escape = _manifest_forger([{"name": "plate", "file": "../../etc/passwd"}], {})
    r = judge(pool, escape)
    assert not r.ok and "part list is malformed" in (r.error or "")
    twice = _manifest_forger([{"name": "p", "file": "part_0.brep"}, {"name": "p", "file": "part_1.brep"}],
                             {"part_0.brep": 10, "part_1.brep": 10})
    assert "part list is malformed" in (judge(pool, twice).error or "")
    mb = 1 << 20
    big = _manifest_forger([{"name": "a", "file": "part_0.brep"}, {"name": "b", "file": "part_1.brep"}],
                           {"part_0.brep": 20 * mb, "part_1.brep": 20 * mb})  # 40 MB > files_mb (32)
    r = judge(pool, big)
    assert not r.ok and r.error == "part 'b': no geometry file (missing, not a regular file, or over 32 MB)"
    assert judge(pool, REFERENCE).ok


@pytest.mark.slow
def test_hanging_tests_time_out_in_the_judge(pool: WorkerPool) -> None:
    from paperworks.tools.cad.sandbox import SandboxLimits

    tests = "def test_a(ctx):\n    assert ctx is not None\ndef test_hang(ctx):\n    while True:\n        pass\n"
    r = pool.check("import cadquery as cq\nresult = cq.Workplane().box(1, 1, 1)\n", tests,
                   limits=SandboxLimits(wall_s=3, cpu_s=2, memory_mb=1024))
    assert not r.ok and r.stage == "tests"
    assert "CPU time limit (2 s) exceeded" in (r.error or "") or "timed out after 3 s" in (r.error or "")
    assert [t.name for t in r.tests] == ["test_a", "test_hang"] and not any(t.passed for t in r.tests)
    assert {c.name for c in r.checks} >= {"valid_solids"}  # the checks child still answered
    assert not sandbox_uids(pool)


@pytest.mark.slow
def test_model_tests_cannot_take_over_the_checks_pipe(pool: WorkerPool) -> None:
    """The tests child tries to grab the checks child's answer pipe through /proc, kill it and answer in
    its place, or at least kill it: the two run under different uids, so it can do neither."""
    forged = json.dumps({"stage": "done", "error": None, "parts": [], "artifacts": {}, "test_names": ["test_x"],
                         "checks": [{"name": "valid_solids", "passed": True, "message": "ok", "details": {}}]})
    tests = ("import ctypes, os, time\nlibc = ctypes.CDLL(None)\n"
             "def test_x(ctx):\n    grabbed = 0\n    deadline = time.time() + 3\n"
             "    while not grabbed and time.time() < deadline:\n"
             "        for pid in os.listdir('/proc'):\n"
             "            if not pid.isdigit() or int(pid) == os.getpid():\n                continue\n"
             "            fd = libc.open(f'/proc/{pid}/fd/3'.encode(), 1)\n"
             "            if fd >= 0:\n"
             "                grabbed += 1\n                libc.kill(int(pid), 9)\n"
             f"                data = {forged!r}.encode()\n                libc.write(fd, data, len(data))\n"
             "    while time.time() < deadline:\n"
             "        for pid in os.listdir('/proc'):\n"
             "            if pid.isdigit() and int(pid) != os.getpid():\n                libc.kill(int(pid), 9)\n"
             "    assert grabbed == 0, f'grabbed {grabbed} pipes'\n")
    clash = ("import cadquery as cq\nresult = cq.Assembly().add(cq.Workplane().box(10, 10, 10), name='a')"
             ".add(cq.Workplane().box(10, 10, 10), name='b', loc=cq.Location((5, 0, 0)))\n"
             "for i in range(40):  # enough parts to keep the checks busy while the tests attack\n"
             "    result.add(cq.Workplane().sphere(3), name=f's{i}', loc=cq.Location((12 * i, 40, 0)))\n")
    r = judge(pool, clash, tests)
    assert not r.ok and [t.passed for t in r.tests] == [True], (r.error, r.tests)
    assert any(c.name == "interference:a/b" and not c.passed for c in r.checks)
