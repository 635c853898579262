"""Online retrieval for OG-MAR: a topic classifier (question → top domains) and triple retrieval
(question + chosen domains → the best ontology relations per domain).

- ``TopicClassifier``: cosine similarity between the question and each domain's text (its name,
  description and subclass names); the top ``k`` domains. A baseline the workflow can use or replace
  with the model.
- ``TripleRetriever``: a relation's score is the mean cosine similarity of the question to its two
  endpoint classes (``name: description``). For each chosen domain (the "category") it returns the
  ``per_category`` (default 3) best relations with at least one endpoint in that domain; ties by
  (subject, predicate, object). Relations are scored by brute force (the ontology has ~150).

Both take any ``Embedder`` (default: the packaged all-MiniLM-L6-v2, ``minilm_embedder``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paperworks.tools.values.embeddings import Embedder, minilm_embedder
from paperworks.tools.values.ontology import Ontology, Relation
from paperworks.tools.values.taxonomy import Taxonomy


@dataclass(frozen=True)
class DomainScore:
    """A domain and its similarity to the question."""

    domain: str
    score: float


@dataclass(frozen=True)
class ScoredTriple:
    """A relation with its retrieval score (mean of the endpoint similarities) and the category it was
    retrieved for."""

    relation: Relation
    score: float
    subject_similarity: float
    object_similarity: float
    category: str = ""


class TopicClassifier:
    """Question → domains by embedding similarity (see the module docstring)."""

    def __init__(self, taxonomy: Taxonomy, embed: Embedder | None = None) -> None:
        self.taxonomy = taxonomy
        self.embed = embed or minilm_embedder()
        self.domains = [d.id for d in taxonomy.domains]
        texts = [f"{d.name}: {d.description} Topics: " + ", ".join(c.name for c in taxonomy.subclasses_of(d.id)) + "."
                 for d in taxonomy.domains]
        self._vectors = self.embed(texts)

    def scores(self, question: str) -> list[DomainScore]:
        """Every domain with its similarity, best first (ties in taxonomy order)."""
        sims = self._vectors @ self.embed([question])[0]
        order = sorted(range(len(self.domains)), key=lambda i: (-float(sims[i]), i))
        return [DomainScore(self.domains[i], float(sims[i])) for i in order]

    def classify(self, question: str, k: int = 2) -> list[str]:
        """The ``k`` most similar domains."""
        return [d.domain for d in self.scores(question)[:k]]


class TripleRetriever:
    """Question + domains → top relations per domain (see the module docstring)."""

    def __init__(self, ontology: Ontology, taxonomy: Taxonomy, embed: Embedder | None = None) -> None:
        self.ontology = ontology
        self.taxonomy = taxonomy
        self.embed = embed or minilm_embedder()
        self.relations = sorted(ontology, key=lambda r: (r.subject, r.predicate, r.object))
        ids = sorted({c for r in self.relations for c in r.pair})
        self._index = {c: i for i, c in enumerate(ids)}
        self._vectors = self.embed([taxonomy.get(c).text() for c in ids]) if ids else np.zeros((0, 1))

    def score(self, question: str) -> list[ScoredTriple]:
        """Every relation with its score, best first."""
        if not self.relations:
            return []
        sims = self._vectors @ self.embed([question])[0]
        scored = []
        for r in self.relations:
            s, o = float(sims[self._index[r.subject]]), float(sims[self._index[r.object]])
            scored.append(ScoredTriple(r, (s + o) / 2.0, s, o))
        return sorted(scored, key=lambda t: -t.score)  # stable: ties keep (subject, predicate, object) order

    def retrieve(self, question: str, domains: Sequence[str], per_category: int = 3) -> dict[str, list[ScoredTriple]]:
        """For each domain in ``domains``: its ``per_category`` best relations touching it."""
        unknown = [d for d in domains if d not in self.taxonomy or not self.taxonomy.get(d).is_domain]
        if unknown:
            raise ValueError(f"not a domain of the taxonomy: {', '.join(unknown)}")
        ranked = self.score(question)
        out: dict[str, list[ScoredTriple]] = {}
        for d in dict.fromkeys(domains):
            hits = [t for t in ranked if d in (self.taxonomy.domain_of(t.relation.subject),
                                               self.taxonomy.domain_of(t.relation.object))]
            out[d] = [ScoredTriple(t.relation, t.score, t.subject_similarity, t.object_similarity, d)
                      for t in hits[:per_category]]
        return out

    def retrieve_flat(self, question: str, domains: Sequence[str], per_category: int = 3) -> list[ScoredTriple]:
        """``retrieve`` as one list without repeats, best first."""
        seen, out = set(), []
        for hits in self.retrieve(question, domains, per_category).values():
            for t in hits:
                if t.relation.pair not in seen:
                    seen.add(t.relation.pair)
                    out.append(t)
        return sorted(out, key=lambda t: -t.score)
