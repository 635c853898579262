"""The BM25 half of hybrid retrieval (bm25s), with a tokenizer for many scripts: case- and
accent-folded words, and single characters plus bigrams for Chinese and Japanese."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

_WORD = re.compile(r"\w+", re.UNICODE)


def _is_cjk(ch: str) -> bool:
    return "\u3040" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or "\u3400" <= ch <= "\u4dbf"


def fold(text: str) -> str:
    """Case-fold and strip combining accents: ``König`` → ``konig``, ``ἄνδρα`` → ``ανδρα``."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).replace("ſ", "s")


def tokenize(text: str) -> list[str]:
    """Search tokens of ``text``: folded words; CJK runs as characters and character bigrams."""
    tokens: list[str] = []
    for word in _WORD.findall(fold(text)):
        if any(_is_cjk(ch) for ch in word):
            run = [ch for ch in word if _is_cjk(ch)]
            tokens += run + [a + b for a, b in zip(run, run[1:], strict=False)]
            rest = "".join(ch if not _is_cjk(ch) else " " for ch in word).split()
            tokens += rest
        elif len(word) > 1 or word.isdigit():
            tokens.append(word)
    return tokens


class LexicalIndex:
    """BM25 over a fixed list of chunk ids and texts (rebuilt when the archive changes)."""

    def __init__(self, ids: list[str], texts: list[str]) -> None:
        import bm25s

        self.ids = ids
        self._retriever: Any = None
        if ids:
            self._retriever = bm25s.BM25()
            self._retriever.index([tokenize(t) or ["\x00"] for t in texts], show_progress=False)
            self._vocab = set(self._retriever.vocab_dict)

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """The best ``k`` chunk ids with BM25 scores > 0, best first."""
        if self._retriever is None:
            return []
        tokens = [t for t in tokenize(query) if t in self._vocab]
        if not tokens:
            return []
        docs, scores = self._retriever.retrieve([tokens], k=min(k, len(self.ids)), show_progress=False)
        return [(self.ids[int(d)], float(s)) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]


def reciprocal_rank_fusion(rankings: list[list[str]], k: int = 60) -> list[tuple[str, float]]:
    """Fuse ranked id lists: score(id) = Σ 1 / (k + rank), rank from 1. Best first."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
