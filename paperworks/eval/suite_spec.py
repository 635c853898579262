"""The ``suite.yaml`` schema, and one-line messages for what is wrong with one.

``read_suite_yaml`` parses the file keeping each field's line (YAML nodes carry marks) and
``validate_spec`` turns pydantic's errors into ``path:line: field 'x': expected ..., got ...``.
The loader that reads the data rows is ``paperworks.eval.suite``.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic.fields import FieldInfo

from paperworks.core.errors import UserError

Loc = tuple[str | int, ...]


def _field(default: Any = ..., *, expected: str, doc: str, **kw: Any) -> Any:
    """A pydantic field whose ``expected`` text is what an error message says was wanted."""
    return Field(default, description=doc, json_schema_extra={"expected": expected}, **kw)


def _as_list(value: Any) -> Any:
    return [value] if isinstance(value, str | dict) else value


class ScorerSpec(BaseModel):
    """One scorer of a suite: a scorer-registry name and its arguments."""

    model_config = ConfigDict(extra="forbid")

    name: str = _field(expected="a scorer name such as 'numeric'", min_length=1,
                       doc="Name in the scorer registry (match, numeric, judge, or a workflow's own).")
    args: dict[str, Any] = _field({}, expected="a mapping of scorer arguments",
                                  doc="Keyword arguments of the scorer, e.g. {rel_tol: 1.0e-6}.")


class SuiteLimits(BaseModel):
    """Per-sample default limits; ``null`` (or leaving one out) means unlimited."""

    model_config = ConfigDict(extra="forbid")

    time_s: float | None = _field(None, expected="a number of seconds > 0 (or null)", gt=0,
                                  doc="Wall-clock seconds per sample.")
    working_time_s: float | None = _field(None, expected="a number of seconds > 0 (or null)", gt=0,
                                          doc="Working seconds per sample: wall time minus time queued "
                                          "for the model.")
    tokens: int | None = _field(None, expected="an integer > 0 (or null)", gt=0, strict=True,
                                doc="Prompt + completion tokens per sample.")
    cost: float | None = _field(None, expected="a dollar amount > 0 (or null)", gt=0,
                                doc="US dollars per sample.")


class SuiteSpec(BaseModel):
    """The contents of ``evals/<suite>/suite.yaml``."""

    model_config = ConfigDict(extra="forbid")

    name: str = _field(expected="the suite's name (its folder name)", min_length=1,
                       doc="The suite's name; must equal its folder's name.")
    version: str = _field("1", expected="a version string such as \"1.0\"",
                          doc="Version of the suite's data, recorded in run.json.")
    description: str = _field("", expected="a one-line description", doc="What the suite measures.")
    workflow: str = _field(expected="a workflow name such as 'agent'", min_length=1,
                           doc="The workflow every sample runs (a name from the workflow registry).")
    data: list[str] = _field(expected="a JSONL file name or a list of them", min_length=1,
                             doc="JSONL files, relative to the suite folder; one JSON object per line.")
    id_field: str | None = _field(None, expected="a column name",
                                  doc="Column holding each row's id (default: '<file stem>-<line>').")
    input: dict[str, Any] = _field(expected="a mapping of workflow input fields to templates such as "
                                   "\"{question}\"", min_length=1,
                                   doc="Workflow input field -> str.format template over the row's columns; "
                                   "a bare \"{col}\" keeps the column's type; a non-string is a constant.")
    target: str | None = _field(None, expected="a column name",
                                doc="Column holding the target (optional for judge-only suites).")
    metadata: list[str] = _field([], expected="a list of column names",
                                 doc="Columns kept in each sample's metadata.")
    group_by: list[str] = _field([], expected="a list of metadata column names such as [level, tools]",
                                 doc="Metadata columns whose values split each graded scorer's accuracy and "
                                 "pass@k into groups (``match/accuracy[level=2]``); a list-valued column puts a "
                                 "sample in every group it lists.")
    scorers: list[ScorerSpec] = _field(expected="a scorer name or a list of scorers ({name, args})",
                                       min_length=1, doc="Scorers applied to every sample's output.")
    answer_field: str = _field("answer", expected="a field name of the workflow's output",
                               doc="Which field of the workflow's output is the answer.")
    metrics: list[str] = _field(["accuracy"], expected="a list of metric names",
                                doc="Metric names for the metrics module (accuracy, stderr, pass@k, mean ...).")
    epochs: int = _field(1, expected="an integer >= 1", ge=1, strict=True,
                         doc="Default number of times each sample runs.")
    limits: SuiteLimits = _field(SuiteLimits(), expected="a mapping with time_s, tokens and cost",
                                 doc="Per-sample default limits.")
    config: dict[str, Any] = _field({}, expected="a mapping of workflow settings",
                                    doc="Workflow settings, validated by the workflow's config model.")
    generation: dict[str, Any] = _field({}, expected="a mapping of generation settings (temperature, "
                                        "max_tokens ...)", doc="Generation settings for the model's calls.")

    @field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value

    @field_validator("data", "metadata", "group_by", "metrics", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("group_by")
    @classmethod
    def _metadata_columns(cls, names: list[str], info: ValidationInfo) -> list[str]:
        if "metadata" not in info.data:  # metadata itself is wrong: that error is reported
            return names
        kept: list[str] = info.data["metadata"]
        for name in names:
            if name not in kept:
                close = difflib.get_close_matches(name, kept, n=1, cutoff=0.6)
                hint = f"did you mean '{close[0]}'?" if close else \
                    f"metadata: {', '.join(kept)}" if kept else "metadata lists none"
                raise ValueError(f"'{name}' is not a metadata column; group_by names columns kept under "
                                 f"metadata ({hint})")
            if any(c in name for c in "[]="):
                raise ValueError(f"'{name}': a group_by column's name cannot contain '[', ']' or '='")
        if len(set(names)) < len(names):
            twice = next(n for n in names if names.count(n) > 1)
            raise ValueError(f"'{twice}' is listed twice")
        return names

    @field_validator("scorers", mode="before")
    @classmethod
    def _scorer_names(cls, value: Any) -> Any:
        value = _as_list(value)
        if isinstance(value, list):
            return [{"name": item} if isinstance(item, str) else item for item in value]
        return value

    @field_validator("limits", "config", "generation", mode="before")
    @classmethod
    def _null_is_empty(cls, value: Any) -> Any:
        return {} if value is None else value


_SUBMODELS: dict[str, type[BaseModel]] = {"scorers": ScorerSpec, "limits": SuiteLimits}


class YamlLines:
    """Line numbers (1-based) of the fields of a YAML document, by field path."""

    def __init__(self, lines: dict[Loc, int]) -> None:
        self.lines = lines

    def line(self, loc: Loc) -> int | None:
        """The line of the deepest field along ``loc`` that the file has (None: not even the first)."""
        for end in range(len(loc), 0, -1):
            if loc[:end] in self.lines:
                return self.lines[loc[:end]]
        return None

    def where(self, shown: str, loc: Loc = ()) -> str:
        """``file:line`` for the field at ``loc`` (``file`` alone when no line is known)."""
        line = self.line(loc)
        return f"{shown}:{line}" if line else shown


def field_path(loc: Loc) -> str:
    """``('scorers', 0, 'args')`` → ``scorers[0].args``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def show_value(value: Any, limit: int = 60) -> str:
    """A short, JSON-like rendering of a value for 'got ...' in a message."""
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, default=str, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def json_type(value: Any) -> str:
    """The JSON name of a value's type, with an article: 'an array', 'a string' ..."""
    names = [(bool, "a boolean"), (int | float, "a number"), (str, "a string"), (list, "an array"),
             (dict, "an object")]
    return next((name for kind, name in names if isinstance(value, kind)), "null")


def _collect_lines(node: yaml.Node, path: Loc, lines: dict[Loc, int], shown: str) -> None:
    if isinstance(node, yaml.MappingNode):
        first: dict[str, int] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value)
            line = key_node.start_mark.line + 1
            if key in first:
                raise UserError(f"{shown}:{line}: duplicate field '{field_path((*path, key))}' "
                                f"(first at line {first[key]})")
            first[key] = lines[(*path, key)] = line
            _collect_lines(value_node, (*path, key), lines, shown)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            lines[(*path, index)] = item.start_mark.line + 1
            _collect_lines(item, (*path, index), lines, shown)


def read_suite_yaml(text: str, shown: str) -> tuple[dict[str, Any], YamlLines]:
    """Parse suite.yaml text into a mapping and the lines of its fields; one-line errors otherwise."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        raw = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(str(exc.problem or exc.context or "syntax error").split())
        at = f"{shown}:{mark.line + 1}" if mark else shown
        column = f" at column {mark.column + 1}" if mark else ""
        raise UserError(f"{at}: invalid YAML ({problem}{column})") from exc
    except yaml.YAMLError as exc:
        raise UserError(f"{shown}: invalid YAML ({' '.join(str(exc).split())})") from exc
    if raw is None:
        raise UserError(f"{shown}: the file is empty (expected a mapping with name, workflow, data, input, "
                        "scorers ...)")
    if not isinstance(raw, dict):
        raise UserError(f"{shown}: expected a mapping of fields (name, workflow, data ...), got "
                        f"{json_type(raw)}")
    lines: dict[Loc, int] = {}
    if node is not None:
        _collect_lines(node, (), lines, shown)
    return raw, YamlLines(lines)


def _model_at(loc: Loc) -> type[BaseModel] | None:
    """The model whose fields sit under ``loc`` (``SuiteSpec`` at the top; None inside a free mapping)."""
    model: type[BaseModel] | None = SuiteSpec
    for part in (p for p in loc if isinstance(p, str)):
        model = _SUBMODELS.get(part) if model is SuiteSpec else None
        if model is None:
            return None
    return model


def _field_info(loc: Loc) -> FieldInfo | None:
    """The schema field that ``loc`` points at, or into (a list item, a key of a free mapping)."""
    names = tuple(p for p in loc if isinstance(p, str))
    for end in range(len(names), 0, -1):
        model = _model_at(names[: end - 1])
        if model is not None and names[end - 1] in model.model_fields:
            return model.model_fields[names[end - 1]]
    return None


def explain_error(err: Any) -> str:
    """One pydantic error as ``field 'x': expected ..., got ...`` (or an unknown/missing field)."""
    loc: Loc = tuple(err["loc"])
    path, kind = field_path(loc), err["type"]
    if kind == "extra_forbidden":
        model = _model_at(loc[:-1])
        known = list(model.model_fields) if model else []
        close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'?" if close else f"known: {', '.join(known)}"
        return f"unknown field '{path}' ({hint})"
    info = _field_info(loc)
    extra = info.json_schema_extra if info is not None else None
    expected = extra.get("expected") if isinstance(extra, dict) else None
    if kind == "missing":
        return f"missing field '{path}'" + (f" (expected {expected})" if expected else "")
    if kind == "value_error":
        return f"field '{path}': {err.get('ctx', {}).get('error', err['msg'])}"
    if expected:
        return f"field '{path}': expected {expected}, got {show_value(err.get('input'))}"
    return f"field '{path}': {err['msg']}"


def validate_spec(raw: dict[str, Any], lines: YamlLines, shown: str) -> SuiteSpec:
    """Validate the parsed mapping; the first problem becomes a one-line ``UserError``."""
    try:
        return SuiteSpec.model_validate(raw)
    except ValidationError as exc:
        errors = exc.errors()  # an unknown field first: a typo there is why another field is "missing"
        err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        raise UserError(f"{lines.where(shown, tuple(err['loc']))}: {explain_error(err)}") from exc
