"""The house rules of shared/DESIGN.md, checked over the source with ``ast`` (nothing is imported).

- no import circle anywhere inside ``paperworks/`` (every import counts: module level, inside
  functions, under ``TYPE_CHECKING``), since a lazy import is still a dependency;
- no module over 400 lines;
- imports only point down the layers, and heavy dependencies (litellm, torch, cadquery, ...) stay in
  the layers DESIGN.md gives them;
- no file in ``paperworks/workflows/`` named after a system outside that system's folder.

Run ``python tests/test_house.py`` to print the circles and long modules.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "paperworks"
MAX_LINES = 400
SYSTEMS = ("spada", "histagent", "ogmar", "dfps", "fps", "steertts")

# The layers of shared/DESIGN.md, top first: a module may import its own layer and those below.
# serve/ and integrations/ adapt workflows and eval for other tools (LangGraph server, Inspect);
# the CLI sits above them. backends/ sit above tools/: a paper's experiment drives deterministic
# tools (FCGraft the robot simulator and sandbox, AgentSteerTTS the speech synthesiser and meter),
# and no tool needs a backend.
LAYERS = [
    ("cli",),
    ("serve", "integrations"),
    ("train",),
    ("eval",),
    ("workflows",),
    ("agents",),
    ("backends",),
    ("tools",),
    ("models",),
    ("core",),
]


def module_name(path: Path) -> str:
    """``paperworks/a/b.py`` -> ``paperworks.a.b``; ``paperworks/a/__init__.py`` -> ``paperworks.a``."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules() -> dict[str, Path]:
    """Every module of the package (benchmark suites' data files excluded: they run only in the sandbox)."""
    out: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "suites" in path.relative_to(PACKAGE).parts[:1]:
            continue
        out[module_name(path)] = path
    return out


def _resolve(base: str, level: int, is_package: bool) -> str:
    parts = base.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts)


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules ``name`` imports: the most specific known module each import names."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def nearest(dotted: str) -> str | None:
        while dotted:
            if dotted in known:
                return dotted
            dotted = dotted.rpartition(".")[0]
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = nearest(alias.name)
                if target:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                base = _resolve(name, node.level, is_package)
                mod = f"{base}.{mod}" if mod else base
            for alias in node.names:
                target = nearest(f"{mod}.{alias.name}") if alias.name != "*" else None
                target = target or nearest(mod)
                if target:
                    found.add(target)
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    mods = source_modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def long_modules() -> list[tuple[str, int]]:
    out = []
    for name, path in source_modules().items():
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES:
            out.append((name, n))
    return sorted(out)


def layer_of(name: str) -> int | None:
    parts = name.split(".")
    if len(parts) < 2:
        return None
    for i, group in enumerate(LAYERS):
        if parts[1] in group:
            return i
    return None


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    out = []
    for name, targets in graph.items():
        mine = layer_of(name)
        if mine is None:
            continue
        for target in targets:
            theirs = layer_of(target)
            if theirs is not None and theirs < mine:
                out.append(f"{name} -> {target}")
    return sorted(out)


# shared/DESIGN.md: which layers may import a heavy or networked dependency (at any depth).
DEPENDENCY_HOMES = {
    "litellm": ("models",),
    "cadquery": ("tools", "backends"),
    "chromadb": ("tools", "backends"),
    "lean_dojo": ("tools", "backends"),
    "pytesseract": ("tools", "backends"),
    "torch": ("tools", "backends", "models"),
    "transformers": ("tools", "backends", "models"),
}
NEVER_IN_BACKENDS = ("langgraph", "litellm")


def misplaced_dependencies() -> list[str]:
    out = []
    for name, path in source_modules().items():
        layer = name.split(".")[1] if "." in name else ""
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                tops = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                tops = [node.module.split(".")[0]]
            else:
                continue
            for top in tops:
                homes = DEPENDENCY_HOMES.get(top)
                if (homes is not None and layer not in homes) or (layer == "backends" and top in NEVER_IN_BACKENDS):
                    out.append(f"{name} imports {top}")
    return sorted(set(out))


def misplaced_system_files() -> list[str]:
    """Files in workflows/ or agents/ (top level) named after a system, instead of inside its folder."""
    out = []
    for folder in ("workflows", "agents"):
        for path in sorted((PACKAGE / folder).glob("*.py")):
            stem = path.stem
            if any(stem == s or stem.startswith(s + "_") for s in SYSTEMS):
                out.append(str(path.relative_to(ROOT)))
    return out


# --- the tests --------------------------------------------------------------------------------------


def test_checker_finds_a_circle_and_resolves_relative_imports(tmp_path):
    """The checker itself: a planted two-module circle (one import relative, one lazy) is found."""
    pkg = tmp_path / "paperworks" / "x"
    pkg.mkdir(parents=True)
    (tmp_path / "paperworks" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from paperworks.x.a import g\n")
    (pkg / "c.py").write_text("from .a import b\n")
    known = {"paperworks", "paperworks.x", "paperworks.x.a", "paperworks.x.b", "paperworks.x.c"}
    g = {m: imports_of(m, tmp_path / (m.replace(".", "/") + ".py"), known)
         for m in ("paperworks.x.a", "paperworks.x.b", "paperworks.x.c")}
    assert g["paperworks.x.a"] == {"paperworks.x.b"}
    assert g["paperworks.x.b"] == {"paperworks.x.a"}
    assert g["paperworks.x.c"] == {"paperworks.x.a"}
    assert circles(g) == [["paperworks.x.a", "paperworks.x.b"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_circles():
    found = circles(import_graph())
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_no_module_over_400_lines():
    found = long_modules()
    assert not found, "modules over 400 lines: " + ", ".join(f"{m} ({n})" for m, n in found)


def test_imports_point_down_the_layers():
    found = upward_imports(import_graph())
    assert not found, "upward imports:\n" + "\n".join(found)


def test_heavy_dependencies_stay_in_their_layers():
    found = misplaced_dependencies()
    assert not found, "dependencies outside their layers: " + ", ".join(found)


def test_system_files_live_in_their_folders():
    found = misplaced_system_files()
    assert not found, "system-named files outside their folder: " + ", ".join(found)


@pytest.mark.parametrize("system", ["spada", "histagent", "ogmar", "dfps", "steertts"])
def test_each_system_is_a_package_exporting_its_graph(system):
    init = PACKAGE / "workflows" / system / "__init__.py"
    assert init.is_file(), f"paperworks/workflows/{system}/ is not a package"
    tree = ast.parse(init.read_text(encoding="utf-8"))
    exported: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            exported = {ast.literal_eval(e) for e in node.value.elts}  # type: ignore[attr-defined]
    assert {"SPEC", "build_graph"} <= exported, f"{init} must export SPEC and build_graph in __all__"


if __name__ == "__main__":
    graph = import_graph()
    for c in circles(graph):
        print("circle:", " <-> ".join(c))
    for m, n in long_modules():
        print(f"long: {m} ({n} lines)")
    for edge in upward_imports(graph):
        print("upward:", edge)
    for dep in misplaced_dependencies():
        print("dependency:", dep)
    for f in misplaced_system_files():
        print("misplaced:", f)
    sys.exit(0)
