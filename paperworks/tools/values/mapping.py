"""The mapping file that ties a survey file's columns to the taxonomy (YAML or JSON).

```yaml
survey: WVS wave 7                  # free text, recorded with the data
id_column: D_INTERVIEW              # the respondent id column
missing: [-1, -2, -3, -4, -5, ""]   # cell values that mean "no answer" (empty cells always do)
demographics:                       # name -> column and kind (categorical | numeric | ordinal)
  country: {column: B_COUNTRY_ALPHA, kind: categorical}
  age: {column: Q262, kind: numeric, range: [18, 99]}     # range optional: the data's min-max
  sex: {column: Q260, kind: categorical, values: {1: male, 2: female}}
  education: {column: Q275R, kind: ordinal, levels: [lower, middle, higher], values: {1: lower, 2: middle, 3: higher}}
items:                              # one row per binary item
  - {code: Q57, class: generalized_trust, rule: "== 1", key: 1,
     text: "Most people can be trusted?", choices: [trust, be careful]}
```

``values`` recodes raw cells (a categorical with ``values`` accepts only the listed codes). ``rule`` turns
a raw cell into the binary answer: 1 when it holds (``== v``, ``!= v``, ``< v``, ``<= v``, ``> v``,
``>= v``, ``in v1,v2,...``), else 0; numbers compare as numbers. ``key`` (default 1) says whether answer 1
means more (+1) or less (-1) of the class. ``column`` defaults to the code; ``text`` and ``choices``
(default ``[yes, no]``: the first choice is answer 1) are what a question shows. Problems are reported
one line per bad row or field, with the file and line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from paperworks.tools.values.errors import ValuesDataError, raise_if
from paperworks.tools.values.survey import KINDS, SurveyData
from paperworks.tools.values.taxonomy import Taxonomy, load_taxonomy
from paperworks.tools.values.yamlrows import at, hint, list_rows, read_yaml, row_where

_RULE = re.compile(r"^\s*(==|!=|<=|>=|<|>|in)\s*(.+?)\s*$")
RULE_FORMS = "'== v', '!= v', '< v', '<= v', '> v', '>= v' or 'in v1,v2'"
ITEM_FIELDS = ("code", "column", "class", "rule", "key", "text", "choices")
DEMOGRAPHIC_FIELDS = ("column", "kind", "range", "levels", "values", "weight")


def normalise_cell(value: Any) -> str:
    """A cell as comparable text: numbers without a trailing ``.0``, strings stripped, None as ''."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):
        if value != value:  # NaN
            return ""
        return str(int(value)) if value.is_integer() else repr(value)
    text = str(value).strip()
    try:
        number = float(text)
    except ValueError:
        return text
    return str(int(number)) if number.is_integer() and "e" not in text.lower() else text


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


@dataclass(frozen=True)
class Rule:
    """A binarisation rule: an operator and its value(s), as written."""

    op: str
    values: tuple[str, ...]

    def holds(self, cell: str) -> bool:
        """Whether the normalised cell satisfies the rule (numbers compared numerically)."""
        if self.op == "in":
            return cell in self.values
        want, got = self.values[0], cell
        a, b = _number(got), _number(want)
        if self.op in ("==", "!="):
            same = a == b if a is not None and b is not None else got == want
            return same if self.op == "==" else not same
        if a is None or b is None:
            return False
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[self.op]

    def __str__(self) -> str:
        return f"{self.op} {','.join(self.values)}"


def parse_rule(text: Any) -> Rule:
    """Parse ``'== 1'``, ``'<= 5'``, ``'in 1,2'`` ...; ``ValueError`` naming the accepted forms."""
    m = _RULE.match(str(text)) if isinstance(text, str | int | float) else None
    if not m:
        raise ValueError(f"expected {RULE_FORMS}, got {text!r}")
    op, rest = m.group(1), m.group(2)
    values = tuple(normalise_cell(v) for v in rest.split(",")) if op == "in" else (normalise_cell(rest),)
    if any(v == "" for v in values):
        raise ValueError(f"expected {RULE_FORMS}, got {text!r}")
    return Rule(op, values)


@dataclass(frozen=True)
class DemographicMap:
    """How one demographic is read from the file."""

    name: str
    column: str
    kind: str
    range: tuple[float, float] | None = None
    levels: tuple[str, ...] = ()
    values: Mapping[str, str] | None = None
    """Raw cell (normalised) -> recoded value."""
    weight: float = 1.0


@dataclass(frozen=True)
class ItemMap:
    """How one item is read from the file."""

    code: str
    column: str
    class_id: str
    rule: Rule
    key: int = 1
    text: str = ""
    choices: tuple[str, str] = ("yes", "no")


@dataclass(frozen=True)
class SurveyMapping:
    """A checked mapping file."""

    source: str
    survey: str
    id_column: str
    missing: frozenset[str]
    demographics: tuple[DemographicMap, ...]
    items: tuple[ItemMap, ...]
    lines: Mapping[str, str]
    """Where each item/demographic was defined (``file:line items[3]``), for messages."""


def load_mapping(path: str | Path, taxonomy: Taxonomy | None = None) -> SurveyMapping:
    """Read and check a mapping file against the taxonomy (default: the packaged one)."""
    taxonomy = taxonomy or load_taxonomy()
    path = Path(path)
    shown = str(path)
    raw, node = read_yaml(path)
    if not isinstance(raw, dict):
        raise ValuesDataError([f"{shown}: expected a mapping with id_column, demographics and items"])
    problems: list[str] = []
    id_column = raw.get("id_column")
    if not isinstance(id_column, str | int) or str(id_column) == "":
        problems.append(f"{shown}: field 'id_column': expected the name of the respondent id column, got {id_column!r}")
    missing = raw.get("missing", [])
    if not isinstance(missing, list):
        problems.append(f"{shown}: field 'missing': expected a list of cell values, got {missing!r}")
        missing = []
    demographics, lines = _demographics(raw.get("demographics"), node, shown, problems)
    items = []
    seen: dict[str, int] = {}
    subclasses = [c.id for c in taxonomy.subclasses]
    for row in list_rows(raw, node, "items", shown):
        item = _item(row, shown, subclasses, problems, seen)
        if item is not None:
            items.append(item)
            lines[f"item {item.code}"] = f"{at(shown, row.line)} items[{row.index - 1}]"
    if not items and not problems:
        problems.append(f"{shown}: field 'items': expected at least one item row")
    raise_if(problems)
    return SurveyMapping(shown, str(raw.get("survey", "")), str(id_column),
                         frozenset(normalise_cell(m) for m in missing), tuple(demographics), tuple(items), lines)


def _key_lines(node: Any, key: str) -> dict[str, int]:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if k.value == key and isinstance(v, yaml.MappingNode):
                return {str(kk.value): kk.start_mark.line + 1 for kk, _ in v.value}
    return {}


def _demographics(raw: Any, node: Any, shown: str, problems: list[str]) -> tuple[list[DemographicMap], dict[str, str]]:
    if not isinstance(raw, dict) or not raw:
        problems.append(f"{shown}: field 'demographics': expected a mapping of demographic name -> "
                        "{column, kind}")
        return [], {}
    key_lines = _key_lines(node, "demographics")
    out, lines = [], {}
    for name, spec in raw.items():
        where = f"{at(shown, key_lines.get(str(name), 0))}: demographics.{name}"
        if not isinstance(spec, dict):
            problems.append(f"{where}: expected a mapping with column and kind, got {spec!r}")
            continue
        extra = [k for k in spec if k not in DEMOGRAPHIC_FIELDS]
        column, kind = spec.get("column"), spec.get("kind")
        if extra:
            problems.append(f"{where}: field '{extra[0]}': unknown field{hint(extra[0], DEMOGRAPHIC_FIELDS)}")
        elif not isinstance(column, str | int) or str(column) == "":
            problems.append(f"{where}: field 'column': expected a column name, got {column!r}")
        elif kind not in KINDS:
            problems.append(f"{where}: field 'kind': expected one of {', '.join(KINDS)}, got {kind!r}"
                            f"{hint(kind, KINDS)}")
        elif kind == "ordinal" and not (isinstance(spec.get("levels"), list) and len(spec["levels"]) >= 2):
            problems.append(f"{where}: field 'levels': expected the ordered levels (a list of 2 or more), got "
                            f"{spec.get('levels')!r}")
        elif "range" in spec and not _is_range(spec["range"]):
            problems.append(f"{where}: field 'range': expected [low, high] with low < high, got {spec['range']!r}")
        elif "values" in spec and not isinstance(spec["values"], dict):
            problems.append(f"{where}: field 'values': expected a mapping raw code -> value, got {spec['values']!r}")
        else:
            values = {normalise_cell(k): str(v) for k, v in spec["values"].items()} if "values" in spec else None
            rng = (float(spec["range"][0]), float(spec["range"][1])) if "range" in spec else None
            levels = tuple(str(v) for v in spec.get("levels") or ())
            weight = float(spec.get("weight", 1.0))
            out.append(DemographicMap(str(name), str(column), kind, rng, levels, values, weight))
            lines[f"demographic {name}"] = where
    return out, lines


def _is_range(value: Any) -> bool:
    return (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int | float) for v in value)
            and value[0] < value[1])


def _item(row: Any, shown: str, subclasses: list[str], problems: list[str], seen: dict[str, int]) -> ItemMap | None:
    d, where = row.data, row_where(shown, row, "code")
    extra = [k for k in d if k not in ITEM_FIELDS]
    code, cid, key, choices = d.get("code"), d.get("class"), d.get("key", 1), d.get("choices", ["yes", "no"])
    if extra:
        problems.append(f"{where}: field '{extra[0]}': unknown field{hint(extra[0], ITEM_FIELDS)}; expected "
                        f"{', '.join(ITEM_FIELDS)}")
        return None
    if not isinstance(code, str | int) or str(code) == "":
        problems.append(f"{where}: field 'code': expected an item code, got {code!r}")
        return None
    if str(code) in seen:
        problems.append(f"{where}: field 'code': expected a unique code, got {code!r} (also row {seen[str(code)]})")
        return None
    seen[str(code)] = row.index
    if cid not in subclasses:
        problems.append(f"{where}: field 'class': expected a taxonomy subclass id, got {cid!r}{hint(cid, subclasses)}")
        return None
    try:
        rule = parse_rule(d.get("rule"))
    except ValueError as exc:
        problems.append(f"{where}: field 'rule': {exc}")
        return None
    if key not in (1, -1):
        problems.append(f"{where}: field 'key': expected 1 or -1, got {key!r}")
        return None
    if not (isinstance(choices, list) and len(choices) == 2 and all(isinstance(c, str) and c.strip() for c in choices)
            and choices[0].strip().casefold() != choices[1].strip().casefold()):
        quote = " (quote yes/no: YAML reads them as booleans)" if isinstance(choices, list) and any(
            isinstance(c, bool) for c in choices) else ""
        problems.append(f"{where}: field 'choices': expected two different choice texts, got {choices!r}{quote}")
        return None
    text = d.get("text") or f"Item {code}"
    return ItemMap(str(code), str(d.get("column") or code), str(cid), rule, int(key), str(text),
                   (choices[0].strip(), choices[1].strip()))


def mapping_for(survey: SurveyData, name: str = "", id_column: str = "respondent_id") -> dict[str, Any]:
    """A mapping (as a YAML-ready dict) that reads ``survey.to_csv()`` back: items as ``== 1`` rules."""
    demographics: dict[str, Any] = {}
    for f in survey.schema:
        spec: dict[str, Any] = {"column": f.name, "kind": f.kind}
        if f.range is not None:
            spec["range"] = [f.range[0], f.range[1]]
        if f.levels:
            spec["levels"] = list(f.levels)
        if f.weight != 1.0:
            spec["weight"] = f.weight
        demographics[f.name] = spec
    items = [{"code": i.code, "class": i.class_id, "rule": "== 1", "key": i.key, "text": i.text,
              "choices": list(i.choices)} for i in survey.items.values()]
    return {"survey": name or survey.source, "id_column": id_column, "missing": [""], "demographics": demographics,
            "items": items}


def write_mapping(mapping: dict[str, Any], path: str | Path) -> None:
    """Write a mapping dict as YAML (one flow-style line per item)."""
    head = {k: v for k, v in mapping.items() if k != "items"}
    text = yaml.safe_dump(head, sort_keys=False, allow_unicode=True, default_flow_style=None, width=120)
    rows = "".join("  - " + yaml.safe_dump(i, sort_keys=False, allow_unicode=True, default_flow_style=True,
                                           width=10_000).strip() + "\n" for i in mapping["items"])
    Path(path).write_text(text + "items:\n" + rows, encoding="utf-8")
