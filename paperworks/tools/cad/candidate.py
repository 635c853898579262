"""Runs one candidate program INSIDE the sandbox, in the forked, limited candidate process.

Compile → build (``PARAMS`` + ``build(params)``, or ``result``, or ``show_object`` calls) → tests
(``test_*(ctx)``) → checks → exports (STEP, STL, SVG renders). Writes ``result.json`` (plain JSON)
and the current stage to ``stage.txt`` in its private folder. Standard library and CadQuery only.
"""

from __future__ import annotations

import json
import linecache
import os
import sys
import traceback
from typing import Any

BLOCKED = {"os.system": "spawning a shell", "os.exec": "running programs", "os.posix_spawn": "running programs",
           "os.spawn": "running programs", "subprocess.Popen": "spawning processes", "os.fork": "forking",
           "os.forkpty": "forking", "socket.connect": "network access", "socket.bind": "network access",
           "socket.sendto": "network access", "os.kill": "signalling processes",
           "os.killpg": "signalling processes", "signal.pthread_kill": "signalling processes"}
PATH_EVENTS = {"os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.symlink", "os.link", "os.chmod",
               "os.chown", "os.truncate", "os.utime", "shutil.rmtree"}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _install_guard(home: str) -> None:
    """Audit hook: a clear PermissionError for what the sandbox forbids (the OS-level sandbox is what
    actually contains it; this only makes the error readable)."""
    root = os.path.realpath(home)

    def inside(path: Any) -> bool:
        if isinstance(path, int):
            return True
        p = os.path.realpath(os.fsdecode(path))
        return p == root or p.startswith(root + os.sep) or p == "/dev/null"

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in BLOCKED:
            raise PermissionError(f"sandbox: {BLOCKED[event]} is not allowed ({event})")
        if event == "open" and args and args[0] is not None:
            mode, flags = args[1], args[2] if len(args) > 2 else 0
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (flags or 0) & WRITE_FLAGS
            if writes and not inside(args[0]):
                raise PermissionError(f"sandbox: writing outside the working folder is not allowed ({args[0]})")
        elif event in PATH_EVENTS and args and not inside(args[0]):
            raise PermissionError(f"sandbox: changing files outside the working folder is not allowed ({args[0]})")

    sys.addaudithook(hook)


def _one_line(exc: BaseException, filename: str) -> tuple[str, int | None]:
    """'line N: Type: message' with the innermost line of ``filename`` in the traceback."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            line = frame.lineno
    if isinstance(exc, SyntaxError) and exc.filename == filename:
        line = exc.lineno
    msg = (exc.msg if isinstance(exc, SyntaxError) else str(exc)).strip().splitlines()
    text = f"{type(exc).__name__}: {msg[0][:300]}" if msg else type(exc).__name__
    if isinstance(exc, MemoryError):
        text += " (memory limit reached)"
    prefix = "" if filename == "program.py" else f"{filename} "
    return (f"{prefix}line {line}: {text}" if line else text), line


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


def to_parts(obj: Any, prefix: str = "") -> dict[str, Any]:
    """Named, located cq.Shapes from an Assembly (its children), a Workplane or a Shape ("part")."""
    import cadquery as cq

    if isinstance(obj, cq.Assembly):
        parts: dict[str, Any] = {}

        def walk(node: Any, loc: Any, path: str) -> None:
            here = loc * node.loc
            name = f"{path}/{node.name}" if path else node.name
            if node.obj is not None:
                shape = to_parts(node.obj)["part"].moved(here)
                parts[name if node is not obj else (obj.name or "part")] = shape
            for child in node.children:
                walk(child, here, name if node is not obj else "")

        walk(obj, cq.Location(), "")
        if prefix:
            parts = {f"{prefix}/{k}": v for k, v in parts.items()}
        short = {k.rsplit("/", 1)[-1]: v for k, v in parts.items()}
        return short if len(short) == len(parts) else parts
    if isinstance(obj, cq.Workplane):
        shapes = [v for v in obj.vals() if isinstance(v, cq.Shape)]
        if not shapes:
            raise TypeError("the Workplane holds no shapes")
        return {prefix or "part": shapes[0] if len(shapes) == 1 else cq.Compound.makeCompound(shapes)}
    if isinstance(obj, cq.Shape):
        return {prefix or "part": obj}
    raise TypeError(f"got {type(obj).__name__}; expected cq.Assembly, cq.Workplane or cq.Shape")


def _is_assembly(obj: Any) -> bool:
    import cadquery as cq

    return isinstance(obj, cq.Assembly)


def _assemble(parts: dict[str, Any]) -> Any:
    """An Assembly of the (already located) parts, for ``ctx.assembly`` when the program made none."""
    import cadquery as cq

    assy = cq.Assembly(name="assembly")
    for name, shape in parts.items():
        assy.add(shape, name=name)
    return assy


class _Run:
    def __init__(self, job: dict[str, Any]) -> None:
        self.job = job
        self.res: dict[str, Any] = {"stage": "compile", "error": None, "error_line": None, "tests": [],
                                    "checks": [], "parts": [], "params": {}, "artifacts": {}}

    def stage(self, name: str) -> None:
        self.res["stage"] = name
        with open("stage.txt", "w") as fh:
            fh.write(name)

    def fail(self, exc: BaseException, filename: str = "program.py") -> dict[str, Any]:
        self.res["error"], line = _one_line(exc, filename)
        self.res["error_line"] = line if filename == "program.py" else None
        return self.res

    def build(self, ns: dict[str, Any], shown: list[tuple[Any, str | None]]) -> Any:
        overrides = dict(self.job.get("params") or {})
        if callable(ns.get("build")):
            base = ns.get("PARAMS") or {}
            if not isinstance(base, dict):
                raise TypeError("PARAMS must be a dict of parameter name → value")
            unknown = sorted(set(overrides) - set(base))
            if unknown:
                raise KeyError(f"unknown parameter(s) {', '.join(unknown)}; PARAMS has: {', '.join(base) or 'none'}")
            params = {**base, **{k: _coerce(base[k], v) for k, v in overrides.items()}}
            self.res["params"] = json.loads(json.dumps(params, default=str))
            return ns["build"](dict(params))
        if overrides:
            raise KeyError("parameters were given but the program defines no PARAMS/build(params)")
        if "result" in ns:
            return ns["result"]
        if shown:
            return shown
        raise NameError("the program defines no build(params), no `result` and calls no show_object(...)")

    def run(self) -> dict[str, Any]:
        import checks
        import exports

        job = self.job
        try:
            code = _compile(job["code"], "program.py")
        except (SyntaxError, ValueError) as exc:
            return self.fail(exc)
        self.stage("build")
        shown: list[tuple[Any, str | None]] = []

        def show_object(obj: Any, name: str | None = None, options: Any = None, **_: Any) -> None:
            shown.append((obj, name))

        ns: dict[str, Any] = {"__name__": "__cq_main__", "__file__": "program.py", "show_object": show_object,
                              "debug": lambda *a, **k: None, "log": print}
        try:
            exec(code, ns)
            obj = self.build(ns, shown)
            if isinstance(obj, list):
                parts: dict[str, Any] = {}
                for i, (o, name) in enumerate(obj):
                    parts.update(to_parts(o, name or f"part{i + 1}"))
            else:
                parts = to_parts(obj)
            if not parts:
                raise ValueError("the assembly has no parts")
        except BaseException as exc:  # noqa: BLE001 - the program's own failure
            return self.fail(exc)
        self.stage("tests")
        if job.get("tests"):
            try:
                tns: dict[str, Any] = {"__name__": "__cq_tests__", "__file__": "tests.py"}
                exec(_compile(job["tests"], "tests.py"), tns)
            except BaseException as exc:  # noqa: BLE001
                return self.fail(exc, "tests.py")
            ctx = checks.Ctx(self.res["params"], parts, obj if _is_assembly(obj) else _assemble(parts))
            for name, fn in list(tns.items()):
                if name.startswith("test_") and callable(fn):
                    self.res["tests"].append(self.one_test(name, fn, ctx))
        self.stage("checks")
        opts = job.get("options") or {}
        try:
            self.res["checks"] = checks.run_checks(parts, opts)
            self.res["parts"] = checks.mass_properties(parts, opts.get("density"))
        except BaseException as exc:  # noqa: BLE001
            return self.fail(exc, "checks")
        for key, fn in (("exports", exports.export_step_stl), ("renders", exports.write_svgs)):
            if opts.get(key):
                try:
                    self.res["artifacts"].update(fn(parts, __import__("pathlib").Path(".")))
                except BaseException as exc:  # noqa: BLE001
                    self.res["checks"].append({"name": key, "passed": False, "details": {},
                                               "message": _one_line(exc, "?")[0]})
        self.stage("done")
        return self.res

    @staticmethod
    def one_test(name: str, fn: Any, ctx: Any) -> dict[str, Any]:
        try:
            fn(ctx)
            return {"name": name, "passed": True, "message": "passed"}
        except AssertionError as exc:
            msg = str(exc).strip()
            if not msg:
                frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "tests.py"]
                msg = f"assertion failed: {frames[-1].line} (tests.py line {frames[-1].lineno})" if frames else \
                    "assertion failed"
            return {"name": name, "passed": False, "message": msg.splitlines()[0][:500]}
        except BaseException as exc:  # noqa: BLE001
            return {"name": name, "passed": False, "message": _one_line(exc, "tests.py")[0]}


def run(job: dict[str, Any], home: str) -> None:
    """Entry point in the candidate process (cwd = ``home``): guard, run, write result.json."""
    import tempfile

    tempfile.tempdir = home
    sys.dont_write_bytecode = True
    _install_guard(home)
    runner = _Run(job)
    try:
        res = runner.run()
    except BaseException as exc:  # noqa: BLE001
        res = runner.fail(exc)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # output over the file size limit: drop the rest
            pass
    data = json.dumps(res, default=str)
    with open("result.json.tmp", "w") as fh:
        fh.write(data)
    os.replace("result.json.tmp", "result.json")
