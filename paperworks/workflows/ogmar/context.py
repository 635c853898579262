"""What OG-MAR's online phase assembles before any model call (deterministic): the question's item, the
respondent's visible value profile, the K most similar training respondents, the topic's domains, the
retrieved triples and what those triples favour.

The respondent's answer to the question's own item is never used, even where the held-out file has it
(the packaged suite blanks every item of the question's class anyway).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from paperworks.agents.ogmar.prompts import persona_text
from paperworks.tools.values.baselines import knn_majority, triple_evidence, triple_vote
from paperworks.tools.values.neighbours import nearest_respondents
from paperworks.tools.values.profiles import ValueProfile, value_profile
from paperworks.tools.values.taxonomy import Taxonomy
from paperworks.workflows.ogmar.data import OgmarConfig, Resources


def score_lines(profile: ValueProfile, taxonomy: Taxonomy, first: Sequence[str], n: int) -> list[str]:
    """Up to ``n`` lines ``Institutional Trust 0.50`` (0 = rejects the value, 1 = holds it): the classes in
    ``first`` that have a score, then the respondent's strongest other classes."""
    chosen: list[str] = []
    for c in first:
        if c not in chosen and profile.score(c) is not None and c in profile.classes:
            chosen.append(c)
    for s in profile.strongest(len(profile.classes)):
        if s.class_id not in chosen:
            chosen.append(s.class_id)
    return [f"{taxonomy.get(c).name} {profile.classes[c].score:.2f}" for c in chosen[:n]]


def _choice_of(item: Any, choices: Sequence[str], value: int) -> str | None:
    text = item.choice(value)
    return next((c for c in choices if c.casefold() == text.casefold()), None)


def gather(res: Resources, cfg: OgmarConfig, question: str, choices: list[str], respondent_id: str,
           demographics: dict[str, Any]) -> dict[str, Any]:
    """The state update of the ``prepare`` node (see the module docstring)."""
    taxonomy, train = res.taxonomy, res.train
    item = res.item_for(question)
    errors: list[str] = []
    if item is None:
        errors.append("the question is not an item of the mapping: no neighbour answers, no item class")
    elif sorted(c.casefold() for c in item.choices) != sorted(c.casefold() for c in choices):
        errors.append(f"the choices {choices} differ from item {item.code}'s {list(item.choices)}")
        item = None
    target = res.respondent(respondent_id, demographics)
    hidden = [item.code] if item else []
    profile = value_profile(target, train.items, taxonomy, exclude=hidden)
    out: dict[str, Any] = {"item": item.code if item else None, "class_id": item.class_id if item else None,
                           "target_text": persona_text(demographics), "visible_answers": len(profile.items_used),
                           "errors": errors, "ontology": res.ontology_path, "triples": [], "domains": [],
                           "favoured": None, "triple_evidence": None}
    if cfg.mode == "knn":
        if item is None:
            raise ValueError("mode=knn needs the question to be an item of the mapping (its wording, exactly)")
        value = knn_majority(demographics, train, item.code, cfg.k)
        out["knn_answer"] = _choice_of(item, choices, value)
        out["neighbours"] = _neighbours(res, cfg, demographics, respondent_id, item, choices, [])
        return out
    if cfg.mode in ("zero_shot", "persona"):
        out["neighbours"] = []
        out["target_lines"] = []
        return out
    relations = []
    if cfg.mode == "ogmar" and res.ontology is not None and len(res.ontology):
        classifier, retriever = res.retrieval(cfg.embedder)
        domains = classifier.classify(question, cfg.topic_k)
        hits = retriever.retrieve_flat(question, domains, cfg.per_category)
        names = {c.id: c.name for c in taxonomy}
        relations = [t.relation for t in hits]
        out["domains"] = domains
        out["triples"] = [{"subject": t.relation.subject, "predicate": t.relation.predicate,
                           "object": t.relation.object, "weight": round(t.relation.weight, 4),
                           "score": round(t.score, 4), "category": t.category, "text": t.relation.text(names)}
                          for t in hits]
        if item is not None and relations:
            vote = triple_vote(profile, item, relations)
            out["favoured"] = None if vote is None else _choice_of(item, choices, vote)
            out["triple_evidence"] = round(triple_evidence(profile, item.class_id, relations), 4)
    endpoints = [c for r in relations for c in r.pair if c != (item.class_id if item else None)]
    out["target_lines"] = score_lines(profile, taxonomy, endpoints, cfg.profile_lines)
    out["neighbours"] = _neighbours(res, cfg, demographics, respondent_id, item, choices, endpoints)
    return out


def _neighbours(res: Resources, cfg: OgmarConfig, demographics: dict[str, Any], respondent_id: str, item: Any,
                choices: list[str], endpoints: list[str]) -> list[dict[str, Any]]:
    taxonomy, train = res.taxonomy, res.train
    found = nearest_respondents(demographics, train.respondents, train.schema, cfg.k, exclude=[respondent_id],
                                require_item=item.code if item else None)
    rows = []
    for i, n in enumerate(found, 1):
        r = n.respondent
        profile = value_profile(r, train.items, taxonomy)
        lines = score_lines(profile, taxonomy, ([item.class_id] if item else []) + endpoints, cfg.profile_lines)
        if res.summaries is not None:
            cached = res.summaries.get(profile, res.summary_variant)
            if cached is not None and cached.text.strip():
                lines = [" ".join(cached.text.split())[:400]]
        answer = _choice_of(item, choices, r.answers[item.code]) if item and item.code in r.answers else None
        rows.append({"persona_id": f"P{i}", "respondent_id": r.id, "distance": round(n.distance, 6),
                     "text": persona_text(r.demographics), "lines": lines,
                     "answer": answer if cfg.neighbour_answers else None, "own_answer": answer})
    return rows
