"""The synthetic population model's parameters, read and checked from the package's data files:
``data/synth_model.yaml`` (regions, cultural axes, class loadings, the ground-truth relations) and
``data/synth_items.yaml`` (the item bank). The model itself is described in ``synth/__init__.py``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperworks.tools.values.errors import ValuesDataError, raise_if
from paperworks.tools.values.ontology import Ontology, Provenance, Relation
from paperworks.tools.values.survey import ItemSpec
from paperworks.tools.values.taxonomy import DATA_DIR, Taxonomy, load_taxonomy
from paperworks.tools.values.yamlrows import at, hint, item_lines, list_rows, read_yaml, row_where

MODEL_FILE = DATA_DIR / "synth_model.yaml"
ITEMS_FILE = DATA_DIR / "synth_items.yaml"
DEMOGRAPHIC_EFFECTS = ("age", "female", "education", "income", "religiosity", "urban")
COUNTRIES_PER_REGION = 3


@dataclass(frozen=True)
class RegionSpec:
    """One region: its cultural-axis means and demographic distributions."""

    id: str
    name: str
    t: float
    s: float
    age: tuple[float, float]
    urban: float
    education: tuple[float, float, float]
    religiosity: tuple[float, float, float, float]

    @property
    def countries(self) -> list[str]:
        """The region's invented country codes (``EUR-1`` ...)."""
        return [f"{self.id}-{k}" for k in range(1, COUNTRIES_PER_REGION + 1)]


@dataclass(frozen=True)
class AxisSpec:
    """One cultural axis: demographic effects, country offset sd, individual noise sd."""

    effects: dict[str, float]
    country_sd: float
    noise_sd: float


@dataclass(frozen=True)
class ClassSpec:
    """The base of one subclass's latent: axis loadings, demographic effects, country offset sd."""

    t: float
    s: float
    demo: dict[str, float]
    country_sd: float = 0.2


@dataclass(frozen=True)
class SynthModel:
    """Everything the generator needs, checked."""

    taxonomy: Taxonomy
    regions: list[RegionSpec]
    axes: dict[str, AxisSpec]
    class_noise_sd: float
    classes: dict[str, ClassSpec]
    relations: Ontology
    order: list[str]
    """Subclasses in a topological order of the relations (parents first)."""
    items: list[ItemSpec]

    def taxonomy_order(self) -> list[str]:
        """Subclass ids in taxonomy order (the order the generator draws class noise in)."""
        return [c.id for c in self.taxonomy.subclasses]

    def parents(self, class_id: str) -> list[Relation]:
        """Relations into ``class_id``, in file order."""
        return self.relations.parents(class_id)


@functools.cache
def load_model() -> SynthModel:
    """The packaged model (cached)."""
    return read_model(MODEL_FILE, ITEMS_FILE, load_taxonomy())


def read_model(model_path: Path, items_path: Path, taxonomy: Taxonomy) -> SynthModel:
    """Read and check the two model files; ``ValuesDataError`` with one line per bad row."""
    raw, node = read_yaml(model_path)
    shown = str(model_path)
    if not isinstance(raw, dict):
        raise ValuesDataError([f"{shown}: expected a mapping with predicates, regions, axes, classes, relations"])
    subclasses = [c.id for c in taxonomy.subclasses]
    problems: list[str] = []
    predicates = {str(k): (int(v["sign"]), float(v["strength"])) for k, v in (raw.get("predicates") or {}).items()}
    regions = [RegionSpec(r.data["id"], r.data["name"], float(r.data["t"]), float(r.data["s"]),
                          _floats(r.data["age"], 2), float(r.data["urban"]), _floats(r.data["education"], 3),
                          _floats(r.data["religiosity"], 4)) for r in list_rows(raw, node, "regions", shown)]
    for reg in regions:
        for name, probs in (("education", reg.education), ("religiosity", reg.religiosity)):
            if abs(sum(probs) - 1) > 1e-6:
                problems.append(f"{shown}: region {reg.id}: field '{name}': expected shares summing to 1, got "
                                f"{sum(probs):g}")
    axes = {k: AxisSpec({e: float(x) for e, x in v.items() if e not in ("country_sd", "noise_sd")},
                        float(v["country_sd"]), float(v["noise_sd"])) for k, v in raw["axes"].items()}
    classes: dict[str, ClassSpec] = {}
    for cid, spec in (raw.get("classes") or {}).items():
        if cid not in subclasses:
            problems.append(f"{shown}: classes.{cid}: expected a taxonomy subclass id{hint(cid, subclasses)}")
            continue
        demo = {str(k): float(v) for k, v in (spec.get("demo") or {}).items()}
        bad = [k for k in demo if k not in DEMOGRAPHIC_EFFECTS]
        if bad:
            problems.append(f"{shown}: classes.{cid}: field 'demo': expected effects of "
                            f"{', '.join(DEMOGRAPHIC_EFFECTS)}, got '{bad[0]}'")
        classes[cid] = ClassSpec(float(spec["t"]), float(spec["s"]), demo, float(spec.get("country_sd", 0.2)))
    problems += [f"{shown}: classes: missing subclass '{c}'" for c in subclasses if c not in classes]
    relations, more = _relations(raw, node, shown, predicates, subclasses)
    problems += more
    raise_if(problems)
    order = _topological(relations, subclasses, shown)
    items = read_items(items_path, taxonomy)
    return SynthModel(taxonomy, regions, axes, float(raw["class_noise_sd"]), classes, relations, order, items)


def _floats(value: Any, n: int) -> Any:
    if not isinstance(value, list) or len(value) != n:
        raise ValuesDataError([f"expected a list of {n} numbers, got {value!r}"])
    return tuple(float(v) for v in value)


def _relations(raw: dict[str, Any], node: Any, shown: str, predicates: dict[str, tuple[int, float]],
               subclasses: list[str]) -> tuple[Ontology, list[str]]:
    rows = raw.get("relations") or []
    lines = item_lines(node, "relations", len(rows))
    onto, problems = Ontology(name="generator ground truth"), []
    for i, row in enumerate(rows):
        where = f"{at(shown, lines[i])}: relation {i + 1}"
        if not (isinstance(row, list) and len(row) == 3 and all(isinstance(x, str) for x in row)):
            problems.append(f"{where}: expected [subject, predicate, object], got {row!r}")
            continue
        subj, pred, obj = row
        bad = next(((f, v) for f, v in (("subject", subj), ("object", obj)) if v not in subclasses), None)
        if bad:
            problems.append(f"{where}: field '{bad[0]}': expected a taxonomy subclass id, got {bad[1]!r}"
                            f"{hint(bad[1], subclasses)}")
        elif pred not in predicates:
            problems.append(f"{where}: field 'predicate': expected one of {', '.join(predicates)}, got {pred!r}"
                            f"{hint(pred, predicates)}")
        elif subj == obj:
            problems.append(f"{where}: expected two different classes, got {subj} twice")
        elif onto.get(subj, obj) or onto.get(obj, subj):
            earlier = onto.get(subj, obj) or onto.get(obj, subj)
            assert earlier is not None
            problems.append(f"{where}: expected one relation per pair of classes, got {subj} -> {obj} but "
                            f"{earlier.subject} {earlier.predicate} {earlier.object} is already listed")
        else:
            sign, strength = predicates[pred]
            onto.add(Relation(subj, pred, obj, sign, strength, Provenance(source="generator")))
    return onto, problems


def _topological(relations: Ontology, subclasses: list[str], shown: str) -> list[str]:
    """Kahn's algorithm, ties in taxonomy order; a cycle is a one-line error naming its classes."""
    indegree = {c: 0 for c in subclasses}
    for r in relations:
        indegree[r.object] += 1
    order: list[str] = []
    ready = [c for c in subclasses if indegree[c] == 0]
    while ready:
        current = ready.pop(0)
        order.append(current)
        for r in relations:
            if r.subject == current:
                indegree[r.object] -= 1
                if indegree[r.object] == 0:
                    ready.append(r.object)
        ready.sort(key=subclasses.index)
    if len(order) < len(subclasses):
        stuck = {c for c in subclasses if c not in order}
        walk, current = [], next(c for c in subclasses if c in stuck)
        while current not in walk:  # every stuck class has a stuck parent: walking back must close a cycle
            walk.append(current)
            current = next(r.subject for r in relations.parents(current) if r.subject in stuck)
        cycle = list(reversed(walk[walk.index(current):]))
        raise ValuesDataError([f"{shown}: relations: expected an acyclic graph; a cycle runs "
                               f"{' -> '.join(cycle + [cycle[0]])}"])
    return order


def read_items(path: Path, taxonomy: Taxonomy) -> list[ItemSpec]:
    """Read and check an item bank (code, class, key, text, choices); every subclass needs an item."""
    raw, node = read_yaml(path)
    shown = str(path)
    subclasses = [c.id for c in taxonomy.subclasses]
    items, problems, seen = [], [], set()
    for row in list_rows(raw, node, "items", shown):
        d, where = row.data, row_where(shown, row, "code")
        code, cid, key, text, choices = (d.get(k) for k in ("code", "class", "key", "text", "choices"))
        if not isinstance(code, str) or not code or code in seen:
            problems.append(f"{where}: field 'code': expected a unique item code, got {code!r}")
        elif cid not in subclasses:
            problems.append(f"{where}: field 'class': expected a taxonomy subclass id, got {cid!r}"
                            f"{hint(cid, subclasses)}")
        elif key not in (1, -1):
            problems.append(f"{where}: field 'key': expected 1 or -1, got {key!r}")
        elif not isinstance(text, str) or len(text.strip()) < 10:
            problems.append(f"{where}: field 'text': expected the item's wording, got {text!r}")
        elif not (isinstance(choices, list) and len(choices) == 2 and all(isinstance(c, str) and c for c in choices)
                  and choices[0].casefold() != choices[1].casefold()):
            problems.append(f"{where}: field 'choices': expected two different choice texts, got {choices!r}")
        else:
            seen.add(code)
            items.append(ItemSpec(code, str(cid), text.strip(), (choices[0], choices[1]), int(key)))
    covered = {i.class_id for i in items}
    problems += [f"{shown}: no item for subclass '{c}' (every subclass needs at least one)"
                 for c in subclasses if c not in covered and not problems]
    raise_if(problems)
    return items
