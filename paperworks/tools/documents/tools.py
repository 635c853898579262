"""Agent tool: read a document (PDF pages, DOCX, PPTX slides, XLSX/CSV tables, JSON, text, images)."""

from __future__ import annotations

from paperworks.core.errors import UserError
from paperworks.tools.base import ToolContext, ToolError, tool
from paperworks.tools.documents.inputs import resolve_input
from paperworks.tools.documents.readers import read_document as _read_document

MAX_CHARS = 20_000


@tool
def read_document(path: str, ctx: ToolContext, pages: str = "", ocr_languages: str = "eng") -> str:
    """Read a PDF, DOCX, PPTX, XLSX, CSV, JSON, text, Markdown or image file as text with page,
    slide or sheet headers (tables as tab-separated rows; images are OCR'd).

    Args:
        path: the file, relative to the run's files or an attachment path.
        pages: optional page/slide/sheet numbers to keep, e.g. "2" or "1-3,7".
        ocr_languages: tesseract languages for images and scans, e.g. "deu+lat".
    """
    try:
        doc = _read_document(resolve_input(path, ctx), ocr_languages)
        wanted = _page_set(pages)
    except UserError as exc:
        raise ToolError(str(exc)) from exc
    if wanted:
        doc.sections = [s for s in doc.sections if s.page in wanted]
        if not doc.sections:
            raise ToolError(f"{path}: no page/slide/sheet {pages}")
    meta = ", ".join(f"{k}: {v}" for k, v in doc.metadata.items())
    header = f"{path} ({doc.kind}{', ' + meta if meta else ''})"
    return header + "\n" + (doc.render(MAX_CHARS) or "(no text)")


def _page_set(spec: str) -> set[int]:
    """``"1-3,7"`` → {1, 2, 3, 7}."""
    out: set[int] = set()
    for part in spec.replace(" ", "").split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise UserError(f"pages '{spec}' is not like '2' or '1-3,7'")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out
