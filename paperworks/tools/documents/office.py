"""Readers for Office files: DOCX (paragraphs and tables), PPTX (one section per slide) and
XLSX (one table per sheet)."""

from __future__ import annotations

from pathlib import Path

from paperworks.tools.documents.model import BadFileError, Document, Section


def _table_text(rows: list[list[str]]) -> str:
    return "\n".join("\t".join(cell for cell in row) for row in rows)


def read_docx(path: Path) -> Document:
    """A DOCX file: one section of its paragraphs (headings kept as lines), then one per table."""
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        doc = docx.Document(str(path))
    except (PackageNotFoundError, KeyError, ValueError, OSError) as exc:
        raise BadFileError(path, f"not a readable DOCX file ({type(exc).__name__})") from exc
    paragraphs = [p.text for p in doc.paragraphs if p.text.strip()]
    sections = [Section("\n".join(paragraphs), label="text")] if paragraphs else []
    for i, table in enumerate(doc.tables, 1):
        rows = [[cell.text.strip() for cell in row.cells] for row in table.rows]
        sections.append(Section(_table_text(rows), label=f"table {i}", table=rows))
    props = doc.core_properties
    meta = {k: str(v) for k, v in {"title": props.title, "author": props.author,
                                    "created": props.created}.items() if v}
    return Document(str(path), "docx", sections, meta)


def read_pptx(path: Path) -> Document:
    """A PPTX file: one section per slide (titles, text frames, tables and notes)."""
    from pptx import Presentation
    from pptx.exc import PackageNotFoundError

    try:
        pres = Presentation(str(path))
    except (PackageNotFoundError, KeyError, ValueError, OSError) as exc:
        raise BadFileError(path, f"not a readable PPTX file ({type(exc).__name__})") from exc
    sections = []
    for number, slide in enumerate(pres.slides, 1):
        lines: list[str] = []
        for shape in slide.shapes:
            if shape.has_text_frame:
                lines += [p.text for p in shape.text_frame.paragraphs if p.text.strip()]
            if getattr(shape, "has_table", False) and shape.has_table:
                rows = [[cell.text.strip() for cell in row.cells] for row in shape.table.rows]
                lines.append(_table_text(rows))
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text.strip()
            if notes:
                lines.append(f"notes: {notes}")
        sections.append(Section("\n".join(lines), page=number, label=f"slide {number}"))
    return Document(str(path), "pptx", sections, {"slides": str(len(sections))})


def read_xlsx(path: Path, max_rows: int = 10_000) -> Document:
    """An XLSX workbook: one table section per sheet (cell values as text; formulas' cached values)."""
    import zipfile

    import openpyxl

    try:
        book = openpyxl.load_workbook(str(path), read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        raise BadFileError(path, f"not a readable XLSX file ({type(exc).__name__})") from exc
    sections = []
    try:
        for number, sheet in enumerate(book.worksheets, 1):
            rows: list[list[str]] = []
            for row in sheet.iter_rows(values_only=True):
                if len(rows) >= max_rows:
                    break
                cells = ["" if v is None else str(v) for v in row]
                if any(cells):
                    rows.append(cells)
            sections.append(Section(_table_text(rows), page=number, label=f"sheet '{sheet.title}'",
                                    table=rows))
    finally:
        book.close()
    return Document(str(path), "xlsx", sections, {"sheets": ", ".join(s.label[7:-1] for s in sections)})
