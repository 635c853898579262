"""Retrieve the skeletons relevant to a task: TF-IDF cosine between the task's words and each skeleton's
name and docstring (small, deterministic, no model call)."""

from __future__ import annotations

import math
import re
from collections import Counter

STOP = {"the", "a", "an", "and", "then", "it", "of", "to", "in", "into", "for", "on", "with", "or", "from", "ml",
        "seconds", "item", "food", "vessel", "place", "such", "as", "after", "back"}


def words(text: str) -> list[str]:
    out = []
    for w in re.findall(r"[a-z]+", text.lower().replace("_", " ")):
        if w in STOP:
            continue
        out.append(w[:-1] if len(w) > 4 and w.endswith("s") else w)
    return out


class Retriever:
    """``top(task, k)`` → skeleton names, best first."""

    def __init__(self, docs: dict[str, str]) -> None:
        self.names = list(docs)
        bags = [Counter(words(docs[n] + " " + n)) for n in self.names]
        df = Counter(w for b in bags for w in b)
        n = len(bags)
        self.idf = {w: math.log((1 + n) / (1 + c)) + 1 for w, c in df.items()}
        self.vecs = [self._vec(b) for b in bags]

    def _vec(self, bag: Counter[str]) -> dict[str, float]:
        v = {w: c * self.idf.get(w, 0.0) for w, c in bag.items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        return {w: x / norm for w, x in v.items()}

    def scores(self, task: str) -> dict[str, float]:
        q = self._vec(Counter(words(task)))
        return {n: sum(q.get(w, 0.0) * x for w, x in v.items()) for n, v in zip(self.names, self.vecs, strict=True)}

    def top(self, task: str, k: int) -> list[str]:
        s = self.scores(task)
        return sorted(self.names, key=lambda n: (-s[n], n))[:k]
