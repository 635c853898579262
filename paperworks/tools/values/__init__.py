"""OG-MAR's deterministic data and tools layer (issue 13): the value taxonomy, survey data (a loader for
real survey files and a synthetic population with a known ontology), respondent value profiles and their
summary cache, demographic retrieval, the RDF ontology store and its scoring against ground truth,
triple retrieval and a topic classifier, model-free baselines, and the suite builder.

Names are imported lazily (``from paperworks.tools.values import TripleRetriever`` loads numpy only then);
nothing here imports langgraph or litellm.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paperworks.tools.values.baselines import (
        item_majority,
        knn_majority,
        own_class_answers,
        triple_evidence,
        triple_vote,
    )
    from paperworks.tools.values.embeddings import Embedder, HashingEmbedder, minilm_embedder
    from paperworks.tools.values.errors import ValuesDataError
    from paperworks.tools.values.loader import load_survey, read_table
    from paperworks.tools.values.mapping import SurveyMapping, load_mapping, mapping_for, parse_rule, write_mapping
    from paperworks.tools.values.neighbours import Neighbour, demographic_distance, nearest_respondents
    from paperworks.tools.values.ontology import PREDICATES, Ontology, Provenance, Relation, relation
    from paperworks.tools.values.ontology_eval import OntologyScore, compare_ontologies, score_ontology
    from paperworks.tools.values.profiles import ClassScore, SummaryCache, ValueProfile, value_profile
    from paperworks.tools.values.retrieval import DomainScore, ScoredTriple, TopicClassifier, TripleRetriever
    from paperworks.tools.values.suite_builder import (
        HeldoutQuestion,
        HeldoutSplit,
        ValuesSuite,
        read_suite,
        split_heldout,
        write_suite,
    )
    from paperworks.tools.values.survey import DemographicField, ItemSpec, Respondent, SurveyData
    from paperworks.tools.values.synth import Population, generate_population, load_model
    from paperworks.tools.values.synth.oracle import OracleModel
    from paperworks.tools.values.taxonomy import Taxonomy, ValueClass, load_taxonomy

_WHERE = {
    "item_majority": "baselines", "knn_majority": "baselines", "own_class_answers": "baselines",
    "triple_evidence": "baselines", "triple_vote": "baselines",
    "Embedder": "embeddings", "HashingEmbedder": "embeddings", "minilm_embedder": "embeddings",
    "ValuesDataError": "errors", "load_survey": "loader", "read_table": "loader",
    "SurveyMapping": "mapping", "load_mapping": "mapping", "mapping_for": "mapping", "parse_rule": "mapping",
    "write_mapping": "mapping", "Neighbour": "neighbours", "demographic_distance": "neighbours",
    "nearest_respondents": "neighbours", "PREDICATES": "ontology", "Ontology": "ontology",
    "Provenance": "ontology", "Relation": "ontology", "relation": "ontology", "OntologyScore": "ontology_eval",
    "compare_ontologies": "ontology_eval", "score_ontology": "ontology_eval", "ClassScore": "profiles",
    "SummaryCache": "profiles", "ValueProfile": "profiles", "value_profile": "profiles",
    "DomainScore": "retrieval", "ScoredTriple": "retrieval", "TopicClassifier": "retrieval",
    "TripleRetriever": "retrieval", "HeldoutQuestion": "suite_builder", "HeldoutSplit": "suite_builder",
    "ValuesSuite": "suite_builder", "read_suite": "suite_builder", "split_heldout": "suite_builder",
    "write_suite": "suite_builder", "DemographicField": "survey", "ItemSpec": "survey", "Respondent": "survey",
    "SurveyData": "survey", "Population": "synth", "generate_population": "synth", "load_model": "synth",
    "OracleModel": "synth.oracle", "Taxonomy": "taxonomy", "ValueClass": "taxonomy", "load_taxonomy": "taxonomy",
}
__all__ = ["ClassScore", "DemographicField", "DomainScore", "Embedder", "HashingEmbedder", "HeldoutQuestion",
    "HeldoutSplit", "ItemSpec", "Neighbour", "Ontology", "OntologyScore", "OracleModel", "PREDICATES", "Population",
    "Provenance", "Relation", "Respondent", "ScoredTriple", "SummaryCache", "SurveyData", "SurveyMapping",
    "Taxonomy", "TopicClassifier", "TripleRetriever", "ValueClass", "ValueProfile", "ValuesDataError", "ValuesSuite",
    "compare_ontologies", "demographic_distance", "generate_population", "item_majority", "knn_majority",
    "load_mapping", "load_model", "load_survey", "load_taxonomy", "mapping_for", "minilm_embedder",
    "nearest_respondents", "own_class_answers", "parse_rule", "read_suite", "read_table", "relation",
    "score_ontology", "split_heldout", "triple_evidence", "triple_vote", "value_profile", "write_mapping",
    "write_suite"]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'paperworks.tools.values' has no attribute {name!r}")
    return getattr(importlib.import_module(f"paperworks.tools.values.{_WHERE[name]}"), name)
