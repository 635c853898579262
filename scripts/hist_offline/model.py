"""The generator's records: a document (pages of lines) and a question grounded in documents."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CC0 = "CC0-1.0 (written for paperworks)"


@dataclass
class Doc:
    """A generated document: its path (relative to the suite), pages of text lines and provenance."""

    path: str
    title: str
    language: str
    script: str
    kind: str
    pages: list[list[str]]
    source: str
    licence: str = CC0
    facts: dict[str, Any] = field(default_factory=dict)

    def locate(self, needle: str) -> dict[str, Any]:
        """Evidence for ``needle``: ``{document, page, line, text}``; KeyError when the text lacks it."""
        for p, lines in enumerate(self.pages, start=1):
            for n, line in enumerate(lines, start=1):
                if needle in line:
                    return {"document": self.path, "page": p, "line": n, "text": needle}
            for n, (line, nxt) in enumerate(zip(lines, lines[1:], strict=False), start=1):
                if needle in f"{line} {nxt}" or needle in line + nxt:  # wrapped across two lines
                    return {"document": self.path, "page": p, "line": n, "text": needle}
        raise KeyError(f"{self.path}: no line contains {needle!r}")


@dataclass
class Question:
    """One benchmark question and where its answer is found."""

    id: str
    question: str
    answer: Any
    answer_type: str
    level: int
    tools: list[str]
    attachments: list[str]
    evidence: list[dict[str, Any]]
    choices: list[str] | None = None

    def row(self, docs: dict[str, Doc]) -> dict[str, Any]:
        """The JSONL row: the question plus languages, scripts, sources and licences of its evidence."""
        used = [docs[e["document"]] for e in self.evidence]
        return {
            "id": self.id, "question": self.question, "answer": self.answer,
            "answer_type": self.answer_type, "level": self.level, "tools": self.tools,
            "attachments": self.attachments, "choices": self.choices, "evidence": self.evidence,
            "languages": sorted({d.language for d in used}), "scripts": sorted({d.script for d in used}),
            "sources": sorted({d.source for d in used}), "licences": sorted({d.licence for d in used}),
        }
