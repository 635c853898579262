"""The RDF ontology store (Turtle round-trip, SPARQL, provenance) and precision/recall of a recovered
ontology against the generator's ground truth."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from paperworks.tools.values.errors import ValuesDataError
from paperworks.tools.values.ontology import Ontology, Provenance, relation
from paperworks.tools.values.ontology_eval import compare_ontologies, score_ontology
from paperworks.tools.values.synth import load_model
from paperworks.tools.values.taxonomy import load_taxonomy

OUTGROUP = [("outgroup_tolerance", "strongly_undermines", "immigration_threat"),
            ("outgroup_tolerance", "supports", "immigration_benefit"),
            ("outgroup_tolerance", "supports", "trust_in_outsiders"),
            ("outgroup_tolerance", "weakly_supports", "democracy_importance"),
            ("religious_exclusivism", "strongly_undermines", "outgroup_tolerance"),
            ("sexual_minority_acceptance", "weakly_supports", "outgroup_tolerance")]


def test_ground_truth_round_trips_through_turtle(tmp_path: Path) -> None:
    truth = load_model().relations
    text = truth.to_turtle(tmp_path / "truth.ttl", taxonomy=load_taxonomy())
    assert "ogv:strongly_undermines cls:outgroup_tolerance" in text
    assert "rel:religious_exclusivism.strongly_undermines.outgroup_tolerance a ogv:Relation" in text
    back = Ontology.from_turtle(tmp_path / "truth.ttl")
    assert back == truth and len(back) == 132 and back.counts() == truth.counts()
    assert Ontology.from_turtle(text) == truth  # from text as well as from a file
    assert all(r.provenance.source == "generator" for r in back)


def test_provenance_and_strength_survive(tmp_path: Path) -> None:
    rel = relation("religious_exclusivism", "strongly_undermines", "outgroup_tolerance", strength=0.4375,
                   provenance=Provenance(("EUR-07", "AFR-02", "EUR-07"), agreed=17, asked=20, source="model:x"))
    onto = Ontology([rel, relation("happiness", "weakly_supports", "generalized_trust")])
    back = Ontology.from_turtle(onto.to_turtle())
    got = back.get("religious_exclusivism", "outgroup_tolerance")
    assert got == rel and got is not None
    assert got.provenance.personas == ("AFR-02", "EUR-07") and got.provenance.agreement == 0.85
    assert got.weight == -0.4375 and got.text({"outgroup_tolerance": "Outgroup Tolerance"}) == \
        "religious_exclusivism strongly undermines Outgroup Tolerance"


def test_sparql_finds_the_relations_touching_classes() -> None:
    truth = load_model().relations
    graph = truth.to_graph(load_taxonomy())
    found = truth.sparql_touching(["outgroup_tolerance"], graph)
    assert [(r.subject, r.predicate, r.object) for r in found] == OUTGROUP
    wanted = ["religious_importance", "national_pride", "army_rule_support"]
    assert {r.pair for r in truth.sparql_touching(wanted)} == {r.pair for r in truth.touching(wanted)}
    assert len(truth.sparql_touching(wanted)) == 17  # 9 + 7 + 2, one shared (religious_importance → national_pride)
    assert truth.sparql_touching([]) == []
    labels = list(graph.query('PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> SELECT ?l WHERE '
                              '{ <urn:paperworks:ogmar:class:outgroup_tolerance> rdfs:label ?l }'))
    assert [str(row[0]) for row in labels] == ["Outgroup Tolerance"]  # type: ignore[index]


def test_precision_and_recall_against_the_ground_truth() -> None:
    truth = load_model().relations
    rels = truth.relations
    kept = rels[10:]                                   # 10 relations missed
    flip = {kept[i].pair for i in (0, 1, 2)}           # 3 with the sign wrong
    regrade = {kept[i].pair for i in (3, 4, 5, 6)}     # 4 with the right sign, wrong strength grade
    reverse = {kept[i].pair for i in (7, 8)}           # 2 with the direction reversed
    grade = {"supports": "strongly_supports", "strongly_supports": "supports", "weakly_supports": "supports",
             "undermines": "strongly_undermines", "strongly_undermines": "undermines",
             "weakly_undermines": "undermines"}
    opposite = {"supports": "undermines", "strongly_supports": "strongly_undermines",
                "weakly_supports": "weakly_undermines", "undermines": "supports",
                "strongly_undermines": "strongly_supports", "weakly_undermines": "weakly_supports"}
    recovered = Ontology()
    for r in kept:
        if r.pair in flip:
            recovered.add(relation(r.subject, opposite[r.predicate], r.object))
        elif r.pair in regrade:
            recovered.add(relation(r.subject, grade[r.predicate], r.object))
        elif r.pair in reverse:
            recovered.add(replace(r, subject=r.object, object=r.subject))
        else:
            recovered.add(r)
    invented = [("happiness", "army_rule_support"), ("national_pride", "scientist_trust"),
                ("work_centrality", "secular_politics"), ("media_confidence", "war_willingness"),
                ("self_rated_health", "online_engagement")]
    for s, o in invented:
        assert truth.get(s, o) is None and truth.get(o, s) is None
        recovered.add(relation(s, "supports", o))
    scores = {k: (v.tp, v.fp, v.fn) for k, v in compare_ontologies(recovered, truth).items()}
    assert scores == {"pair": (122, 5, 10), "directed": (120, 7, 12), "signed": (117, 10, 15), "typed": (113, 14, 19)}
    signed = score_ontology(recovered, truth)
    assert (signed.precision, signed.recall) == (117 / 127, 117 / 132)
    assert signed.as_dict()["f1"] == round(2 * 117 / (127 + 132), 4)
    assert score_ontology(truth, truth, "typed").f1 == 1.0 and score_ontology(Ontology(), truth).precision == 0.0
    with pytest.raises(ValueError, match="unknown level 'exact'"):
        score_ontology(recovered, truth, "exact")


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ValuesDataError, match="invalid Turtle") as info:
        Ontology.from_turtle("@prefix ogv: <urn:x#> .\nogv:a ogv:b [ .\n")
    assert len(str(info.value).splitlines()) == 1
    with pytest.raises(ValuesDataError, match="missing.ttl: no such file"):
        Ontology.from_turtle(str(tmp_path / "missing.ttl"))
    with pytest.raises(ValueError, match="unknown predicate 'supprts' \\(did you mean 'supports'\\?\\)"):
        relation("a", "supprts", "b")
    onto = Ontology([relation("happiness", "supports", "life_satisfaction")])
    with pytest.raises(ValueError, match="already has a relation happiness -> life_satisfaction"):
        onto.add(relation("happiness", "undermines", "life_satisfaction"))
    with pytest.raises(ValueError, match="two different classes"):
        onto.add(relation("happiness", "supports", "happiness"))
    onto.add(relation("happines", "supports", "trust"))
    assert onto.check(load_taxonomy()) == [
        "relation 2 (happines supports trust): field 'subject': expected a taxonomy class id, got 'happines' "
        "(did you mean 'happiness'?)",
        "relation 2 (happines supports trust): field 'object': expected a taxonomy class id, got 'trust'"]
