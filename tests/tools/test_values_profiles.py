"""Respondent value profiles (per-class scores by hand) and the summary cache keyed by content hash."""

from __future__ import annotations

from pathlib import Path

from paperworks.tools.values.profiles import SummaryCache, value_profile
from paperworks.tools.values.survey import ItemSpec, Respondent
from paperworks.tools.values.taxonomy import load_taxonomy

ITEMS = {"A1": ItemSpec("A1", "generalized_trust", "a1?", ("yes", "no"), key=1),
         "A2": ItemSpec("A2", "generalized_trust", "a2?", ("yes", "no"), key=-1),
         "B1": ItemSpec("B1", "institutional_trust", "b1?", ("yes", "no"), key=1),
         "C1": ItemSpec("C1", "national_pride", "c1?", ("yes", "no"), key=1)}
WHO = Respondent("r1", {"country": "EUR-1", "age": 30}, {"A1": 1, "A2": 1, "B1": 0, "C1": 1, "ZZ": 1})


def test_scores_by_hand() -> None:
    p = value_profile(WHO, ITEMS, load_taxonomy())
    assert {k: (v.n_items, v.n_towards) for k, v in p.classes.items()} == {
        "generalized_trust": (2, 1), "institutional_trust": (1, 0), "national_pride": (1, 1)}
    assert {k: (v.n_items, v.n_towards) for k, v in p.domains.items()} == {
        "social_capital": (3, 1), "political_culture": (1, 1)}
    assert p.score("generalized_trust") == 0.5 and p.score("social_capital") == 1 / 3
    assert p.score("happiness") is None and p.items_used == ("A1", "A2", "B1", "C1")  # ZZ: not in the mapping
    assert [c.class_id for c in p.strongest(2)] == ["institutional_trust", "national_pride"]
    assert p.lines(load_taxonomy())[0] == ("Generalised Trust (Social Capital and Trust): 0.50 — 1 of 2 answers "
                                           "lean towards it")
    hidden = value_profile(WHO, ITEMS, load_taxonomy(), exclude=["A2"])
    assert hidden.classes["generalized_trust"].score == 1.0 and "A2" not in hidden.items_used


def test_content_hash_covers_exactly_the_evidence(tmp_path: Path) -> None:
    taxonomy = load_taxonomy()
    base = value_profile(WHO, ITEMS, taxonomy, exclude=["A2"])
    flipped_hidden = Respondent("r1", WHO.demographics, {**WHO.answers, "A2": 0})
    flipped_seen = Respondent("r1", WHO.demographics, {**WHO.answers, "B1": 1})
    assert value_profile(flipped_hidden, ITEMS, taxonomy, exclude=["A2"]).content_hash == base.content_hash
    assert value_profile(flipped_seen, ITEMS, taxonomy, exclude=["A2"]).content_hash != base.content_hash
    other_id = Respondent("r2", WHO.demographics, WHO.answers)
    assert value_profile(other_id, ITEMS, taxonomy, exclude=["A2"]).content_hash != base.content_hash
    text = Path(taxonomy.source).read_text().replace("Trust in family members", "Trust in relatives")
    (tmp_path / "t.yaml").write_text(text)
    assert value_profile(WHO, ITEMS, load_taxonomy(tmp_path / "t.yaml"), exclude=["A2"]).content_hash \
        != base.content_hash


def test_summary_cache_round_trip(tmp_path: Path) -> None:
    taxonomy = load_taxonomy()
    p = value_profile(WHO, ITEMS, taxonomy)
    cache = SummaryCache(tmp_path / "cache" / "summaries.sqlite")
    assert cache.get(p) is None
    cache.put(p, "Trusts people, proud of the country.", variant="local/smollm2-135m:v1", meta={"tokens": 42})
    assert cache.get(p) is None  # another variant
    got = cache.get(p, variant="local/smollm2-135m:v1")
    assert got is not None and got.text == "Trusts people, proud of the country." and got.meta == {"tokens": 42}
    cache.put(p, "replaced", variant="local/smollm2-135m:v1")
    cache.close()
    again = SummaryCache(tmp_path / "cache" / "summaries.sqlite")
    hit = again.get(p, variant="local/smollm2-135m:v1")
    assert len(again) == 1 and hit is not None and hit.text == "replaced"
    assert again.get(value_profile(WHO, ITEMS, taxonomy, exclude=["C1"]), variant="local/smollm2-135m:v1") is None
    again.close()
