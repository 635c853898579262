"""Metrics per group of samples: one group per value of a metadata field (suite.yaml ``group_by``).

A grouped metric is stored in ``results.json`` beside the overall ones, under the overall name with the
group appended: ``match/accuracy[level=2]``, ``match/pass@2[tools=ocr]``. A sample belongs to the group of
its field's value; a list-valued field (``tools: [ocr, translate]``) puts it in every group it lists, and
a missing, null or empty value in none. ``split_metrics`` and ``group_tables`` turn the flat names back
into one table per field (rows: the field's values; columns: the grouped metrics) for the terminal and
the HTML report.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from paperworks.eval.figures import format_metric

_GROUPED = re.compile(r"^(?P<metric>[^\[\]]+)\[(?P<field>[^\[\]=]+)=(?P<label>.*)\]$", re.DOTALL)


def group_key(metric: str, field: str, label: str) -> str:
    """``match/accuracy``, ``level``, ``2`` → ``match/accuracy[level=2]``."""
    return f"{metric}[{field}={label}]"


def parse_group_key(name: str) -> tuple[str, str, str] | None:
    """``match/accuracy[level=2]`` → (``match/accuracy``, ``level``, ``2``); None for an overall metric."""
    found = _GROUPED.match(name)
    return (found["metric"], found["field"], found["label"]) if found else None


def _label(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def is_groupable(value: Any) -> bool:
    """True for what ``group_by`` can split on: null, a string, number or boolean, or a list of them."""
    scalar = (str, int, float, bool, type(None))
    return isinstance(value, scalar) or (isinstance(value, list) and all(isinstance(v, scalar) for v in value))


def labels_of(value: Any) -> list[str]:
    """The groups a metadata value puts its sample in: ``2`` → [``2``], ``[ocr, ocr, archive_search]`` →
    [``ocr``, ``archive_search``], null or ``[]`` → none. Booleans read ``true``/``false``."""
    items = value if isinstance(value, list | tuple) else [value]
    return list(dict.fromkeys(_label(v) for v in items if v is not None))


def label_order(label: str) -> tuple[int, float, str]:
    """Sort key of group labels: numbers first, in numeric order, then the rest alphabetically."""
    try:
        return (0, float(label), label)
    except ValueError:
        return (1, 0.0, label)


def metric_order(name: str) -> tuple[int, str, tuple[int, float, str], str]:
    """Sort key of metric names: the overall metrics by name, then the grouped ones by field, group
    label (numbers in numeric order) and metric."""
    parsed = parse_group_key(name)
    if parsed is None:
        return (0, "", (0, 0.0, ""), name)
    metric, field, label = parsed
    return (1, field, label_order(label), metric)


def split_metrics(metrics: dict[str, dict[str, Any]]) -> tuple[dict[str, dict[str, Any]],
                                                                 dict[str, dict[str, dict[str, dict[str, Any]]]]]:
    """(overall metrics, grouped ones as ``{field: {label: {metric: Metric dict}}}``): the overall ones and
    the fields in their given order, a field's labels in ``label_order``."""
    plain: dict[str, dict[str, Any]] = {}
    grouped: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
    for name, m in metrics.items():
        parsed = parse_group_key(name)
        if parsed is None:
            plain[name] = m
        else:
            metric, field, label = parsed
            grouped.setdefault(field, {}).setdefault(label, {})[metric] = m
    return plain, {field: dict(sorted(by_label.items(), key=lambda item: label_order(item[0])))
                   for field, by_label in grouped.items()}




def group_tables(metrics: dict[str, dict[str, Any]]) -> list[tuple[str, list[str], list[list[str]]]]:
    """One table per grouped field: (field, header, rows). The header is the field, ``n`` (samples in
    the group) and each grouped metric; a cell reads ``0.500 ± 0.289``."""
    out = []
    for field, by_label in split_metrics(metrics)[1].items():
        names = list(dict.fromkeys(n for group in by_label.values() for n in _metric_order(group)))
        rows = []
        for label, group in by_label.items():
            n = max((int(m.get("n") or 0) for m in group.values()), default=0)
            rows.append([label, str(n), *(format_metric(name, group.get(name)) for name in names)])
        out.append((field, [field, "n", *names], rows))
    return out


def _metric_order(group: dict[str, Any]) -> Iterable[str]:
    """A group's metrics: per scorer, accuracy first, then pass@k by k."""
    def key(name: str) -> tuple[str, int, int]:
        scorer, _, tail = name.rpartition("/")
        k = tail[5:]
        return (scorer, 0 if tail == "accuracy" else 1, int(k) if tail.startswith("pass@") and k.isdigit() else 0)

    return sorted(group, key=key)
