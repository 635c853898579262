"""Which shapes a CadQuery program made (runs INSIDE the candidate process; stdlib + CadQuery).

Accepted program shapes, in this order (the first that applies wins):

1. ``build(params)`` (with ``PARAMS``, or ``{}`` without): called with ``{**PARAMS, **overrides}``;
   a ``build()`` taking no argument is called without one.
2. a module-level ``result``;
3. ``show_object(obj, name=None, ...)`` calls (each call adds a part);
4. a module-level ``final_result``;
5. any other module-level ``cq.Assembly`` (the last one defined), else the last module-level
   ``cq.Workplane``/``cq.Shape`` variable;
6. the last object passed to an export call.

Export calls (``cq.exporters.export``, ``.export``/``.save``/``.exportStep``/``.exportStl``/...) never
write where the program says: they write the file's base name into ``exports/`` of the private
folder, and remember the object. The program runs with a ``__name__`` equal to both ``"__main__"``
and ``"__cq_main__"``, so script guards of either kind run. A file an export call wrote can be read back by
the path given (``importers.importStep("out.step")`` after exporting ``out.step``).

Viewer calls count as ``show_object``: ``show(...)`` (ocp_vscode, jupyter-cadquery, yacv, cq-server and
``cadquery.vis``), ``show_object(...)``; those viewer packages need not be installed (a stand-in module
makes their other functions no-ops). Rule 5 takes the variable assigned last in the source (a variable
holding solids before one holding only faces, edges or a selection). A part may be a ``cq.Assembly``,
``cq.Workplane``, ``cq.Shape``, ``cq.Sketch`` (its faces), an OCP ``TopoDS_Shape`` or a list/tuple of
these (one compound part); ``cq.Location``/``cq.Vector``/``cq.Plane`` markers given to ``show_object``
are skipped.
"""

from __future__ import annotations

import ast
import functools
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import os
import sys
import types
from typing import Any

VIEWERS = ("ocp_vscode", "jupyter_cadquery", "yacv_server", "cq_server")
"""Display-only packages whose ``show``/``show_object`` record parts; stood in for when not installed."""
LOOKED_FOR = ("build(params)", "`result`", "show_object(...) calls", "`final_result`",
              "a module-level cq.Assembly, cq.Workplane or cq.Shape variable", "an exported object")


class MainName(str):
    """``__name__`` of the program: equal to ``"__main__"`` and to ``"__cq_main__"``."""

    def __eq__(self, other: object) -> bool:
        return other in ("__main__", "__cq_main__")

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = str.__hash__


def neutralise_exports(folder: str, exported: list[Any]) -> None:
    """Patch CadQuery's export functions and methods to write into ``folder`` (base names only), and
    its importers to read such a file back by the path the program gave."""
    import cadquery as cq
    from cadquery.occ_impl import exporters, importers

    os.makedirs(folder, exist_ok=True)
    written: dict[str, str] = {}  # the path the program gave -> where the file really went

    def wrap(fn: Any) -> Any:
        @functools.wraps(fn)
        def redirected(*args: Any, **kwargs: Any) -> Any:
            args = list(args)  # type: ignore[assignment]
            if args:
                exported.append(args[0])
            key = next((k for k in ("fname", "fileName", "path", "f", "filename") if k in kwargs), None)
            target = kwargs[key] if key else (args[1] if len(args) > 1 else None)
            if isinstance(target, str | os.PathLike):
                safe = os.path.join(folder, os.path.basename(os.fsdecode(target)) or "export")
                written[os.fsdecode(target)] = safe
                if key:
                    kwargs[key] = safe
                else:
                    args[1] = safe  # type: ignore[index]
            return fn(*args, **kwargs)

        return redirected

    def reread(fn: Any, at: int = 0) -> Any:
        @functools.wraps(fn)
        def from_exports(*args: Any, **kwargs: Any) -> Any:
            args = list(args)  # type: ignore[assignment]
            key = next((k for k in ("fileName", "f", "filename", "path") if k in kwargs), None)
            target = kwargs[key] if key else (args[at] if len(args) > at else None)
            if isinstance(target, str | os.PathLike) and os.fsdecode(target) in written:
                if key:
                    kwargs[key] = written[os.fsdecode(target)]
                else:
                    args[at] = written[os.fsdecode(target)]  # type: ignore[index]
            return fn(*args, **kwargs)

        return from_exports

    for name, at in (("importStep", 0), ("importDXF", 0), ("importBrep", 0), ("importBin", 0), ("importShape", 1)):
        if callable(getattr(importers, name, None)):
            setattr(importers, name, reread(getattr(importers, name), at))
    for name in ("importBrep", "importBin"):
        method = vars(cq.Shape).get(name)
        if isinstance(method, classmethod):
            setattr(cq.Shape, name, classmethod(reread(method.__func__, 1)))

    for name in ("export", "exportDXF", "exportVTP"):
        if hasattr(exporters, name):
            setattr(exporters, name, wrap(getattr(exporters, name)))
    for cls, names in ((cq.Shape, ("export", "exportBin", "exportBrep", "exportStep", "exportStl")),
                       (cq.Workplane, ("export", "exportSvg")), (cq.Assembly, ("export", "save")),
                       (cq.Sketch, ("export",))):
        for name in names:
            if name in vars(cls) or hasattr(cls, name):
                setattr(cls, name, wrap(getattr(cls, name)))


class Shown(list[tuple[Any, Any]]):
    """The program's ``show_object`` calls as a result: [(obj, name), ...]."""


class _Anything:
    """What a stand-in viewer module gives for names it does not know: callable, any attribute."""

    def __call__(self, *args: Any, **kwargs: Any) -> _Anything:
        return self

    def __getattr__(self, name: str) -> _Anything:
        if name.startswith("__"):
            raise AttributeError(name)
        return self


def viewer_calls(show_object: Any) -> Any:
    """``show(*objs, names=None, ...)`` as the viewers define it: one ``show_object`` call per object."""

    def show(*objs: Any, names: Any = None, **_: Any) -> None:
        for i, obj in enumerate(objs):
            name = names[i] if isinstance(names, list | tuple) and i < len(names) else None
            show_object(obj, name if isinstance(name, str) else None)

    return show


class _ViewerFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Stands in for a viewer package (and its submodules) that is not installed."""

    def __init__(self, show_object: Any) -> None:
        self.show_object = show_object

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname.split(".")[0] not in VIEWERS:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: Any) -> Any:
        module: Any = types.ModuleType(spec.name)
        module.__getattr__ = lambda name: _Anything()
        module.__path__ = []
        module.show = viewer_calls(self.show_object)
        module.show_object = lambda obj, name=None, *a, **k: self.show_object(obj, name)
        module.show_all = lambda *a, **k: None
        return module

    def exec_module(self, module: Any) -> None:
        return None


def install_viewers(show_object: Any) -> None:
    """Make viewer ``show``/``show_object`` calls (ocp_vscode, jupyter-cadquery, yacv, cadquery.vis)
    record parts; stand in for the viewer packages that are not installed."""
    missing = [name for name in VIEWERS if importlib.util.find_spec(name) is None]
    if missing:
        sys.meta_path.append(_ViewerFinder(show_object))
    try:
        import cadquery.vis as vis_module
    except Exception:  # noqa: BLE001 - no VTK: nothing to patch
        return
    vis: Any = vis_module
    vis.show = viewer_calls(show_object)
    vis.show_object = vis.show


def _is_shape(obj: Any) -> bool:
    import cadquery as cq

    return isinstance(obj, cq.Assembly | cq.Workplane | cq.Shape)


def _has_solids(obj: Any) -> bool:
    import cadquery as cq

    try:
        if isinstance(obj, cq.Workplane):
            return any(isinstance(v, cq.Shape) and v.Solids() for v in obj.vals())
        return bool(obj.Solids()) if isinstance(obj, cq.Shape) else False
    except Exception:  # noqa: BLE001 - a broken shape holds no usable solid
        return False


def assignment_order(code: str) -> dict[str, int]:
    """name → line of its last module-level assignment (also inside if/for/with/try; not in functions)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return {}
    order: dict[str, int] = {}

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, ast.AnnAssign | ast.AugAssign):
                targets = [node.target]
            elif isinstance(node, ast.For | ast.AsyncFor):
                targets = [node.target]
            elif isinstance(node, ast.With | ast.AsyncWith):
                targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        order[name.id] = max(order.get(name.id, 0), getattr(node, "end_lineno", node.lineno) or 0)
            for field in ("body", "orelse", "finalbody"):
                visit(getattr(node, field, None) or [])
            for handler in getattr(node, "handlers", None) or []:
                visit(handler.body)
            for case in getattr(node, "cases", None) or []:
                visit(case.body)

    visit(tree.body)
    return order


def _call_build(fn: Any, params: dict[str, Any]) -> Any:
    try:
        wants = [p for p in inspect.signature(fn).parameters.values()
                 if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        wants = [None]  # type: ignore[list-item]
    return fn(dict(params)) if wants else fn()


def resolve(ns: dict[str, Any], shown: list[tuple[Any, str | None]], exported: list[Any],
            params: dict[str, Any] | None, order: dict[str, int] | None = None) -> tuple[Any, str]:
    """(the program's result, how it was found); ``params`` are ``build``'s parameters (None: no build);
    ``order``: name → line of its last assignment (``assignment_order``), for rule 5.

    A list result means ``show_object`` calls: [(obj, name), ...]."""
    if params is not None:
        return _call_build(ns["build"], params), "build(params)"
    if "result" in ns:
        return ns["result"], "`result`"
    if shown:
        return Shown(shown), "show_object(...)"
    if "final_result" in ns:
        return ns["final_result"], "`final_result`"
    import cadquery as cq

    variables = [(k, v) for k, v in ns.items() if not k.startswith("_") and _is_shape(v)]
    if order:  # the last assigned in the source wins, not the first-assigned dict order
        position = {k: i for i, (k, _) in enumerate(variables)}
        variables.sort(key=lambda kv: (order.get(kv[0], -1), position[kv[0]]))
    assemblies = [(k, v) for k, v in variables if isinstance(v, cq.Assembly)]
    solids = [(k, v) for k, v in variables if _has_solids(v)]
    if assemblies or variables:
        name, value = (assemblies or solids or variables)[-1]
        return value, f"variable `{name}`"
    if exported:
        return exported[-1], "exported object"
    raise NameError("the program made no shape: looked for " + ", ".join(LOOKED_FOR))


def _as_shape(obj: Any) -> Any:
    """A Sketch (its faces), an OCP TopoDS_Shape or a list/tuple of shapes as one cq.Shape; else ``obj``."""
    import cadquery as cq
    from OCP.TopoDS import TopoDS_Shape

    if isinstance(obj, cq.Sketch):
        faces = obj._faces
        if not isinstance(faces, cq.Shape) or not faces.Faces():
            raise TypeError("the Sketch holds no faces")
        return faces
    if isinstance(obj, TopoDS_Shape):
        return cq.Shape.cast(obj)
    if isinstance(obj, list | tuple) and obj:
        shapes: list[Any] = []
        for item in obj:
            item = _as_shape(item)
            if isinstance(item, cq.Workplane):
                shapes += [v for v in item.vals() if isinstance(v, cq.Shape)]
            elif isinstance(item, cq.Shape):
                shapes.append(item)
            else:
                raise TypeError(f"a list of shapes holds a {type(item).__name__}; expected cq.Workplane or cq.Shape")
        return shapes[0] if len(shapes) == 1 else cq.Compound.makeCompound(shapes)
    return obj


MARKERS = ("Location", "Vector", "Plane")
"""cq types that viewers show as markers, not geometry: skipped among ``show_object`` calls."""


def to_parts(obj: Any, prefix: str = "") -> dict[str, Any]:
    """Named, located cq.Shapes from an Assembly (its children), a Workplane or a Shape ("part");
    a Sketch, TopoDS_Shape or list of shapes counts as a Shape."""
    import cadquery as cq

    obj = _as_shape(obj)

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
        shapes = [_as_shape(v) for v in obj.vals() if isinstance(v, cq.Shape | cq.Sketch)]
        if not shapes:
            raise TypeError("the Workplane holds no shapes")
        return {prefix or "part": shapes[0] if len(shapes) == 1 else cq.Compound.makeCompound(shapes)}
    if isinstance(obj, cq.Shape):
        return {prefix or "part": obj}
    raise TypeError(f"got {type(obj).__name__}; expected cq.Assembly, cq.Workplane, cq.Shape, cq.Sketch or a "
                    "list of shapes")


def parts_of(obj: Any) -> dict[str, Any]:
    """Parts of a resolved result (a list of show_object calls, or one object)."""
    import cadquery as cq

    if isinstance(obj, Shown):
        parts: dict[str, Any] = {}
        markers = tuple(getattr(cq, m) for m in MARKERS)
        for i, (o, name) in enumerate(obj):
            if not isinstance(o, markers):
                parts.update(to_parts(o, name or f"part{i + 1}"))
        if not parts:
            raise TypeError("show_object(...) was given only markers (cq.Location, cq.Vector, cq.Plane), no shape")
        return parts
    return to_parts(obj)
