"""``read_document(path)``: any supported file into a ``Document`` of located sections.

PDF (one section per page, with its number), DOCX, PPTX, XLSX, CSV/TSV (tables), JSON, plain text,
Markdown and images (through OCR). Every failure is a ``BadFileError`` naming the file.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from pathlib import Path
from typing import Any

from paperworks.tools.documents.model import BadFileError, Document, Section
from paperworks.tools.documents.office import read_docx, read_pptx, read_xlsx

TEXT_SUFFIXES = {".txt": "text", ".text": "text", ".md": "markdown", ".markdown": "markdown",
                 ".rst": "text", ".html": "text", ".htm": "text", ".xml": "text", ".tex": "text"}
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".gif", ".webp", ".pbm", ".pgm", ".ppm"}
SUPPORTED = sorted({".pdf", ".docx", ".pptx", ".xlsx", ".xlsm", ".csv", ".tsv", ".json", ".jsonl",
                    *TEXT_SUFFIXES, *IMAGE_SUFFIXES})


def _read_text_file(path: Path) -> str:
    data = path.read_bytes()
    for encoding in ("utf-8-sig", "utf-16") if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ("utf-8-sig",):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    if b"\x00" in data[:4096]:
        raise BadFileError(path, "binary data, not a text file")
    return data.decode("latin-1")


def _ocr_page_images(page: object, languages: str | list[str] | None) -> str:
    """Text of a scanned page: OCR of the images embedded in it (pypdf extracts them)."""
    from paperworks.tools.ocr.engine import ocr_image

    texts = []
    for image in getattr(page, "images", []):
        try:
            texts.append(ocr_image(image.image, languages).text)
        except Exception:  # an undecodable embedded image leaves the page empty
            continue
    return "\n".join(t for t in texts if t.strip())


def read_pdf(path: Path, languages: str | list[str] | None = None, ocr_scans: bool = True) -> Document:
    """A PDF: one section per page with its 1-based number. A page without a text layer (a scan)
    is OCR'd from its embedded images when ``ocr_scans``; pages still empty are named in
    ``metadata['pages_without_text']``."""
    import logging

    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings would break one-line errors

    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted and not reader.decrypt(""):
            raise BadFileError(path, "encrypted PDF (a password is needed)")
        pages = []
        for page in reader.pages:
            text = page.extract_text() or ""
            pages.append(text if text.strip() or not ocr_scans else _ocr_page_images(page, languages))
    except BadFileError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError, AttributeError) as exc:
        raise BadFileError(path, f"not a readable PDF ({type(exc).__name__}: {exc})") from exc
    sections = [Section(text.strip(), page=i, label=f"page {i}") for i, text in enumerate(pages, 1)]
    meta = {"pages": str(len(pages))}
    empty = [str(s.page) for s in sections if not s.text]
    if empty:
        meta["pages_without_text"] = ",".join(empty)
    info: Any = reader.metadata or {}
    for key in ("/Title", "/Author"):
        if info.get(key):
            meta[key[1:].lower()] = str(info[key])
    return Document(str(path), "pdf", sections, meta)


def read_csv(path: Path, max_rows: int = 10_000) -> Document:
    """CSV or TSV as one table (delimiter sniffed)."""
    text = _read_text_file(path)
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel_tab if path.suffix.lower() == ".tsv" else csv.excel
    rows = [row for row in itertools.islice(csv.reader(io.StringIO(text), dialect), max_rows) if any(row)]
    body = "\n".join("\t".join(row) for row in rows)
    return Document(str(path), "csv", [Section(body, label="table", table=rows)], {"rows": str(len(rows))})


def read_json(path: Path) -> Document:
    """JSON (pretty-printed) or JSON Lines (one section per record)."""
    text = _read_text_file(path)
    try:
        if path.suffix.lower() == ".jsonl":
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
            sections = [Section(json.dumps(r, ensure_ascii=False, indent=1), page=i, label=f"record {i}")
                        for i, r in enumerate(records, 1)]
            return Document(str(path), "json", sections, {"records": str(len(records))})
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadFileError(path, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    return Document(str(path), "json", [Section(json.dumps(value, ensure_ascii=False, indent=1))])


def read_image(path: Path, languages: str | list[str] | None = None) -> Document:
    """An image through OCR (``languages`` as for ``ocr_image``; default eng)."""
    from paperworks.tools.ocr.engine import ocr_image

    result = ocr_image(path, languages)
    meta = {"ocr_languages": result.languages, "ocr_mean_confidence": f"{result.mean_confidence:.1f}"}
    return Document(str(path), "image", [Section(result.text, label="image text")], meta)


def read_document(path: str | Path, languages: str | list[str] | None = None) -> Document:
    """Read any supported file (see ``SUPPORTED``); images are OCR'd in ``languages``.

    Raises ``BadFileError`` (one line: ``<path>: <problem>``) for a missing, unreadable, corrupt or
    unsupported file.
    """
    p = Path(path)
    if not p.exists():
        raise BadFileError(p, "no such file")
    if not p.is_file():
        raise BadFileError(p, "not a file")
    suffix = p.suffix.lower()
    try:
        if suffix == ".pdf":
            return read_pdf(p, languages)
        if suffix == ".docx":
            return read_docx(p)
        if suffix == ".pptx":
            return read_pptx(p)
        if suffix in (".xlsx", ".xlsm"):
            return read_xlsx(p)
        if suffix in (".csv", ".tsv"):
            return read_csv(p)
        if suffix in (".json", ".jsonl"):
            return read_json(p)
        if suffix in IMAGE_SUFFIXES:
            return read_image(p, languages)
        if suffix in TEXT_SUFFIXES:
            return Document(str(p), TEXT_SUFFIXES[suffix], [Section(_read_text_file(p))])
    except OSError as exc:
        raise BadFileError(p, f"cannot read ({type(exc).__name__}: {exc.strerror or exc})") from exc
    raise BadFileError(p, f"unsupported file type '{suffix or '(none)'}'; supported: {', '.join(SUPPORTED)}")
