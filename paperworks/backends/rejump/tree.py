"""The ReJump data model: a tree of intermediate problem-solving steps and a walk over it.

Follows the authors' format (UW-Madison-Lee-Lab/ReJump, ``rejump_extractor/``): the tree is a JSON object
``{node_id: {"Problem": str, "parent": node_id | "none", "Result": str | None}}`` with the problem itself at
the root, and the walk a list ``[{"from": id, "to": id, "category": c}]`` with ``c`` one of
``calculation/derivation``, ``verification``, ``backtracking``. :func:`parse_rejump` validates both (one root,
no cycles, every node reachable, walk steps name existing nodes) and raises :class:`RejumpError` (a one-line
``UserError``) naming what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from paperworks.core.errors import UserError

CALC, VERIFY, BACK = "calculation/derivation", "verification", "backtracking"
CATEGORIES = (CALC, VERIFY, BACK)
"""The three step categories, in the order of the transition matrices' rows and columns."""

_ALIASES = {"calculation": CALC, "derivation": CALC, "calculation/derivation": CALC, "calc": CALC,
            "verification": VERIFY, "verify": VERIFY, "backtracking": BACK, "backtrack": BACK}
_NO_PARENT = {None, "", "none", "null", "None", "NONE"}


class RejumpError(UserError):
    """A tree or walk that is not a valid ReJump (malformed JSON, two roots, a cycle, unknown nodes)."""


@dataclass(frozen=True)
class Node:
    """One intermediate step: its problem (partial solution) and, for a leaf, its result."""

    id: str
    problem: str
    parent: str | None
    result: str | None = None


@dataclass(frozen=True)
class Step:
    """One transition of the walk."""

    src: str
    dst: str
    category: str
    """One of :data:`CATEGORIES`."""


@dataclass
class ReJump:
    """A validated tree and walk. Build one with :func:`parse_rejump` (or :meth:`build` from objects)."""

    nodes: dict[str, Node]
    walk: list[Step] = field(default_factory=list)

    @classmethod
    def build(cls, nodes: list[Node], walk: list[Step] | None = None) -> ReJump:
        """A ReJump from objects, validated like :func:`parse_rejump`."""
        rj = cls({n.id: n for n in nodes}, list(walk or []))
        if len(rj.nodes) != len(nodes):
            raise RejumpError("tree: duplicate node ids")
        rj.validate()
        return rj

    def validate(self) -> None:
        """Raise :class:`RejumpError` unless there is exactly one root, every node reaches it without a
        cycle, and every walk step names existing nodes with a known category."""
        if not self.nodes:
            raise RejumpError("tree: no nodes (the root must hold the problem)")
        roots = [n.id for n in self.nodes.values() if n.parent is None]
        if len(roots) != 1:
            raise RejumpError(f"tree: expected exactly one root (parent none), found {len(roots)}"
                              + (f": {', '.join(roots[:5])}" if roots else ""))
        for node in self.nodes.values():
            if node.parent is not None and node.parent not in self.nodes:
                raise RejumpError(f"tree: node '{node.id}' has parent '{node.parent}', which is not a node")
        reaches_root: set[str] = set()  # nodes already shown to reach the root: linear time on deep chains
        for node in self.nodes.values():
            path = [node.id]
            seen = {node.id}
            cur = node.parent
            while cur is not None and cur not in reaches_root:
                if cur in seen:
                    raise RejumpError(f"tree: cycle through node '{node.id}'")
                seen.add(cur)
                path.append(cur)
                cur = self.nodes[cur].parent
            reaches_root.update(path)
        for i, step in enumerate(self.walk):
            for end in (step.src, step.dst):
                if end not in self.nodes:
                    raise RejumpError(f"walk step {i + 1}: node '{end}' is not in the tree")
            if step.category not in CATEGORIES:
                raise RejumpError(f"walk step {i + 1}: category '{step.category}' is not one of "
                                  f"{', '.join(CATEGORIES)}")

    # -- structure -----------------------------------------------------------
    @cached_property
    def root(self) -> str:
        return next(n.id for n in self.nodes.values() if n.parent is None)

    @cached_property
    def children(self) -> dict[str, list[str]]:
        """Node id → its children, in the tree's order."""
        out: dict[str, list[str]] = {k: [] for k in self.nodes}
        for node in self.nodes.values():
            if node.parent is not None:
                out[node.parent].append(node.id)
        return out

    @cached_property
    def depth(self) -> dict[str, int]:
        """Node id → edges from the root."""
        out = {self.root: 0}
        stack = [self.root]
        while stack:
            cur = stack.pop()
            for child in self.children[cur]:
                out[child] = out[cur] + 1
                stack.append(child)
        return out

    @cached_property
    def leaves(self) -> set[str]:
        """Nodes without children (a single-node tree's root is its one leaf)."""
        return {k for k, v in self.children.items() if not v}

    def lca(self, u: str, v: str) -> str:
        """Lowest common ancestor of ``u`` and ``v``."""
        ancestors = set()
        cur: str | None = u
        while cur is not None:
            ancestors.add(cur)
            cur = self.nodes[cur].parent
        cur = v
        while cur not in ancestors:
            assert cur is not None
            cur = self.nodes[cur].parent
        assert cur is not None
        return cur

    def distance(self, u: str, v: str) -> int:
        """Tree distance ``d_u + d_v − 2·d_lca`` (edges on the path between ``u`` and ``v``)."""
        return self.depth[u] + self.depth[v] - 2 * self.depth[self.lca(u, v)]

    def visits(self) -> list[str]:
        """The visitation order: the first step's ``from``, then every step's ``to`` (as the authors do,
        a step whose ``from`` is not where the walk stood is followed anyway)."""
        if not self.walk:
            return []
        return [self.walk[0].src, *(s.dst for s in self.walk)]

    def to_json(self) -> dict[str, Any]:
        """The authors' format: ``{"tree": {...}, "walk": [...]}``."""
        return {"tree": {n.id: {"Problem": n.problem, "parent": n.parent or "none", "Result": n.result}
                         for n in self.nodes.values()},
                "walk": [{"from": s.src, "to": s.dst, "category": s.category} for s in self.walk]}


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def parse_tree(data: Any) -> dict[str, Node]:
    """Nodes from the authors' tree object (``Problem``/``parent``/``Result``, any case); unvalidated."""
    if isinstance(data, dict) and isinstance(data.get("tree"), dict) and len(data) <= 2:
        data = data["tree"]
    if not isinstance(data, dict):
        raise RejumpError(f"tree: expected a JSON object of nodes, got {type(data).__name__}")
    nodes: dict[str, Node] = {}
    for key, raw in data.items():
        if not isinstance(raw, dict):
            raise RejumpError(f"tree: node '{key}' is a {type(raw).__name__}, expected an object")
        low = {str(k).lower(): v for k, v in raw.items()}
        if "parent" not in low:
            raise RejumpError(f"tree: node '{key}' has no 'parent' field")
        parent = _text(low["parent"])
        nodes[str(key)] = Node(id=str(key), problem=_text(low.get("problem")) or "",
                               parent=None if parent in _NO_PARENT else parent,
                               result=None if _text(low.get("result")) in _NO_PARENT else _text(low.get("result")))
    return nodes


def parse_walk(data: Any) -> list[Step]:
    """Steps from the authors' walk list (``from``/``to``/``category``); unvalidated against a tree."""
    if isinstance(data, dict) and isinstance(data.get("walk"), list):
        data = data["walk"]
    if not isinstance(data, list):
        raise RejumpError(f"walk: expected a JSON list of steps, got {type(data).__name__}")
    steps = []
    for i, raw in enumerate(data):
        if not isinstance(raw, dict) or "from" not in raw or "to" not in raw:
            raise RejumpError(f"walk step {i + 1}: expected an object with 'from', 'to' and 'category'")
        cat = str(raw.get("category", "")).strip().lower()
        if cat not in _ALIASES:
            raise RejumpError(f"walk step {i + 1}: category '{raw.get('category')}' is not one of "
                              f"{', '.join(CATEGORIES)}")
        steps.append(Step(str(raw["from"]), str(raw["to"]), _ALIASES[cat]))
    return steps


def parse_rejump(tree: Any, walk: Any) -> ReJump:
    """A validated :class:`ReJump` from the authors' JSON shapes; :class:`RejumpError` when malformed."""
    nodes = parse_tree(tree)
    steps = [Step(_resolve(s.src, nodes), _resolve(s.dst, nodes), s.category) for s in parse_walk(walk)]
    rj = ReJump(nodes, steps)
    rj.validate()
    return rj


def _resolve(name: str, nodes: dict[str, Node]) -> str:
    """A walk's node name as a tree id: ``"3"`` means ``"node3"`` when only the latter exists."""
    if name in nodes:
        return name
    bare = name.strip()
    for candidate in (bare, f"node{bare}", bare.removeprefix("node")):
        if candidate in nodes:
            return candidate
    return name
