"""The cultural ontology: typed, weighted relations between taxonomy classes, with provenance, stored as
RDF (rdflib; Turtle export/import; SPARQL for the relations that touch given classes).

A relation reads ``subject predicate object``, e.g. (religious_exclusivism, strongly_undermines,
outgroup_tolerance). Its ``sign`` (+1 supports, -1 undermines) and ``strength`` (0-1) make its weight;
``Provenance`` records where it came from: the personas that asserted it, how many of the personas
asked about the pair agreed, and the source (``generator``, ``model:<name>``, ``expert``).

RDF layout (``TURTLE_PREFIXES``): every relation is a node ``rel:<subject>.<predicate>.<object>`` of
type ``ogv:Relation`` with ``ogv:subject``, ``ogv:predicate``, ``ogv:object`` (class IRIs ``cls:<id>``
and a predicate IRI ``ogv:<predicate>``), ``ogv:sign``, ``ogv:strength`` (xsd:decimal), ``ogv:agreed``,
``ogv:asked``, ``ogv:source`` and one ``ogv:persona`` per persona; the plain triple
``cls:<subject> ogv:<predicate> cls:<object>`` is asserted beside it for simple queries. Given a taxonomy,
its classes are added with ``rdfs:label``, ``rdfs:comment`` and ``skos:broader`` (their domain).
rdflib is imported only when RDF is used.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperworks.tools.values.errors import ValuesDataError
from paperworks.tools.values.yamlrows import hint

if TYPE_CHECKING:
    from rdflib import Graph

    from paperworks.tools.values.taxonomy import Taxonomy

VOCAB = "urn:paperworks:ogmar:vocab#"
CLASS_NS = "urn:paperworks:ogmar:class:"
RELATION_NS = "urn:paperworks:ogmar:relation:"
TURTLE_PREFIXES = {"ogv": VOCAB, "cls": CLASS_NS, "rel": RELATION_NS}

# The relation types: (sign, default strength). A recovered relation may carry its own strength.
PREDICATES: dict[str, tuple[int, float]] = {
    "strongly_supports": (1, 1.0),
    "supports": (1, 0.65),
    "weakly_supports": (1, 0.35),
    "weakly_undermines": (-1, 0.35),
    "undermines": (-1, 0.65),
    "strongly_undermines": (-1, 1.0),
}

TOUCHING_QUERY = """
PREFIX ogv: <urn:paperworks:ogmar:vocab#>
SELECT DISTINCT ?rel WHERE {
  ?rel a ogv:Relation ; ogv:subject ?s ; ogv:object ?o .
  VALUES ?c { %s }
  FILTER (?s = ?c || ?o = ?c)
}
"""


@dataclass(frozen=True)
class Provenance:
    """Where a relation came from."""

    personas: tuple[str, ...] = ()
    """Ids of the personas that asserted this relation (sorted)."""
    agreed: int = 0
    """How many personas gave this relation type for the pair."""
    asked: int = 0
    """How many personas were asked about the pair."""
    source: str = ""
    """``generator``, ``model:<model name>``, ``expert`` ..."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "personas", tuple(sorted(set(self.personas))))

    @property
    def agreement(self) -> float:
        """agreed / asked (0 when nobody was asked)."""
        return self.agreed / self.asked if self.asked else 0.0


@dataclass(frozen=True)
class Relation:
    """One typed, weighted relation between two classes."""

    subject: str
    predicate: str
    object: str
    sign: int
    """+1 (supports) or -1 (undermines)."""
    strength: float
    """0-1."""
    provenance: Provenance = field(default_factory=Provenance)

    @property
    def weight(self) -> float:
        """sign × strength."""
        return self.sign * self.strength

    @property
    def pair(self) -> tuple[str, str]:
        """(subject, object)."""
        return self.subject, self.object

    def text(self, names: dict[str, str] | None = None) -> str:
        """``Religious Exclusivism strongly undermines Outgroup Tolerance`` (ids when no names given)."""
        names = names or {}
        return (f"{names.get(self.subject, self.subject)} {self.predicate.replace('_', ' ')} "
                f"{names.get(self.object, self.object)}")


def relation(subject: str, predicate: str, obj: str, strength: float | None = None,
             provenance: Provenance | None = None) -> Relation:
    """A relation of a known predicate (its sign and, unless given, its default strength)."""
    if predicate not in PREDICATES:
        raise ValueError(f"unknown predicate {predicate!r}{hint(predicate, PREDICATES)}; expected one of "
                         f"{', '.join(PREDICATES)}")
    sign, default = PREDICATES[predicate]
    return Relation(subject, predicate, obj, sign, default if strength is None else float(strength),
                    provenance or Provenance())


class Ontology:
    """A set of relations, at most one per ordered (subject, object) pair, in insertion order."""

    def __init__(self, relations: Iterable[Relation] = (), name: str = "") -> None:
        self.name = name
        self._by_pair: dict[tuple[str, str], Relation] = {}
        for r in relations:
            self.add(r)

    def add(self, rel: Relation, replace_existing: bool = False) -> None:
        """Add a relation; a second one for the same ordered pair is a ``ValueError`` unless replacing."""
        if rel.pair in self._by_pair and not replace_existing:
            raise ValueError(f"the ontology already has a relation {rel.subject} -> {rel.object}")
        if rel.subject == rel.object:
            raise ValueError(f"a relation needs two different classes, got {rel.subject} twice")
        self._by_pair[rel.pair] = rel

    @property
    def relations(self) -> list[Relation]:
        """All relations, in insertion order."""
        return list(self._by_pair.values())

    def __len__(self) -> int:
        return len(self._by_pair)

    def __iter__(self) -> Iterator[Relation]:
        return iter(self._by_pair.values())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ontology) and sorted(self, key=_order) == sorted(other, key=_order)

    def get(self, subject: str, obj: str) -> Relation | None:
        """The relation subject → object, if any."""
        return self._by_pair.get((subject, obj))

    def touching(self, classes: Iterable[str]) -> list[Relation]:
        """Relations with at least one endpoint in ``classes`` (insertion order)."""
        wanted = set(classes)
        return [r for r in self if r.subject in wanted or r.object in wanted]

    def parents(self, class_id: str) -> list[Relation]:
        """Relations pointing into ``class_id``."""
        return [r for r in self if r.object == class_id]

    def counts(self) -> dict[str, int]:
        """Number of relations per predicate."""
        return dict(Counter(r.predicate for r in self))

    def check(self, taxonomy: Taxonomy) -> list[str]:
        """One line per relation whose endpoint is not a class of ``taxonomy``."""
        problems = []
        for i, r in enumerate(self, 1):
            for role, cid in (("subject", r.subject), ("object", r.object)):
                if cid not in taxonomy:
                    problems.append(f"relation {i} ({r.subject} {r.predicate} {r.object}): field '{role}': expected "
                                    f"a taxonomy class id, got {cid!r}{hint(cid, [c.id for c in taxonomy])}")
        return problems

    def with_source(self, source: str) -> Ontology:
        """A copy whose relations all carry ``source`` in their provenance."""
        return Ontology((replace(r, provenance=replace(r.provenance, source=source)) for r in self), self.name)

    # ------------------------------------------------------------------------------------------ RDF

    def to_graph(self, taxonomy: Taxonomy | None = None) -> Graph:
        """The ontology as an rdflib graph (see the module docstring for the layout)."""
        from rdflib import RDF, RDFS, SKOS, XSD, Graph, Literal, Namespace, URIRef

        ogv, cls = Namespace(VOCAB), Namespace(CLASS_NS)
        g = Graph()
        for prefix, ns in TURTLE_PREFIXES.items():
            g.bind(prefix, Namespace(ns))
        g.bind("skos", SKOS)
        if taxonomy is not None:
            for c in taxonomy:
                node = cls[c.id]
                g.add((node, RDF.type, ogv.ValueClass))
                g.add((node, RDFS.label, Literal(c.name)))
                g.add((node, RDFS.comment, Literal(c.description)))
                g.add((node, ogv.kind, Literal(c.kind)))
                if not c.is_domain:
                    g.add((node, SKOS.broader, cls[c.domain]))
        for r in self:
            node = URIRef(f"{RELATION_NS}{r.subject}.{r.predicate}.{r.object}")
            g.add((cls[r.subject], ogv[r.predicate], cls[r.object]))
            g.add((node, RDF.type, ogv.Relation))
            g.add((node, ogv.subject, cls[r.subject]))
            g.add((node, ogv.predicate, ogv[r.predicate]))
            g.add((node, ogv.object, cls[r.object]))
            g.add((node, ogv.sign, Literal(r.sign)))
            g.add((node, ogv.strength, Literal(Decimal(repr(round(r.strength, 6))), datatype=XSD.decimal)))
            g.add((node, ogv.agreed, Literal(r.provenance.agreed)))
            g.add((node, ogv.asked, Literal(r.provenance.asked)))
            g.add((node, ogv.source, Literal(r.provenance.source)))
            for p in r.provenance.personas:
                g.add((node, ogv.persona, Literal(p)))
        return g

    def to_turtle(self, path: str | Path | None = None, taxonomy: Taxonomy | None = None) -> str:
        """Turtle text of ``to_graph``; also written to ``path`` when given."""
        text: str = self.to_graph(taxonomy).serialize(format="turtle")
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    @classmethod
    def from_graph(cls, graph: Graph, name: str = "") -> Ontology:
        """The relations of an rdflib graph laid out as ``to_graph`` does."""
        from rdflib import RDF, Namespace

        ogv = Namespace(VOCAB)
        nodes = sorted(graph.subjects(RDF.type, ogv.Relation), key=str)
        return cls((_relation_from(graph, n) for n in nodes), name)

    @classmethod
    def from_turtle(cls, source: str | Path, name: str = "") -> Ontology:
        """Read Turtle from a file path or from Turtle text; ``ValuesDataError`` on bad input."""
        from rdflib import Graph

        g = Graph()
        is_path = isinstance(source, Path) or ("\n" not in source and (
            Path(source).is_file() or source.endswith((".ttl", ".turtle"))))
        shown = str(source) if is_path else "turtle text"
        if is_path and not Path(source).is_file():
            raise ValuesDataError([f"{shown}: no such file"])
        try:
            if is_path:
                g.parse(str(source), format="turtle")
            else:
                g.parse(data=str(source), format="turtle")
        except Exception as exc:  # rdflib raises many parser types
            raise ValuesDataError([f"{shown}: invalid Turtle ({' '.join(str(exc).split())[:200]})"]) from exc
        return cls.from_graph(g, name)

    def sparql_touching(self, classes: Iterable[str], graph: Graph | None = None) -> list[Relation]:
        """Relations with an endpoint in ``classes``, found by a SPARQL query (``TOUCHING_QUERY``) over
        ``graph`` (default: this ontology's graph); sorted by (subject, predicate, object)."""
        ids = sorted(set(classes))
        if not ids:
            return []
        g = graph if graph is not None else self.to_graph()
        query = TOUCHING_QUERY % " ".join(f"<{CLASS_NS}{c}>" for c in ids)
        nodes = [row[0] for row in g.query(query)]  # type: ignore[index]
        return sorted((_relation_from(g, n) for n in nodes), key=_order)


def _order(r: Relation) -> tuple[str, str, str]:
    return r.subject, r.predicate, r.object


def _local(iri: Any, ns: str) -> str:
    text = str(iri)
    if not text.startswith(ns):
        raise ValuesDataError([f"RDF node {text}: expected an IRI in {ns}"])
    return text[len(ns):]


def _relation_from(g: Graph, node: Any) -> Relation:
    from rdflib import Namespace

    ogv = Namespace(VOCAB)

    def one(prop: Any) -> Any:
        value = g.value(node, prop)
        if value is None:
            raise ValuesDataError([f"relation {node}: field '{_local(prop, VOCAB)}': expected a value"])
        return value

    def number(prop: Any, default: int = 0) -> int:
        value = g.value(node, prop)
        return default if value is None else int(value.toPython())

    source = g.value(node, ogv.source)
    personas = tuple(sorted(str(p) for p in g.objects(node, ogv.persona)))
    return Relation(
        subject=_local(one(ogv.subject), CLASS_NS), predicate=_local(one(ogv.predicate), VOCAB),
        object=_local(one(ogv.object), CLASS_NS), sign=int(one(ogv.sign).toPython()),
        strength=float(one(ogv.strength).toPython()),
        provenance=Provenance(personas, number(ogv.agreed), number(ogv.asked), "" if source is None else str(source)),
    )
