"""Builds one candidate program INSIDE the sandbox, in the forked, limited candidate process.

Compile → run (program shapes: see ``program.py``) → one BREP file per part (``part_<i>.brep``) and
``manifest.json`` (stage, error, part names and files, resolved parameters) in its private folder.
Nothing here is a verdict: a separate judge loads the geometry and decides. Standard library and
CadQuery only.
"""

from __future__ import annotations

import json
import linecache
import os
import sys
from typing import Any

MAX_PARTS = 256
"""Most parts one build may export (the worker copies ``part_0.brep`` … ``part_255.brep``)."""


def _compile(code: str, filename: str) -> Any:
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    return compile(code, filename, "exec")


def _coerce(default: Any, value: Any) -> Any:
    if isinstance(default, bool) and isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(default, int | float) and isinstance(value, str):
        try:
            return type(default)(value)
        except ValueError:
            return float(value)
    return value


def _params(ns: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any] | None:
    """``{**PARAMS, **overrides}`` when the program has ``build``; None when it has none."""
    if not callable(ns.get("build")):
        if overrides:
            raise KeyError("parameters were given but the program defines no PARAMS/build(params)")
        return None
    base = ns.get("PARAMS") or {}
    if not isinstance(base, dict):
        raise TypeError("PARAMS must be a dict of parameter name → value")
    unknown = sorted(set(overrides) - set(base))
    if unknown:
        raise KeyError(f"unknown parameter(s) {', '.join(unknown)}; PARAMS has: {', '.join(base) or 'none'}")
    return {**base, **{k: _coerce(base[k], v) for k, v in overrides.items()}}


class _Build:
    def __init__(self, job: dict[str, Any]) -> None:
        self.job = job
        self.res: dict[str, Any] = {"stage": "compile", "error": None, "error_line": None, "parts": [],
                                    "params": {}, "source": None}

    def stage(self, name: str) -> None:
        self.res["stage"] = name
        with open("stage.txt", "w") as fh:
            fh.write(name)

    def fail(self, exc: BaseException) -> dict[str, Any]:
        import guard

        self.res["error"], self.res["error_line"] = guard.error_line(exc, "program.py")
        return self.res

    def run(self, home: str) -> dict[str, Any]:
        import program

        try:
            code = _compile(self.job["code"], "program.py")
        except (SyntaxError, ValueError) as exc:
            return self.fail(exc)
        self.stage("build")
        shown: list[tuple[Any, str | None]] = []
        exported: list[Any] = []

        def show_object(obj: Any, name: str | None = None, options: Any = None, **_: Any) -> None:
            shown.append((obj, name))

        import cadquery as cq

        write_brep = cq.Shape.exportBrep  # before the program's export calls are redirected
        program.neutralise_exports(os.path.join(home, "exports"), exported)
        program.install_viewers(show_object)
        sys.argv = ["program.py"]  # a script's argparse sees no arguments (not the worker's)
        ns: dict[str, Any] = {"__name__": program.MainName("__main__"), "__file__": "program.py",
                              "show_object": show_object, "show": program.viewer_calls(show_object),
                              "debug": lambda *a, **k: None, "log": print}
        try:
            try:
                exec(code, ns)
            except SystemExit as stop:  # sys.exit() / sys.exit(0) at the end of a script is a normal end
                if stop.code not in (None, 0):
                    raise
            params = _params(ns, dict(self.job.get("params") or {}))
            if params is not None:
                self.res["params"] = json.loads(json.dumps(params, default=str))
            obj, self.res["source"] = program.resolve(ns, shown, exported, params,
                                                      program.assignment_order(self.job["code"]))
            parts = program.parts_of(obj)
            if not parts:
                raise ValueError("the assembly has no parts")
            if len(parts) > MAX_PARTS:
                raise ValueError(f"{len(parts)} parts; at most {MAX_PARTS} are checked")
        except BaseException as exc:  # noqa: BLE001 - the program's own failure
            return self.fail(exc)
        self.stage("export")
        for i, (name, shape) in enumerate(parts.items()):
            file = f"part_{i}.brep"
            try:
                write_brep(shape, os.path.join(home, file))
            except BaseException as exc:  # noqa: BLE001
                return self.fail(exc)
            self.res["parts"].append({"name": str(name), "file": file})
        self.stage("built")
        return self.res


def run(job: dict[str, Any], home: str) -> None:
    """Entry point in the candidate process (cwd = ``home``): guard, build, write manifest.json."""
    import tempfile

    import guard

    tempfile.tempdir = home
    sys.dont_write_bytecode = True
    guard.install_guard(home)
    runner = _Build(job)
    try:
        res = runner.run(home)
    except BaseException as exc:  # noqa: BLE001
        res = runner.fail(exc)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # output over the file size limit: drop the rest
            pass
    data = json.dumps(res, default=str)
    with open("manifest.json.tmp", "w") as fh:
        fh.write(data)
    os.replace("manifest.json.tmp", "manifest.json")
