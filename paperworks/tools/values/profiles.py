"""Respondent value summaries: the deterministic part (per-class scores from item answers) and a cache
for the text summary the LLM side writes from it, keyed by respondent id + content hash.

A class's score is the share of the respondent's visible answers in that class that lean towards it
(after each item's key), from 0 (every answer leans away) to 1. A domain's score pools the answers of
all its subclasses. ``ValueProfile.content_hash`` covers the respondent id, demographics, the answers
used and the taxonomy, so a cached summary is reused only for exactly the same evidence.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paperworks.tools.values.survey import ItemSpec, Respondent
from paperworks.tools.values.taxonomy import Taxonomy


@dataclass(frozen=True)
class ClassScore:
    """A respondent's evidence on one class: answers seen and how many lean towards the class."""

    class_id: str
    n_items: int
    n_towards: int

    @property
    def score(self) -> float:
        """n_towards / n_items, in [0, 1]."""
        return self.n_towards / self.n_items


@dataclass(frozen=True)
class ValueProfile:
    """Per-class and per-domain scores of one respondent, from the answers that were visible."""

    respondent_id: str
    demographics: Mapping[str, Any]
    classes: Mapping[str, ClassScore]
    """Subclasses with at least one visible answer, in taxonomy order."""
    domains: Mapping[str, ClassScore]
    """Domains with at least one visible answer (pooled over their subclasses)."""
    items_used: tuple[str, ...]
    content_hash: str = field(default="")

    def score(self, class_id: str) -> float | None:
        """The class's (or domain's) score, or None without evidence."""
        found = self.classes.get(class_id) or self.domains.get(class_id)
        return found.score if found else None

    def strongest(self, n: int = 10) -> list[ClassScore]:
        """The ``n`` classes whose scores are furthest from 0.5 (ties: more items, then taxonomy order)."""
        ranked = sorted(enumerate(self.classes.values()),
                        key=lambda t: (-abs(t[1].score - 0.5), -t[1].n_items, t[0]))
        return [c for _, c in ranked[:n]]

    def lines(self, taxonomy: Taxonomy) -> list[str]:
        """One deterministic line per class with evidence: ``Religious Exclusivism (Religious Values):
        0.00 — 0 of 2 answers lean towards it``."""
        out = []
        for c in self.classes.values():
            vc = taxonomy.get(c.class_id)
            out.append(f"{vc.name} ({taxonomy.get(vc.domain).name}): {c.score:.2f} — {c.n_towards} of {c.n_items} "
                       f"answers lean towards it")
        return out

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"respondent_id": self.respondent_id, "demographics": dict(self.demographics),
                "classes": {k: [v.n_items, v.n_towards] for k, v in self.classes.items()},
                "domains": {k: [v.n_items, v.n_towards] for k, v in self.domains.items()},
                "items_used": list(self.items_used), "content_hash": self.content_hash}


def value_profile(respondent: Respondent, items: Mapping[str, ItemSpec], taxonomy: Taxonomy,
                  exclude: Iterable[str] = ()) -> ValueProfile:
    """Score every class from the respondent's answers, leaving out the item codes in ``exclude``
    (and answers to items the mapping does not know)."""
    hidden = set(exclude)
    used = sorted(c for c in respondent.answers if c not in hidden and c in items)
    per_class: dict[str, list[int]] = {}
    for code in used:
        item = items[code]
        per_class.setdefault(item.class_id, []).append(item.keyed(respondent.answers[code]))
    classes = {c.id: ClassScore(c.id, len(per_class[c.id]), sum(per_class[c.id]))
               for c in taxonomy.subclasses if c.id in per_class}
    domains = {}
    for d in taxonomy.domains:
        votes = [v for c in taxonomy.subclasses_of(d.id) for v in per_class.get(c.id, [])]
        if votes:
            domains[d.id] = ClassScore(d.id, len(votes), sum(votes))
    blob = json.dumps({"id": respondent.id, "demographics": {k: respondent.demographics[k]
                                                              for k in sorted(respondent.demographics)},
                       "answers": [[c, items[c].class_id, items[c].key, respondent.answers[c]] for c in used],
                       "taxonomy": taxonomy.content_hash()}, sort_keys=True, ensure_ascii=False, default=str)
    digest = hashlib.sha256(blob.encode()).hexdigest()
    return ValueProfile(respondent.id, dict(respondent.demographics), classes, domains, tuple(used), digest)


@dataclass(frozen=True)
class CachedSummary:
    """A stored summary: the text the LLM side wrote, who wrote it, and free metadata."""

    respondent_id: str
    content_hash: str
    variant: str
    text: str
    meta: Mapping[str, Any]


class SummaryCache:
    """Summaries in one SQLite file, keyed by (respondent id, content hash, variant). ``variant`` names
    what else the text depends on (model, prompt version); safe to share between threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        with self._lock, self._db:
            self._db.execute("CREATE TABLE IF NOT EXISTS summaries (respondent_id TEXT, content_hash TEXT, "
                             "variant TEXT, text TEXT, meta TEXT, PRIMARY KEY (respondent_id, content_hash, variant))")

    def get(self, profile: ValueProfile, variant: str = "") -> CachedSummary | None:
        """The summary stored for exactly this profile's evidence, or None."""
        with self._lock:
            row = self._db.execute("SELECT text, meta FROM summaries WHERE respondent_id=? AND content_hash=? AND "
                                   "variant=?", (profile.respondent_id, profile.content_hash, variant)).fetchone()
        if row is None:
            return None
        return CachedSummary(profile.respondent_id, profile.content_hash, variant, row[0], json.loads(row[1]))

    def put(self, profile: ValueProfile, text: str, variant: str = "", meta: Mapping[str, Any] | None = None) -> None:
        """Store (or replace) the summary of this profile."""
        with self._lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO summaries VALUES (?, ?, ?, ?, ?)",
                             (profile.respondent_id, profile.content_hash, variant, text,
                              json.dumps(dict(meta or {}), sort_keys=True, default=str)))

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM summaries").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
