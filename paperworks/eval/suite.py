"""Benchmark suites: ``evals/<suite>/suite.yaml`` plus JSONL data, loaded into ``Sample``s.

A suite names its workflow, its data files, how a row maps to the workflow's input and target, its
scorers, metrics, epochs and per-sample limits (schema: ``paperworks.eval.suite_spec.SuiteSpec``).
Everything is checked at load time, and each problem is one ``UserError`` line naming the file, the
line, the field and what was expected, e.g. ``evals/x/data.jsonl:12: invalid JSON (...)``.

Input templates are ``str.format`` templates over a row's columns: ``"Q: {question}"`` renders text,
a bare ``"{col}"`` keeps the column's JSON type, and a non-string value is passed as a constant.
"""

from __future__ import annotations

import dataclasses
import json
import re
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from paperworks.core.errors import UserError, one_line
from paperworks.eval.groups import is_groupable
from paperworks.eval.records import Sample
from paperworks.eval.suite_paths import SUITE_FILE, display_path, evals_dirs, find_suite, suite_folders
from paperworks.eval.suite_spec import (
    ScorerSpec,
    SuiteLimits,
    SuiteSpec,
    YamlLines,
    json_type,
    read_suite_yaml,
    show_value,
    validate_spec,
)
from paperworks.workflows.registry import WorkflowSpec, get_workflow

__all__ = ["ScorerSpec", "Suite", "SuiteLimits", "SuiteSpec", "evals_dirs", "find_suite", "list_suites",
           "load_suite"]

_BARE_FIELD = re.compile(r"^\{([^{}!:]+)\}$")
_FORMATTER = string.Formatter()


@dataclass
class Suite:
    """A loaded suite: its validated spec, its folder and its samples in file order."""

    spec: SuiteSpec
    folder: Path
    samples: list[Sample]

    @property
    def name(self) -> str:
        """The suite's name (its folder's name)."""
        return self.spec.name

    def select(self, limit: int | list[int] | tuple[int, int] | None = None,
               sample_ids: list[str] | None = None) -> list[Sample]:
        """The samples to run: those in ``sample_ids`` (suite order), then the first ``limit`` of them, or with
        ``limit = (A, B)`` the A-th to the B-th of them (counted from 1, both included, as Inspect's)."""
        chosen = self.samples
        if sample_ids:
            known = {s.id for s in self.samples}
            unknown = [i for i in dict.fromkeys(sample_ids) if i not in known]
            if unknown:
                example = f" (ids look like '{self.samples[0].id}')" if self.samples else ""
                raise UserError(f"suite '{self.name}' has no sample {', '.join(repr(i) for i in unknown)}"
                                f"{example}")
            wanted = set(sample_ids)
            chosen = [s for s in chosen if s.id in wanted]
        if isinstance(limit, (list, tuple)):
            start, end = int(limit[0]), int(limit[1])
            if start < 1 or end < start:
                raise UserError(f"--limit {start}-{end}: expected a range A-B with 1 <= A <= B")
            if start > len(chosen):
                raise UserError(f"--limit {start}-{end}: suite '{self.name}' has only {len(chosen)} "
                                f"{'selected ' if sample_ids else ''}samples")
            chosen = chosen[start - 1:end]
        elif limit is not None:
            if limit < 1:
                raise UserError(f"limit must be >= 1, got {limit}")
            chosen = chosen[:limit]
        return list(chosen)


def load_suite(name_or_path: str) -> Suite:
    """Load and check a suite and all its data rows; a one-line ``UserError`` at the first problem."""
    folder = find_suite(name_or_path)
    spec_file = folder / SUITE_FILE
    shown = display_path(spec_file)
    raw, lines = read_suite_yaml(_read_text(spec_file, shown), shown)
    spec = validate_spec(raw, lines, shown)
    workflow = _check_spec(spec, folder, lines, shown)
    templates = {key: _Template(value) for key, value in spec.input.items()}
    samples: list[Sample] = []
    first_at: dict[str, str] = {}
    for index, name in enumerate(spec.data):
        path = folder / name
        if not path.is_file():
            raise UserError(f"{lines.where(shown, ('data', index))}: field 'data': data file '{name}' does not exist")
        samples.extend(_load_rows(path, spec, templates, workflow, first_at))
    _check_scorers(spec, workflow, samples, lines, shown)
    return Suite(spec=spec, folder=folder, samples=samples)


def _check_scorers(spec: SuiteSpec, workflow: WorkflowSpec, samples: list[Sample], lines: YamlLines,
                   shown: str) -> None:
    """Every scorer exists, takes its arguments and can use every row's target (e.g. ``numeric`` needs
    numbers): the first problem is one line naming suite.yaml's line or the data row."""
    from paperworks.eval.scorers import get_scorer

    for index, scorer_spec in enumerate(spec.scorers):
        where = lines.where(shown, ("scorers", index))
        try:
            scorer = get_scorer(scorer_spec.name, workflow.scorers)
            scorer.check_args(scorer_spec.args or {})
        except UserError as exc:
            raise UserError(f"{where}: field 'scorers[{index}]': {exc}") from exc
        for sample in samples:
            scorer.check_sample(sample, scorer_spec.args or {})


def unavailable_scorers(suite: Suite) -> dict[str, str]:
    """The suite's scorers that cannot run on this machine, name → why (see ``Scorer.available``)."""
    from paperworks.eval.scorers import get_scorer

    workflow = get_workflow(suite.spec.workflow)
    out: dict[str, str] = {}
    for scorer_spec in suite.spec.scorers:
        reason = get_scorer(scorer_spec.name, workflow.scorers).unavailable()
        if reason:
            out[scorer_spec.name] = reason
    return out


def without_scorers(suite: Suite, names: set[str] | list[str]) -> Suite:
    """``suite`` scored without the named scorers (the ones this machine cannot run)."""
    drop = set(names)
    if not drop:
        return suite
    spec = suite.spec.model_copy(update={"scorers": [s for s in suite.spec.scorers if s.name not in drop]})
    return dataclasses.replace(suite, spec=spec)


def list_suites() -> list[tuple[str, Suite | str]]:
    """Every suite found by name, sorted: the loaded ``Suite``, or the one-line error of a malformed one."""
    out: list[tuple[str, Suite | str]] = []
    for name, folder in sorted(suite_folders().items()):
        try:
            out.append((name, load_suite(str(folder))))
        except Exception as exc:  # a listing shows every suite, broken ones included
            out.append((name, one_line(exc)))
    return out


def _read_text(path: Path, shown: str) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserError(f"{shown}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise UserError(f"{shown}: cannot read ({exc.strerror or one_line(exc)})") from exc


def _check_spec(spec: SuiteSpec, folder: Path, lines: YamlLines, shown: str) -> WorkflowSpec:
    """Checks beyond the schema: the name, the workflow, its settings and input fields, the templates."""
    if spec.name != folder.name:
        raise UserError(f"{lines.where(shown, ('name',))}: field 'name': expected the folder name "
                        f"'{folder.name}', got {show_value(spec.name)}")
    try:
        workflow = get_workflow(spec.workflow)
    except UserError as exc:
        raise UserError(f"{lines.where(shown, ('workflow',))}: field 'workflow': {exc}") from exc
    try:
        workflow.parse_config(spec.config)
    except UserError as exc:
        raise UserError(f"{lines.where(shown, ('config',))}: field 'config': {exc}") from exc
    fields = workflow.input_model.model_fields
    if workflow.input_model.model_config.get("extra") != "allow":
        for key in spec.input:
            if key not in fields:
                raise UserError(f"{lines.where(shown, ('input', key))}: field 'input.{key}': workflow "
                                f"'{workflow.name}' has no input field '{key}' (its fields: {', '.join(fields)})")
    missing = [n for n, f in fields.items() if f.is_required() and n not in spec.input]
    if missing:
        raise UserError(f"{lines.where(shown, ('input',))}: field 'input': expected a template for the "
                        f"workflow's required input field(s) {', '.join(repr(m) for m in missing)}")
    for key, value in spec.input.items():
        problem = _Template.problem(value)
        if problem:
            raise UserError(f"{lines.where(shown, ('input', key))}: field 'input.{key}': {problem}")
    return workflow


class _Template:
    """One input field's mapping: a constant, a bare ``{col}`` (type kept) or a ``str.format`` template."""

    def __init__(self, value: Any) -> None:
        self.value = value
        self.fields: list[str] = []
        self.bare: str | None = None
        if isinstance(value, str):
            match = _BARE_FIELD.match(value)
            self.bare = match.group(1) if match else None
            self.fields = [f for _, f, _, _ in _FORMATTER.parse(value) if f is not None]

    @staticmethod
    def problem(value: Any) -> str | None:
        """Why ``value`` is not a usable template (None when it is)."""
        if not isinstance(value, str):
            return None
        try:
            names = [f for _, f, _, _ in _FORMATTER.parse(value) if f is not None]
        except ValueError as exc:
            return f"invalid template {show_value(value)} ({exc}; write '{{{{' for a literal brace)"
        if any(n == "" or _base(n).isdigit() for n in names):
            return f"template {show_value(value)} has a positional field; expected column names like '{{question}}'"
        return None

    def render(self, row: dict[str, Any], where: str) -> Any:
        """The input value for ``row``; a one-line error naming a column the row lacks."""
        if not isinstance(self.value, str):
            return self.value
        for name in self.fields:
            if _base(name) not in row:
                raise UserError(f"{where}: input template {show_value(self.value)} needs field "
                                f"'{_base(name)}', which the row lacks")
        try:
            if self.bare is not None:
                return _FORMATTER.get_field(self.bare, (), row)[0]
            return self.value.format_map(row)
        except (KeyError, IndexError, AttributeError, TypeError, ValueError) as exc:
            raise UserError(f"{where}: input template {show_value(self.value)} failed on this row "
                            f"({one_line(exc)})") from exc


def _base(field_name: str) -> str:
    """``'a.b[0]'`` → ``'a'``: the column a template field reads."""
    return re.split(r"[.\[]", field_name, maxsplit=1)[0]


def _load_rows(path: Path, spec: SuiteSpec, templates: dict[str, _Template], workflow: WorkflowSpec,
               first_at: dict[str, str]) -> list[Sample]:
    shown = display_path(path)
    samples: list[Sample] = []
    for lineno, line in enumerate(_read_text(path, shown).split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{shown}:{lineno}"
        try:
            row = json.loads(line, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            raise UserError(f"{where}: invalid JSON ({exc.msg} at column {exc.colno})") from exc
        except RecursionError as exc:
            raise UserError(f"{where}: invalid JSON (nested too deeply)") from exc
        except ValueError as exc:  # NaN/Infinity, or an integer too long to convert
            raise UserError(f"{where}: invalid JSON ({' '.join(str(exc).split())[:160]})") from exc
        if not isinstance(row, dict):
            raise UserError(f"{where}: expected a JSON object, got {json_type(row)}")
        _check_unicode(row, where)
        sample_id = _sample_id(row, spec.id_field, path, lineno, where)
        if sample_id in first_at:
            first = first_at[sample_id]
            at = f"line {first.rsplit(':', 1)[1]}" if first.rsplit(":", 1)[0] == shown else first
            raise UserError(f"{where}: duplicate sample id '{sample_id}' (first at {at})")
        first_at[sample_id] = where
        inputs = {key: t.render(row, where) for key, t in templates.items()}
        workflow.parse_input(inputs, where=where)
        target = None
        if spec.target is not None:
            if row.get(spec.target) is None:
                state = "lacks" if spec.target not in row else "has null in"
                raise UserError(f"{where}: the row {state} the target column '{spec.target}'")
            target = row[spec.target]
        for column in spec.metadata:
            if column not in row:
                raise UserError(f"{where}: the row lacks the metadata column '{column}'")
        metadata = {column: row[column] for column in spec.metadata}
        for column in spec.group_by:
            if not is_groupable(metadata[column]):
                raise UserError(f"{where}: metadata column '{column}' (in group_by): expected a string, number, "
                                f"boolean or a list of them, got {show_value(metadata[column])}")
        samples.append(Sample(id=sample_id, input=inputs, target=target, metadata=metadata, source=where))
    if not samples:
        raise UserError(f"{shown}: no rows (the file is empty; expected one JSON object per line)")
    return samples


def _check_unicode(row: dict[str, Any], where: str) -> None:
    """A ``\\ud800``-style escape decodes to a lone UTF-16 surrogate, which no UTF-8 file can hold: such a
    row would fail when its record is written, mid-run. It is refused here, naming the text."""
    try:
        json.dumps(row, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start:exc.end] if isinstance(exc.object, str) else ""
        raise UserError(f"{where}: invalid JSON (a lone UTF-16 surrogate {bad.encode('unicode_escape').decode()!s}"
                        " is not a character)") from exc


def _no_constant(name: str) -> Any:
    """``NaN``, ``Infinity`` and ``-Infinity`` are not JSON: a row holding one is refused (a NaN target
    would silently fail every answer)."""
    raise ValueError(f"{name} is not a JSON value")


def _sample_id(row: dict[str, Any], id_field: str | None, path: Path, lineno: int, where: str) -> str:
    if id_field is None:
        return f"{path.stem}-{lineno}"
    if id_field not in row:
        raise UserError(f"{where}: the row lacks the id field '{id_field}'")
    value = row[id_field]
    if isinstance(value, bool) or not isinstance(value, str | int) or str(value).strip() == "":
        raise UserError(f"{where}: field '{id_field}': expected a non-empty string or integer id, "
                        f"got {show_value(value)}")
    return str(value)


DATA_SUITES = {"histbench": "paperworks.eval.histbench:histbench_suite"}
"""Suites built from a user's own data file (``eval NAME --data PATH``), not shipped with paperworks."""


def open_suite(name_or_path: str, data: str | None = None, attachments: str | None = None) -> Suite:
    """``load_suite``, or, for a suite in :data:`DATA_SUITES`, the suite built from the user's ``data`` file
    (``attachments``: its attachment folder). One-line ``UserError`` when the two don't go together."""
    if name_or_path in DATA_SUITES:
        if not data:
            raise UserError(f"suite '{name_or_path}' is built from your copy of its data: pass --data PATH")
        import importlib

        module, _, func = DATA_SUITES[name_or_path].partition(":")
        return cast(Suite, getattr(importlib.import_module(module), func)(data, attachments=attachments))
    if data or attachments:
        raise UserError(f"--data/--attachments are only for {', '.join(sorted(DATA_SUITES))}, not '{name_or_path}'")
    return load_suite(name_or_path)
