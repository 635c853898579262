"""Read a survey file a user has (WVS/EVS/GSS-style microdata: one row per respondent, an id column,
demographic columns, item columns) into ``SurveyData`` through a mapping file
(``paperworks.tools.values.mapping``).

Formats: ``.csv``/``.tsv``/``.txt`` (delimiter sniffed among , ; tab |; stdlib only), Stata ``.dta``
(pandas) and SPSS ``.sav``/``.zsav``/``.por`` (pandas + pyreadstat). Codes are read raw (value labels are
not applied), so rules and recodes name the codes of the questionnaire. Every problem is one line: a
column the mapping names that the file lacks, a duplicate id, a non-numeric value in a numeric
demographic, a value outside an ordinal's levels or a recode's codes.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from paperworks.core.errors import MissingDependencyError
from paperworks.tools.values.errors import ValuesDataError, raise_if
from paperworks.tools.values.mapping import DemographicMap, SurveyMapping, load_mapping, normalise_cell
from paperworks.tools.values.survey import DemographicField, ItemSpec, Respondent, SurveyData
from paperworks.tools.values.taxonomy import Taxonomy

CSV_SUFFIXES = (".csv", ".tsv", ".txt")
STATA_SUFFIXES = (".dta",)
SPSS_SUFFIXES = (".sav", ".zsav", ".por")


def read_table(path: str | Path) -> tuple[list[str], list[list[Any]]]:
    """A survey file's header and rows (cells as read: strings for CSV, Python values for Stata/SPSS)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if not path.is_file():
        raise ValuesDataError([f"{path}: no such file"])
    if suffix in CSV_SUFFIXES:
        return _read_csv(path)
    if suffix in STATA_SUFFIXES + SPSS_SUFFIXES:
        return _read_pandas(path, suffix)
    raise ValuesDataError([f"{path}: unknown survey file type '{suffix}' (expected "
                           f"{', '.join(CSV_SUFFIXES + STATA_SUFFIXES + SPSS_SUFFIXES)})"])


def _read_csv(path: Path) -> tuple[list[str], list[list[Any]]]:
    with open(path, newline="", encoding="utf-8-sig") as fh:
        sample = fh.read(65536)
        fh.seek(0)
        try:
            dialect: Any = csv.Sniffer().sniff(sample.splitlines()[0] if sample else ",", delimiters=",;\t|")
        except csv.Error:
            dialect = csv.excel
        rows = list(csv.reader(fh, dialect))
    if not rows:
        raise ValuesDataError([f"{path}: the file is empty (expected a header row)"])
    return [h.strip() for h in rows[0]], rows[1:]


def _read_pandas(path: Path, suffix: str) -> tuple[list[str], list[list[Any]]]:
    try:
        import pandas as pd
    except ImportError as exc:
        raise MissingDependencyError(f"{path}: reading {suffix} files needs pandas (pip install pandas)") from exc
    try:
        if suffix in STATA_SUFFIXES:
            frame = pd.read_stata(path, convert_categoricals=False)
        else:
            frame = pd.read_spss(path, convert_categoricals=False)
    except ImportError as exc:
        raise MissingDependencyError(f"{path}: reading SPSS files needs pyreadstat (pip install pyreadstat)") from exc
    except Exception as exc:  # a reader's own parse error
        raise ValuesDataError([f"{path}: cannot read the file ({' '.join(str(exc).split())[:200]})"]) from exc
    header = [str(c) for c in frame.columns]
    rows = [[None if _is_nan(v) else v for v in row] for row in frame.itertuples(index=False, name=None)]
    return header, rows


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and value != value


def load_survey(data: str | Path, mapping: SurveyMapping | str | Path, taxonomy: Taxonomy | None = None) -> SurveyData:
    """Read ``data`` through ``mapping`` (a loaded mapping or its path) into ``SurveyData``."""
    if not isinstance(mapping, SurveyMapping):
        mapping = load_mapping(mapping, taxonomy)
    shown = str(data)
    header, rows = read_table(data)
    columns = {name: i for i, name in enumerate(header)}
    wanted = [(mapping.id_column, f"{mapping.source} id_column")]
    wanted += [(d.column, mapping.lines.get(f"demographic {d.name}", mapping.source)) for d in mapping.demographics]
    wanted += [(i.column, f"{mapping.lines.get(f'item {i.code}', mapping.source)}, class {i.class_id}")
               for i in mapping.items]
    raise_if([f"{shown}: column '{col}' ({where}) is not in the file{_close(col, header)}"
              for col, where in dict(wanted).items() if col not in columns])
    problems: list[str] = []
    respondents: list[Respondent] = []
    seen: dict[str, int] = {}
    for line, row in _numbered(rows):
        cells = [normalise_cell(v) for v in row] + [""] * max(0, len(header) - len(row))
        rid = cells[columns[mapping.id_column]]
        if rid == "":
            problems.append(f"{shown}: row {line}: column '{mapping.id_column}': expected a respondent id, got an "
                            "empty cell")
            continue
        if rid in seen:
            problems.append(f"{shown}: row {line}: column '{mapping.id_column}': expected a unique id, got {rid!r} "
                            f"(also row {seen[rid]})")
            continue
        seen[rid] = line
        demo: dict[str, str | float] = {}
        for d in mapping.demographics:
            cell = cells[columns[d.column]]
            if cell == "" or cell in mapping.missing:
                continue
            value, problem = _demographic(d, cell)
            if problem:
                problems.append(f"{shown}: row {line} (id {rid}): column '{d.column}' (demographic {d.name}): "
                                f"{problem}")
            elif value is not None:
                demo[d.name] = value
        answers = {}
        for item in mapping.items:
            cell = cells[columns[item.column]]
            if cell != "" and cell not in mapping.missing:
                answers[item.code] = 1 if item.rule.holds(cell) else 0
        respondents.append(Respondent(rid, demo, answers))
    raise_if(problems)
    items = {i.code: ItemSpec(i.code, i.class_id, i.text, i.choices, i.key) for i in mapping.items}
    return SurveyData(respondents, items, _schema(mapping, respondents), shown)


def _numbered(rows: list[list[Any]]) -> Iterator[tuple[int, list[Any]]]:
    """Rows with their 1-based data-row numbers (the header is row 0), skipping blank lines."""
    for i, row in enumerate(rows, 1):
        if any(normalise_cell(v) != "" for v in row):
            yield i, row


def _demographic(d: DemographicMap, cell: str) -> tuple[str | float | None, str]:
    if d.values is not None:
        if cell not in d.values:
            return None, f"expected one of the codes {', '.join(sorted(d.values))} (or a missing code), got {cell!r}"
        cell = d.values[cell]
    if d.kind == "numeric":
        try:
            number = float(cell)
        except ValueError:
            return None, f"expected a number, got {cell!r}"
        return (int(number) if number.is_integer() else number), ""
    if d.kind == "ordinal" and cell not in d.levels:
        return None, f"expected one of the levels {', '.join(d.levels)}, got {cell!r}"
    return cell, ""


def _schema(mapping: SurveyMapping, respondents: list[Respondent]) -> list[DemographicField]:
    fields = []
    for d in mapping.demographics:
        rng = d.range
        if d.kind == "numeric" and rng is None:
            seen = [float(r.demographics[d.name]) for r in respondents if d.name in r.demographics]
            rng = (min(seen), max(seen)) if seen and min(seen) < max(seen) else (0.0, 1.0)
        fields.append(DemographicField(d.name, d.kind, rng, d.levels, d.weight))
    return fields


def _close(column: str, header: list[str]) -> str:
    import difflib

    folded = [h for h in header if h.casefold() == column.casefold()]
    close = folded or difflib.get_close_matches(column, header, n=1, cutoff=0.85)
    return f" (did you mean '{close[0]}'?)" if close else ""
