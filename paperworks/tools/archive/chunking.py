"""Splitting documents into retrieval chunks that remember where they came from (page, lines)."""

from __future__ import annotations

from dataclasses import dataclass

from paperworks.tools.documents.model import Document


@dataclass
class Chunk:
    """A passage of a document, with its citation."""

    text: str
    page: int | None
    """1-based page/slide/sheet of the section it comes from (``None`` for files without pages)."""
    label: str
    """The section label (``page 3``, ``slide 2``, ``sheet 'Taxes'``)."""
    line_start: int
    """First line of the passage, 1-based within its section."""
    line_end: int

    def citation(self, document: str) -> str:
        """``document, page 3, lines 4–9`` (page omitted for files without pages)."""
        where = f", {self.label}" if self.label else ""
        lines = f"line {self.line_start}" if self.line_start == self.line_end else \
            f"lines {self.line_start}-{self.line_end}"
        return f"{document}{where}, {lines}"


def chunk_document(doc: Document, max_words: int = 120, overlap_lines: int = 1) -> list[Chunk]:
    """Split each section into passages of whole lines, at most ``max_words`` words each (a longer
    line is split on its own), repeating ``overlap_lines`` lines between neighbours."""
    chunks: list[Chunk] = []
    for section in doc.sections:
        lines = section.text.splitlines()
        start = 0
        while start < len(lines):
            words, end = 0, start
            while end < len(lines) and (words == 0 or words + len(lines[end].split()) <= max_words):
                words += len(lines[end].split())
                end += 1
            text = "\n".join(lines[start:end]).strip()
            if text:
                for piece in _split_long(text, max_words):
                    chunks.append(Chunk(piece, section.page, section.label, start + 1, end))
            if end >= len(lines):
                break
            start = max(start + 1, end - overlap_lines)
    return chunks


def _split_long(text: str, max_words: int) -> list[str]:
    """A passage longer than ``max_words`` (one huge line, or unspaced CJK text) in pieces."""
    words = text.split()
    if len(words) > max_words:
        return [" ".join(words[i:i + max_words]) for i in range(0, len(words), max_words)]
    limit = max_words * 6  # characters, for scripts written without spaces
    if len(text) > limit:
        return [text[i:i + limit] for i in range(0, len(text), limit)]
    return [text]
