"""What the readers return: a document as a list of located sections, and the error for a bad file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from paperworks.core.errors import UserError


class BadFileError(UserError):
    """A file that cannot be read: missing, corrupt, of an unknown type, or empty of text.

    The message is one line, ``<path>: <what was wrong>``; ``path`` and ``problem`` keep the parts.
    """

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = str(path)
        self.problem = " ".join(problem.split())
        super().__init__(f"{self.path}: {self.problem}")


@dataclass
class Section:
    """One located piece of a document: a PDF page, a slide, a sheet, a paragraph run, an OCR'd image."""

    text: str
    """The section's plain text (tables as tab-separated rows)."""
    page: int | None = None
    """1-based page, slide or sheet number; ``None`` for files without pages."""
    label: str = ""
    """A human label: ``page 3``, ``slide 2``, ``sheet 'Taxes'``."""
    table: list[list[str]] | None = None
    """The cells, when the section is a table (CSV, XLSX sheet, DOCX/PPTX table)."""


@dataclass
class Document:
    """A file read into sections, with the reader's metadata (title, author, sheet names, ...)."""

    path: str
    kind: str
    """``pdf``, ``docx``, ``xlsx``, ``csv``, ``pptx``, ``json``, ``text``, ``markdown`` or ``image``."""
    sections: list[Section] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """All sections' text, separated by blank lines."""
        return "\n\n".join(s.text for s in self.sections if s.text)

    def render(self, max_chars: int = 20_000) -> str:
        """Text with a header line per section (``[page 2]``), cut at ``max_chars``."""
        parts = [f"[{s.label}]\n{s.text}" if s.label else s.text for s in self.sections]
        out = "\n\n".join(parts)
        return out if len(out) <= max_chars else out[:max_chars] + "\n[... truncated]"
