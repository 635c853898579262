"""Synthetic reasoning-segmentation scenes.

A scene is 3 to ``max_objects`` non-overlapping objects on a ``grid`` x ``grid`` board. Each object has a
colour, a shape, a size (small = one cell, large = a 2x2 block) and a position; its mask is the cells it
covers. A query needs reasoning: either a relation to an anchor named by colour and shape
("the object left of the red circle": the nearest object whose centre lies left of the anchor's) or a
superlative within a colour ("the leftmost blue object"). Scenes are drawn until the query's target is
unique and the target's (colour, shape, size) triple is unique, so a self-contained description exists.

Descriptions are token sequences over :data:`VOCAB`: attribute words, relation words and filler
("think", "then", "so"), ended by a pointer token ``@i`` that selects object ``i`` (the stage-1 answer,
standing in for the box/points the MLLM hands to SAM).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from paperworks.core.errors import UserError

COLOURS = ("red", "green", "blue")
SHAPES = ("circle", "square", "triangle")
SIZES = ("small", "large")
RELATIONS = ("left", "right", "above", "below")
FILLER = ("think", "then", "so")
MAX_OBJECTS = 6
WORDS: tuple[str, ...] = COLOURS + SHAPES + SIZES + RELATIONS + FILLER
"""Description words (everything but pointers)."""
VOCAB: tuple[str, ...] = WORDS + tuple(f"@{i}" for i in range(MAX_OBJECTS))
"""All tokens: description words, then one pointer per object slot."""
TOKEN_ID = {t: i for i, t in enumerate(VOCAB)}
N_WORDS = len(WORDS)
QUERY_KINDS = ("left", "right", "above", "below", "leftmost", "rightmost", "topmost", "bottommost")


@dataclass(frozen=True)
class Obj:
    """One object: attributes and its top-left cell."""

    colour: str
    shape: str
    size: str
    x: int
    y: int

    def cells(self) -> frozenset[tuple[int, int]]:
        """Cells covered: one for small, a 2x2 block for large."""
        k = 2 if self.size == "large" else 1
        return frozenset((self.x + i, self.y + j) for i in range(k) for j in range(k))

    @property
    def cx(self) -> float:
        """Centre column."""
        return self.x + (0.5 if self.size == "large" else 0.0)

    @property
    def cy(self) -> float:
        """Centre row (grows downwards)."""
        return self.y + (0.5 if self.size == "large" else 0.0)


@dataclass(frozen=True)
class Query:
    """``kind`` in :data:`QUERY_KINDS`; relations name an anchor by colour and shape, superlatives a colour."""

    kind: str
    colour: str
    shape: str | None = None

    def text(self) -> str:
        """The query in words."""
        if self.shape is not None:
            where = {"left": "left of", "right": "right of", "above": "above", "below": "below"}[self.kind]
            return f"the object {where} the {self.colour} {self.shape}"
        return f"the {self.kind} {self.colour} object"


@dataclass(frozen=True)
class Scene:
    """Objects, the grid size, the query and the index of its target."""

    objects: tuple[Obj, ...]
    grid: int
    query: Query
    target: int


def mask_of(scene: Scene, indices: set[int] | list[int]) -> frozenset[tuple[int, int]]:
    """Union of the cells of the objects at ``indices``."""
    out: set[tuple[int, int]] = set()
    for i in indices:
        out |= scene.objects[i].cells()
    return frozenset(out)


def resolve(objects: tuple[Obj, ...], query: Query) -> int | None:
    """Index of the query's target, or None when the query has no unique answer in ``objects``."""
    if query.shape is not None:
        anchors = [i for i, o in enumerate(objects) if o.colour == query.colour and o.shape == query.shape]
        if len(anchors) != 1:
            return None
        a = objects[anchors[0]]
        axis_x = query.kind in ("left", "right")
        sign = -1 if query.kind in ("left", "above") else 1
        cand = []
        for i, o in enumerate(objects):
            d = (o.cx - a.cx) if axis_x else (o.cy - a.cy)
            if i != anchors[0] and sign * d > 0:
                cand.append((abs(d), i))
    else:
        pool = [i for i, o in enumerate(objects) if o.colour == query.colour]
        if len(pool) < 2:
            return None
        key = {"leftmost": lambda o: o.cx, "rightmost": lambda o: -o.cx,
               "topmost": lambda o: o.cy, "bottommost": lambda o: -o.cy}[query.kind]
        cand = [(key(objects[i]), i) for i in pool]
    if not cand:
        return None
    cand.sort()
    if len(cand) > 1 and cand[0][0] == cand[1][0]:
        return None
    return cand[0][1]


def _attrs(o: Obj) -> tuple[str, str, str]:
    return (o.colour, o.shape, o.size)


def make_scene(rng: random.Random, grid: int = 8, max_objects: int = MAX_OBJECTS) -> Scene:
    """One random scene with a uniquely answerable query and a uniquely describable target."""
    if not 3 <= max_objects <= MAX_OBJECTS:
        raise UserError(f"dr2seg: max_objects must be in 3..{MAX_OBJECTS}, got {max_objects}")
    if grid < 4:
        raise UserError(f"dr2seg: grid must be at least 4, got {grid}")
    for _ in range(10_000):
        n = rng.randint(3, max_objects)
        objs: list[Obj] = []
        used: set[tuple[int, int]] = set()
        while len(objs) < n:
            size = rng.choice(SIZES)
            lim = grid - (2 if size == "large" else 1)
            o = Obj(rng.choice(COLOURS), rng.choice(SHAPES), size, rng.randint(0, lim), rng.randint(0, lim))
            if o.cells() & used:
                continue
            objs.append(o)
            used |= o.cells()
        kind = rng.choice(QUERY_KINDS)
        if kind in RELATIONS:
            a = rng.choice(objs)
            q = Query(kind, a.colour, a.shape)
        else:
            q = Query(kind, rng.choice(objs).colour)
        t = resolve(tuple(objs), q)
        if t is None:
            continue
        if sum(_attrs(o) == _attrs(objs[t]) for o in objs) != 1:
            continue
        return Scene(tuple(objs), grid, q, t)
    raise RuntimeError("dr2seg: could not draw a scene")  # pragma: no cover - practically unreachable


def minimal_description(scene: Scene) -> list[str]:
    """A shortest attribute-word description that singles out the target (by the segmenter's rule)."""
    from itertools import combinations

    t = scene.objects[scene.target]
    attrs = _attrs(t)
    for k in (1, 2, 3):
        for combo in combinations(range(3), k):
            if sum(all(_attrs(o)[c] == attrs[c] for c in combo) for o in scene.objects) == 1:
                return [attrs[c] for c in combo]
    raise AssertionError("target triple is unique by construction")  # pragma: no cover


def verbose_trace(scene: Scene, rng: random.Random) -> list[str]:
    """An "overthinking" description (used for the warm start): filler, the query's reasoning restated
    (relation word and anchor attributes), then the target's full triple in random order."""
    q, t = scene.query, scene.objects[scene.target]
    out: list[str] = ["think"] if rng.random() < 0.7 else []
    rel = q.kind if q.kind in RELATIONS else q.kind.replace("most", "").replace("top", "above") \
        .replace("bottom", "below")
    out += [rel, q.colour] + ([q.shape] if q.shape else [])
    out.append(rng.choice(("then", "so")))
    triple = list(_attrs(t))
    rng.shuffle(triple)
    return out + triple
