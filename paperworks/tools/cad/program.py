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
and ``"__cq_main__"``, so script guards of either kind run.
"""

from __future__ import annotations

import functools
import inspect
import os
from typing import Any

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
    """Patch CadQuery's export functions and methods to write into ``folder`` (base names only)."""
    import cadquery as cq
    from cadquery.occ_impl import exporters

    os.makedirs(folder, exist_ok=True)

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
                if key:
                    kwargs[key] = safe
                else:
                    args[1] = safe  # type: ignore[index]
            return fn(*args, **kwargs)

        return redirected

    for name in ("export", "exportDXF", "exportVTP"):
        if hasattr(exporters, name):
            setattr(exporters, name, wrap(getattr(exporters, name)))
    for cls, names in ((cq.Shape, ("export", "exportBin", "exportBrep", "exportStep", "exportStl")),
                       (cq.Workplane, ("export", "exportSvg")), (cq.Assembly, ("export", "save")),
                       (cq.Sketch, ("export",))):
        for name in names:
            if name in vars(cls) or hasattr(cls, name):
                setattr(cls, name, wrap(getattr(cls, name)))


def _is_shape(obj: Any) -> bool:
    import cadquery as cq

    return isinstance(obj, cq.Assembly | cq.Workplane | cq.Shape)


def _call_build(fn: Any, params: dict[str, Any]) -> Any:
    try:
        wants = [p for p in inspect.signature(fn).parameters.values()
                 if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        wants = [None]  # type: ignore[list-item]
    return fn(dict(params)) if wants else fn()


def resolve(ns: dict[str, Any], shown: list[tuple[Any, str | None]], exported: list[Any],
            params: dict[str, Any] | None) -> tuple[Any, str]:
    """(the program's result, how it was found); ``params`` are ``build``'s parameters (None: no build).

    A list result means ``show_object`` calls: [(obj, name), ...]."""
    if params is not None:
        return _call_build(ns["build"], params), "build(params)"
    if "result" in ns:
        return ns["result"], "`result`"
    if shown:
        return shown, "show_object(...)"
    if "final_result" in ns:
        return ns["final_result"], "`final_result`"
    import cadquery as cq

    variables = [(k, v) for k, v in ns.items() if not k.startswith("_") and _is_shape(v)]
    assemblies = [(k, v) for k, v in variables if isinstance(v, cq.Assembly)]
    if assemblies or variables:
        name, value = (assemblies or variables)[-1]
        return value, f"variable `{name}`"
    if exported:
        return exported[-1], "exported object"
    raise NameError("the program made no shape: looked for " + ", ".join(LOOKED_FOR))


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


def parts_of(obj: Any) -> dict[str, Any]:
    """Parts of a resolved result (a list of show_object calls, or one object)."""
    if isinstance(obj, list):
        parts: dict[str, Any] = {}
        for i, (o, name) in enumerate(obj):
            parts.update(to_parts(o, name or f"part{i + 1}"))
        return parts
    return to_parts(obj)
