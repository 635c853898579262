"""Load the real HistBench spreadsheet (not shipped) into rows shaped like ``evals/hist_offline``'s.

HistBench comes as one workbook with one sheet per level (sheet names that carry the level's digit:
``Level 1``, ``level_2``, ``L3`` ...) and the columns ID, Question, Answer, Data Requirements and
Answer Type, plus a folder of attachments that the Data Requirements cells name. ``load_histbench``
reads the workbook with openpyxl (read-only), maps each row to::

    {id, question, answer, answer_type, level, tools, attachments, choices, evidence, languages,
     scripts, sources, licences, data_requirements, source_id}

(``attachments`` are absolute paths; ``tools``, ``evidence`` and ``languages`` are empty: HistBench
does not give them) and reports every problem as one ``UserError`` line naming the workbook, the
sheet, the row and the column: a missing column, a sheet without a level, a level outside 1-3, an
empty cell, an unknown answer type, a duplicate ID, an attachment that is not in the folder.

``histbench_suite`` wraps the rows as a ``Suite`` that runs like ``evals/hist_offline`` (its suite.yaml
gives the workflow, input mapping, scorers, epochs and limits), for ``paperworks eval histbench --data``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperworks.core.errors import MissingDependencyError, UserError
from paperworks.core.scoring import Sample

if TYPE_CHECKING:
    from paperworks.eval.suite import Suite

COLUMNS = ("ID", "Question", "Answer", "Data Requirements", "Answer Type")
"""The columns every level sheet must have (matched ignoring case, spaces and underscores)."""

ANSWER_TYPES: dict[str, str] = {
    "exact": "exact", "exact match": "exact", "exactmatch": "exact", "short answer": "exact", "short": "exact",
    "numeric": "numeric", "numerical": "numeric", "number": "numeric",
    "multiple choice": "multiple_choice", "multiple_choice": "multiple_choice", "multiplechoice": "multiple_choice",
    "multi choice": "multiple_choice", "mcq": "multiple_choice", "choice": "multiple_choice",
    "open": "open", "open ended": "open", "open-ended": "open", "open_ended": "open", "free text": "open",
    "essay": "open",
}
"""Spellings of the Answer Type column, mapped to the suite's four types."""

_FILE = re.compile(r"[^\s,;:|\"'()\[\]]+\.([A-Za-z0-9]{2,5})\b")
EXTENSIONS = frozenset(
    "png jpg jpeg tif tiff gif bmp webp heic pdf doc docx xls xlsx csv tsv ppt pptx txt json md xml html "
    "mp3 wav m4a flac ogg mp4 mov avi mkv webm zip".split())
"""Extensions that make a word of a Data Requirements cell an attachment's file name."""
_NO_DATA = {"", "none", "no", "n/a", "na", "-", "—", "nil", "null", "text", "text only", "no attachment"}


def _key(name: Any) -> str:
    return re.sub(r"[\s_]+", " ", str(name or "")).strip().lower()


def sheet_level(name: str) -> int | None:
    """The level a sheet's name carries (``'Level 2'`` → 2), or None when it names no digit."""
    digits = re.findall(r"\d+", name)
    return int(digits[0]) if len(digits) == 1 else None


def answer_type(value: Any) -> str | None:
    """The suite's answer type for a cell's text (None when the spelling is unknown)."""
    text = _key(value).replace("-", " ")
    return ANSWER_TYPES.get(text) or ANSWER_TYPES.get(text.replace(" ", ""))


def attachment_names(requirements: str) -> list[str]:
    """The file names a Data Requirements cell mentions, in order, unique. The cell is split on ``;``,
    ``,`` and new lines; a short part (less a leading ``Label:``) that ends in a known extension is one
    name, spaces included; otherwise the words with a known extension inside it are."""
    if _key(requirements) in _NO_DATA:
        return []
    seen: list[str] = []
    for part in re.split(r"[;,\n]+", requirements):
        part = re.sub(r"^[^./\\:]{1,30}:\s*", "", part.strip()).strip(" \"'")
        whole = re.fullmatch(r"[^\"'|]+\.([A-Za-z0-9]{2,5})", part)
        if whole and whole.group(1).lower() in EXTENSIONS and "//" not in part and part.count(" ") <= 3:
            names = [part]
        else:
            names = [m.group(0) for m in _FILE.finditer(part)
                     if m.group(1).lower() in EXTENSIONS and "//" not in m.group(0)]
        seen += [n for n in names if n not in seen]
    return seen


def _cell(value: Any) -> Any:
    """A cell's value: text trimmed, integral floats as ints (Excel stores 12 as 12.0)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        return value.strip()
    return value


def _index(folder: Path) -> dict[str, list[Path]]:
    """Files under ``folder`` by lower-cased base name."""
    found: dict[str, list[Path]] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            found.setdefault(path.name.lower(), []).append(path)
    return found


def _resolve(name: str, folder: Path | None, index: dict[str, list[Path]], where: str) -> str:
    if folder is None:
        raise UserError(f"{where}: column 'Data Requirements' names the file '{name}' but no attachment folder "
                        "was given (pass the folder HistBench's attachments are in)")
    direct = folder / name
    if direct.is_file():
        return str(direct.resolve())
    hits = index.get(Path(name).name.lower(), [])
    if len(hits) == 1:
        return str(hits[0].resolve())
    if len(hits) > 1:
        raise UserError(f"{where}: column 'Data Requirements': the file '{name}' is ambiguous under {folder} "
                        f"({len(hits)} files of that name, e.g. {hits[0]})")
    raise UserError(f"{where}: column 'Data Requirements': attachment '{name}' not found under {folder}")


def find_workbook(data: Path) -> tuple[Path, Path | None]:
    """The workbook and attachment folder for ``--data PATH``: a .xlsx file (attachments in a sibling folder
    if one is there) or a folder holding exactly one .xlsx and, optionally, the attachments."""
    if not data.exists():
        raise UserError(f"{data}: no such file or folder (expected the HistBench .xlsx or its folder)")
    if data.is_dir():
        books = sorted(p for p in data.glob("*.xlsx") if not p.name.startswith("~$"))
        if len(books) != 1:
            raise UserError(f"{data}: expected exactly one .xlsx workbook in the folder, found {len(books)}")
        return books[0], data
    if data.suffix.lower() not in {".xlsx", ".xlsm"}:
        raise UserError(f"{data}: expected an .xlsx workbook, got a '{data.suffix or 'no'}' file")
    for name in ("attachments", "files", "data", "HistBench"):
        if (data.parent / name).is_dir():
            return data, data.parent / name
    return data, None


def load_histbench(data: str | Path, attachments: str | Path | None = None) -> list[dict[str, Any]]:
    """Rows of the HistBench workbook at ``data`` (a file or its folder), attachments resolved against
    ``attachments`` (default: the folder ``find_workbook`` finds). Sheets are read in workbook order."""
    book_path, found_folder = find_workbook(Path(data))
    folder = Path(attachments) if attachments is not None else found_folder
    if folder is not None and not folder.is_dir():
        raise UserError(f"{folder}: the attachment folder does not exist")
    try:
        from openpyxl import load_workbook
    except ImportError as exc:  # pragma: no cover - openpyxl is a dependency
        raise MissingDependencyError("reading HistBench needs openpyxl: pip install openpyxl") from exc
    try:
        book = load_workbook(book_path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises zipfile/KeyError/InvalidFileException for bad files
        raise UserError(f"{book_path}: not a readable .xlsx workbook ({type(exc).__name__}: {exc})") from exc
    index = _index(folder) if folder is not None else {}
    rows: list[dict[str, Any]] = []
    first: dict[str, str] = {}
    try:
        for sheet in book.worksheets:
            rows.extend(_sheet_rows(book_path, sheet, folder, index, first))
    finally:
        book.close()
    if not rows:
        raise UserError(f"{book_path}: no questions (every sheet is empty)")
    return rows


def _sheet_rows(book_path: Path, sheet: Any, folder: Path | None, index: dict[str, list[Path]],
                first: dict[str, str]) -> list[dict[str, Any]]:
    name = str(sheet.title)
    at = f"{book_path}: sheet '{name}'"
    values = [tuple(_cell(v) for v in row) for row in sheet.iter_rows(values_only=True)]
    values = [row for row in values if any(v not in (None, "") for v in row)]
    if not values:
        return []
    level = sheet_level(name)
    if level is None:
        raise UserError(f"{at}: the sheet name gives no level (expected one sheet per level, e.g. 'Level 1')")
    if not 1 <= level <= 3:
        raise UserError(f"{at}: level {level} from the sheet name is outside 1-3")
    header = {_key(v): i for i, v in enumerate(values[0]) if v not in (None, "")}
    for column in COLUMNS:
        if _key(column) not in header:
            have = ", ".join(str(v) for v in values[0] if v not in (None, ""))
            raise UserError(f"{at}: missing column '{column}' in the first row (its columns: {have})")
    col = {c: header[_key(c)] for c in COLUMNS}
    out = []
    for offset, row in enumerate(values[1:], start=2):
        cells = {c: (row[i] if i < len(row) else None) for c, i in col.items()}
        where = f"{at}, row {offset}"
        for column in ("ID", "Question", "Answer", "Answer Type"):
            if cells[column] in (None, ""):
                raise UserError(f"{where}: column '{column}' is empty")
        kind = answer_type(cells["Answer Type"])
        if kind is None:
            raise UserError(f"{where}: column 'Answer Type': unknown type {cells['Answer Type']!r} (expected exact, "
                            "numeric, multiple choice or open)")
        source_id = str(cells["ID"])
        sample_id = f"histbench-L{level}-{source_id}"
        if sample_id in first:
            raise UserError(f"{where}: column 'ID': duplicate ID {source_id!r} (first at {first[sample_id]})")
        first[sample_id] = f"row {offset}"
        requirements = "" if cells["Data Requirements"] is None else str(cells["Data Requirements"])
        where_id = f"{where} (ID {source_id})"
        files = [_resolve(n, folder, index, where_id) for n in attachment_names(requirements)]
        out.append({
            "id": sample_id, "question": str(cells["Question"]), "answer": cells["Answer"], "answer_type": kind,
            "level": level, "tools": [], "attachments": files, "choices": None, "evidence": [], "languages": [],
            "scripts": [], "sources": [f"HistBench, sheet '{name}', row {offset}"], "licences": [],
            "data_requirements": requirements, "source_id": source_id,
        })
    return out


def histbench_samples(rows: list[dict[str, Any]], metadata: list[str] | None = None) -> list[Sample]:
    """Suite samples for loaded rows: input ``{question, attachments}``, target the answer, and the
    ``metadata`` columns (default: those hist_offline keeps) plus ``data_requirements``."""
    keep = metadata if metadata is not None else ["answer_type", "level", "tools", "languages", "scripts",
                                                  "evidence", "choices"]
    return [Sample(id=r["id"], input={"question": r["question"], "attachments": list(r["attachments"])},
                   target=r["answer"], metadata={**{c: r.get(c) for c in keep},
                                                 "data_requirements": r.get("data_requirements", "")},
                   source=r["sources"][0] if r.get("sources") else "") for r in rows]


def histbench_suite(data: str | Path, attachments: str | Path | None = None,
                    template: str | Path | None = None) -> Suite:
    """A ``Suite`` named ``histbench`` over the user's workbook, with the settings of the hist_offline
    suite (``template``: its suite.yaml, found through the suite search path by default). The template's
    workflow is not checked here; running the suite does that."""
    from paperworks.eval.suite import Suite, find_suite
    from paperworks.eval.suite_paths import SUITE_FILE, display_path
    from paperworks.eval.suite_spec import read_suite_yaml, validate_spec

    yaml_path = Path(template) if template is not None else find_suite("hist_offline") / SUITE_FILE
    shown = display_path(yaml_path)
    raw, lines = read_suite_yaml(yaml_path.read_text(encoding="utf-8"), shown)
    spec = validate_spec(raw, lines, shown)
    book, _ = find_workbook(Path(data))
    rows = load_histbench(data, attachments)
    spec = spec.model_copy(update={"name": "histbench", "version": "user data",
                                   "description": f"HistBench ({len(rows)} questions) from {book}",
                                   "data": [str(book)]})
    return Suite(spec=spec, folder=book.parent, samples=histbench_samples(rows, spec.metadata))
