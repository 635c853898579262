"""The judge's two children (run INSIDE the judge sandbox, which never runs candidate programs).

Both load the candidate's geometry (one BREP per part, already size-checked by the host) from a
read-only folder. ``checks_child`` runs our own code only: the geometry and physics checks, mass
properties, STEP/STL exports and renders. ``tests_child`` runs the tests file (hidden tests, or the
model's own tests, which are model code: guarded and limited like a candidate) and reports one
outcome per test name that ``test_names`` enumerated from the file beforehand. Each writes its
JSON answer on its own pipe to the judge zygote; neither can reach the other's pipe (own uid, fds
closed). Standard library and CadQuery only.
"""

from __future__ import annotations

import ast
import inspect
import json
import linecache
import os
import traceback
from typing import Any


def test_names(code: str) -> list[str]:
    """Names of the module-level ``def test_*`` (and ``async def test_*``, which then fail) functions of a
    tests file, in file order of their first definition; a name defined twice counts once (the last
    definition is what runs, as in Python and pytest)."""
    tree = ast.parse(code, filename="tests.py")
    names = [n.name for n in tree.body
             if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("test_")]
    return list(dict.fromkeys(names))


CHECKING_HELPERS = frozenset({"fit"})
"""Methods of the tests' ``ctx`` (:class:`checks.Ctx`) that fail the test themselves when their check fails."""


def _checks(node: ast.AST) -> bool:
    """Whether this node can fail a test: an assert (but of a true constant), a raise, or ``<ctx>.fit(...)``."""
    if isinstance(node, ast.Assert):  # ``assert True`` can never fail; ``assert False`` always does
        return not (isinstance(node.test, ast.Constant) and bool(node.test.value))
    if isinstance(node, ast.Raise):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CHECKING_HELPERS


def vacuous_tests(code: str) -> list[str]:
    """The ``test_*`` functions (of :func:`test_names`) that can check nothing: neither they nor a module-level
    function they call by name (transitively) holds an ``assert`` (of anything but a true constant), a ``raise``
    or a call of a checking helper of ``ctx`` (``ctx.fit``, which raises ``AssertionError`` itself). Such a
    test passes whatever the geometry, so it counts as failed. Read from the source, in the checks child
    (our code), never from the tests child's report."""
    tree = ast.parse(code, filename="tests.py")
    defs: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            defs[node.name] = node  # the last definition is the one that runs
    checks: dict[str, bool] = {}
    calls: dict[str, set[str]] = {}
    for name, fn in defs.items():
        inner = list(ast.walk(fn))
        checks[name] = any(_checks(n) for n in inner)
        calls[name] = {n.func.id for n in inner if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                       and n.func.id in defs}
    changed = True
    while changed:  # a function checks something if one it calls does
        changed = False
        for name in defs:
            if not checks[name] and any(checks[c] for c in calls[name]):
                checks[name] = changed = True
    return [n for n in test_names(code) if not checks.get(n, False)]


def load_parts(folder: str, manifest: dict[str, Any]) -> dict[str, Any]:
    """name → cq.Shape from the BREP files listed in the manifest; ValueError naming a bad part."""
    import cadquery as cq

    parts: dict[str, Any] = {}
    for entry in manifest["parts"]:
        path = os.path.join(folder, entry["file"])
        try:
            shape = cq.Shape.importBrep(path)
        except Exception as exc:  # OCCT refuses it: the candidate's geometry is unusable
            raise ValueError(f"part {entry['name']!r}: its BREP file does not load ({type(exc).__name__})") from None
        if shape is None or shape.wrapped.IsNull():
            raise ValueError(f"part {entry['name']!r}: its BREP file holds no shape")
        parts[entry["name"]] = shape
    return parts


def _send(fd: int, data: dict[str, Any]) -> None:
    raw = json.dumps(data, default=str).encode()
    view = memoryview(raw)
    while view:
        view = view[os.write(fd, view):]


def checks_child(job: dict[str, Any], home: str, fd: int) -> None:
    """Load the geometry, run the checks and exports, answer on ``fd``."""
    from pathlib import Path

    import checks
    import exports
    import guard

    opts = job.get("options") or {}
    res: dict[str, Any] = {"stage": "load", "error": None, "checks": [], "parts": [], "artifacts": {}}
    if job.get("tests"):
        try:
            res["test_names"] = test_names(job["tests"])
            res["vacuous_tests"] = vacuous_tests(job["tests"])
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            res["tests_error"] = guard.error_line(exc, "tests.py")[0]
    try:
        parts = load_parts(job["geometry"], job["manifest"])
        res["stage"] = "checks"
        res["checks"] = checks.run_checks(parts, opts)
        res["parts"] = checks.mass_properties(parts, opts.get("density"))
    except Exception as exc:  # noqa: BLE001 - a broken geometry fails the candidate, not the judge
        res["error"] = f"{type(exc).__name__}: {exc}"[:400] if res["stage"] == "checks" else str(exc)[:400]
        _send(fd, res)
        return
    for key, fn in (("exports", exports.export_step_stl), ("renders", exports.write_svgs)):
        if opts.get(key):
            try:
                res["artifacts"].update(fn(parts, Path(home)))
            except Exception as exc:  # noqa: BLE001
                res["checks"].append({"name": key, "passed": False, "details": {},
                                      "message": f"{type(exc).__name__}: {exc}"[:400]})
    pairs = [(os.path.join(home, f), os.path.join(home, f[:-4] + ".png"))
             for k, f in res["artifacts"].items() if k.startswith("render")]
    try:
        exports.svgs_to_pngs(pairs, timeout_s=30)
    except Exception:  # noqa: BLE001 - renders are for people; a missing PNG is not a failure
        pass
    res["artifacts"] = {k: (f[:-4] + ".png" if f.endswith(".svg") else f) for k, f in res["artifacts"].items()}
    res["stage"] = "done"
    _send(fd, res)


def _one_test(name: str, fn: Any, ctx: Any) -> dict[str, Any]:
    import guard

    try:
        out = fn(ctx)
        if inspect.isawaitable(out) or inspect.isgenerator(out) or inspect.isasyncgen(out):
            close = getattr(out, "close", None)
            if callable(close):
                close()  # never started: nothing of its body ran
            kind = "a generator" if inspect.isgenerator(out) or inspect.isasyncgen(out) else "async"
            return {"name": name, "passed": False,
                    "message": f"{name} is {kind}: calling it runs none of its body; write a plain def"}
        return {"name": name, "passed": True, "message": "passed"}
    except AssertionError as exc:
        msg = guard.message_text(str(exc), 500)
        if not msg:
            frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "tests.py"]
            msg = f"assertion failed: {frames[-1].line} (tests.py line {frames[-1].lineno})" if frames else \
                "assertion failed"
        return {"name": name, "passed": False, "message": msg}
    except BaseException as exc:  # noqa: BLE001
        return {"name": name, "passed": False, "message": guard.error_line(exc, "tests.py")[0]}


def tests_child(job: dict[str, Any], home: str, fd: int) -> None:
    """Load the geometry, run the tests file's ``test_*`` functions, answer on ``fd``."""
    import tempfile

    import checks
    import guard

    tempfile.tempdir = home
    res: dict[str, Any] = {"error": None, "tests": []}
    try:
        parts = load_parts(job["geometry"], job["manifest"])
    except Exception as exc:  # noqa: BLE001
        res["error"] = str(exc)[:400]
        _send(fd, res)
        return
    code = job["tests"]
    guard.install_guard(home)
    linecache.cache["tests.py"] = (len(code), None, code.splitlines(True), "tests.py")
    ns: dict[str, Any] = {"__name__": "__cq_tests__", "__file__": "tests.py"}
    try:
        exec(compile(code, "tests.py", "exec"), ns)
    except BaseException as exc:  # noqa: BLE001
        res["error"] = guard.error_line(exc, "tests.py")[0]
        _send(fd, res)
        return
    assembly = _assemble(parts)
    ctx = checks.Ctx(dict(job["manifest"].get("params") or {}), parts, assembly)
    for name in test_names(code):
        fn = ns.get(name)
        if not callable(fn):
            res["tests"].append({"name": name, "passed": False, "message": f"{name} is not a function when run"})
            continue
        res["tests"].append(_one_test(name, fn, ctx))
    _send(fd, res)


def _assemble(parts: dict[str, Any]) -> Any:
    """An Assembly of the (located) parts, for ``ctx.assembly``."""
    import cadquery as cq

    assy = cq.Assembly(name="assembly")
    for name, shape in parts.items():
        assy.add(shape, name=name)
    return assy
