"""Document readers: PDF (pages), DOCX, PPTX (slides), XLSX/CSV (tables), JSON, text, Markdown, images."""

from paperworks.tools.documents.model import BadFileError, Document, Section
from paperworks.tools.documents.readers import SUPPORTED, read_document

__all__ = ["SUPPORTED", "BadFileError", "Document", "Section", "read_document"]
