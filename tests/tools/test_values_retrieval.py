"""Triple retrieval (endpoint similarity, top 3 per category) and the topic classifier, with a keyword
embedder whose cosines can be computed by hand; one slow check on the packaged MiniLM embeddings."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

from paperworks.tools.values.embeddings import HashingEmbedder
from paperworks.tools.values.ontology import Ontology, relation
from paperworks.tools.values.retrieval import TopicClassifier, TripleRetriever
from paperworks.tools.values.taxonomy import Taxonomy, ValueClass

WORDS = ["religion", "tolerance", "immigration", "trust", "democracy"]


def keyword_embed(texts: Sequence[str]) -> np.ndarray:
    """Counts of the five keywords, L2-normalised."""
    rows = np.array([[t.lower().count(w) for w in WORDS] for t in texts], dtype=float)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1, norms)


def _c(cid: str, kind: str, domain: str, name: str, description: str) -> ValueClass:
    return ValueClass(cid, name, kind, domain, description)


TAXONOMY = Taxonomy([
    _c("d_rel", "domain", "d_rel", "Faith", "religion"),
    _c("d_soc", "domain", "d_soc", "Society", "tolerance immigration"),
    _c("d_pol", "domain", "d_pol", "Politics", "democracy"),
    _c("excl", "subclass", "d_rel", "Exclusivism", "religion religion"),   # (1, 0, 0, 0, 0)
    _c("tol", "subclass", "d_soc", "Openness", "tolerance"),               # (0, 1, 0, 0, 0)
    _c("imm", "subclass", "d_soc", "Newcomers", "immigration tolerance"),  # (0, 1, 1, 0, 0) / √2
    _c("dem", "subclass", "d_pol", "Rule", "democracy trust"),             # (0, 0, 0, 1, 1) / √2
])
ONTOLOGY = Ontology([relation("excl", "strongly_undermines", "tol"), relation("tol", "supports", "imm"),
                     relation("imm", "weakly_supports", "dem"), relation("excl", "undermines", "dem")])
QUESTION = "Does religion go with tolerance?"  # (1, 1, 0, 0, 0) / √2


def test_scores_are_the_mean_endpoint_similarity() -> None:
    r = TripleRetriever(ONTOLOGY, TAXONOMY, keyword_embed)
    got = {(t.relation.subject, t.relation.object): round(t.score, 4) for t in r.score(QUESTION)}
    half = 1 / math.sqrt(2)
    assert got == {("excl", "tol"): round(half, 4),            # (.7071 + .7071) / 2
                   ("tol", "imm"): round((half + 0.5) / 2, 4),  # (.7071 + .5) / 2 = .6036
                   ("excl", "dem"): round(half / 2, 4),         # (.7071 + 0) / 2 = .3536
                   ("imm", "dem"): 0.25}                        # (.5 + 0) / 2
    assert [(t.relation.subject, t.relation.object) for t in r.score(QUESTION)] == [
        ("excl", "tol"), ("tol", "imm"), ("excl", "dem"), ("imm", "dem")]


def test_top_per_category_touch_their_domain() -> None:
    r = TripleRetriever(ONTOLOGY, TAXONOMY, keyword_embed)
    got = r.retrieve(QUESTION, ["d_soc", "d_rel"], per_category=2)
    assert list(got) == ["d_soc", "d_rel"]
    assert [(t.relation.subject, t.relation.object) for t in got["d_soc"]] == [("excl", "tol"), ("tol", "imm")]
    assert [(t.relation.subject, t.relation.object) for t in got["d_rel"]] == [("excl", "tol"), ("excl", "dem")]
    assert {t.category for t in got["d_rel"]} == {"d_rel"}
    assert [t.relation.pair for t in r.retrieve(QUESTION, ["d_pol"])["d_pol"]] == [("excl", "dem"), ("imm", "dem")]
    flat = r.retrieve_flat(QUESTION, ["d_soc", "d_rel"], per_category=2)
    assert [t.relation.pair for t in flat] == [("excl", "tol"), ("tol", "imm"), ("excl", "dem")]
    with pytest.raises(ValueError, match="not a domain of the taxonomy: tol"):
        r.retrieve(QUESTION, ["tol"])
    assert TripleRetriever(Ontology(), TAXONOMY, keyword_embed).retrieve(QUESTION, ["d_soc"]) == {"d_soc": []}


def test_topic_classifier_ranks_domains() -> None:
    c = TopicClassifier(TAXONOMY, keyword_embed)
    # domain texts "Society: tolerance immigration Topics: Openness, Newcomers." -> (0, 1, 1, 0, 0) / √2 ...
    got = [(d.domain, round(d.score, 4)) for d in c.scores("immigration and tolerance")]
    assert got == [("d_soc", 1.0), ("d_rel", 0.0), ("d_pol", 0.0)]  # ties in taxonomy order
    assert [(d.domain, round(d.score, 4)) for d in c.scores("religion or democracy?")] == [
        ("d_rel", 0.7071), ("d_pol", 0.7071), ("d_soc", 0.0)]
    assert c.classify("religion or democracy?", k=1) == ["d_rel"]
    hashing = TopicClassifier(TAXONOMY, HashingEmbedder())
    assert hashing.classify("Newcomers and openness in society", k=1) == ["d_soc"]
    assert [d.domain for d in hashing.scores("government politics")][:1] == ["d_pol"]


def test_hashing_embedder_is_deterministic_and_normalised() -> None:
    e = HashingEmbedder()
    a, b = e(["Trust in institutions", "trusting institution"]), e(["Trust in institutions"])
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0) and np.array_equal(a[0], b[0])
    assert float(a[0] @ a[1]) == pytest.approx(1.0)  # same stems: trust, institution
    assert float(e(["religion"])[0] @ e(["democracy"])[0]) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.slow
def test_packaged_minilm_embeddings_pick_the_right_domain_and_triples() -> None:
    from paperworks.tools.values.embeddings import minilm_embedder
    from paperworks.tools.values.synth import load_model
    from paperworks.tools.values.taxonomy import load_taxonomy

    embed, taxonomy, truth = minilm_embedder(), load_taxonomy(), load_model().relations
    classifier, retriever = TopicClassifier(taxonomy, embed), TripleRetriever(truth, taxonomy, embed)
    question = "Do you believe that only your own religion is the true one?"
    domains = classifier.classify(question, k=2)
    assert domains[0] == "religious_values"
    hits = retriever.retrieve(question, domains)
    assert all(len(v) == 3 for v in hits.values())
    assert any(t.relation.pair == ("religious_exclusivism", "outgroup_tolerance") for t in hits["religious_values"])
    migration = "Should the government put strict limits on the number of people coming to work here?"
    top = retriever.retrieve(migration, ["migration"])["migration"][0].relation
    assert top.object == "immigration_restriction"
