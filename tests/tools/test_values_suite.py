"""The values_synth suite: complete over regions and domains, no held-out answer visible, answers equal
the generator's, its folder regenerates byte for byte (--check), and it loads through the suite loader.
Also the suite builder on a small population and on a real-survey-shaped file."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from paperworks.eval.suite import load_suite
from paperworks.tools.values.loader import load_survey
from paperworks.tools.values.ontology import Ontology
from paperworks.tools.values.suite_builder import read_suite, split_heldout, write_suite
from paperworks.tools.values.synth import generate_population, load_model
from paperworks.tools.values.taxonomy import load_taxonomy
from paperworks.workflows import registry
from paperworks.workflows.registry import WorkflowSpec
from tests.fixtures.values import write_wvs_like

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "evals" / "values_synth"
SCRIPT = ROOT / "scripts" / "make_values_synth.py"


def _rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (SUITE / "questions.jsonl").read_text(encoding="utf-8").splitlines()]


def _csv(name: str) -> dict[str, dict[str, str]]:
    with open(SUITE / "population" / name, newline="", encoding="utf-8") as fh:
        return {row["respondent_id"]: row for row in csv.DictReader(fh)}


def test_suite_covers_every_region_and_domain() -> None:
    rows = _rows()
    assert len(rows) == 360 and len({r["id"] for r in rows}) == 360
    cells = Counter((r["region"], r["domain"]) for r in rows)
    assert len(cells) == 6 * 12 and set(cells.values()) == {5}
    assert len({r["class"] for r in rows}) == 64
    taxonomy = load_taxonomy(SUITE / "taxonomy.yaml")
    for r in rows:
        assert r["answer"] == r["choices"][0 if r["answer_value"] == 1 else 1], r["id"]
        assert taxonomy.domain_of(r["class"]) == r["domain"] and r["demographics"]["region"] == r["region"]
        assert set(r["demographics"]) == {"country", "region", "age", "sex", "education", "income", "religiosity",
                                          "urban"}
    assert taxonomy.content_hash() == load_taxonomy().content_hash()


def test_no_held_out_answer_is_visible() -> None:
    rows, train, heldout = _rows(), _csv("train.csv"), _csv("heldout.csv")
    items = {i.code: i for i in load_model().items}
    assert len(train) == 1200 and len(heldout) == 120 and not set(train) & set(heldout)
    for r in rows:
        seen = heldout[r["respondent_id"]]
        same_class = [c for c, i in items.items() if i.class_id == r["class"]]
        assert len(same_class) == 2 and all(seen[c] == "" for c in same_class), r["id"]  # hide=class
        assert set(same_class) <= set(r["hidden_items"])
    for rid, seen in heldout.items():
        hidden = {c for r in rows if r["respondent_id"] == rid for c in r["hidden_items"]}
        assert len(hidden) == 6 and sum(seen[c] == "" for c in items) == 6  # 3 classes × 2 items, nothing else


def test_answers_and_population_equal_the_generator() -> None:
    meta = json.loads((SUITE / "oracle" / "generator.json").read_text())
    pop = generate_population(meta["per_region"], meta["seed"])
    for r in _rows():
        assert pop.member(r["respondent_id"]).respondent.answers[r["item"]] == r["answer_value"], r["id"]
    suite = read_suite(SUITE)
    assert [q.id for q in suite.questions] == [r["id"] for r in _rows()]
    for resp in suite.train.respondents[:50]:
        assert resp == pop.member(resp.id).respondent
    assert Ontology.from_turtle(SUITE / "oracle" / "ontology.ttl") == load_model().relations
    assert meta["relations"] == 132 and sum(meta["relation_counts"].values()) == 132


def test_the_folder_matches_a_fresh_generation() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "matches a fresh generation (12 files)" in done.stdout


class _Input(BaseModel):
    question: str
    choices: list[str]
    respondent_id: str
    demographics: dict[str, Any]


class _Config(BaseModel):
    model_config = ConfigDict(extra="allow")


STUB = WorkflowSpec(name="ogmar", description="stand-in until the ogmar workflow lands",
                    build_graph=lambda config: None, input_model=_Input, make_state=lambda i: {},
                    output=lambda s: s, config_model=_Config)


def test_loads_through_the_suite_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    if "ogmar" not in registry.workflow_names():  # the real workflow, once it exists
        monkeypatch.setitem(registry.BUILTIN, "ogmar", f"{__name__}:STUB")
    suite = load_suite(str(SUITE))
    assert suite.name == "values_synth" and len(suite.samples) == 360
    assert suite.spec.group_by == ["region", "domain"] and [s.name for s in suite.spec.scorers] == ["match"]
    first = suite.samples[0]
    assert isinstance(first.input["demographics"], dict) and isinstance(first.input["choices"], list)
    assert "domain" not in first.input and first.metadata["domain"] and first.metadata["region"]
    for key in ("population", "heldout", "mapping", "taxonomy"):
        assert (SUITE / suite.spec.config[key]).is_file()


def test_split_balances_domains_and_hides_only_the_item(tmp_path: Path) -> None:
    taxonomy = load_taxonomy()
    survey = generate_population(6, seed=4).survey()
    split = split_heldout(survey, taxonomy, per_group=4, questions_per_respondent=3, seed=1, hide="item")
    assert len(split.questions) == 6 * 12 and len(split.heldout) == 24 and len(split.train) == 12
    for region in {q.region for q in split.questions}:
        assert Counter(q.domain for q in split.questions if q.region == region) == {d.id: 1 for d in taxonomy.domains}
    for q in split.questions:
        visible = split.heldout.respondent(q.respondent_id).answers
        assert q.item not in visible and len(visible) == 125  # only its 3 questions' items are hidden
    counts = write_suite(tmp_path / "s", split, taxonomy, name="s", description="d", title="t", generator="g")
    assert counts == {"questions": 72, "train": 12, "heldout": 24}
    assert "each question's own item is blank" in (tmp_path / "s" / "suite.yaml").read_text()
    back = read_suite(tmp_path / "s")
    assert back.heldout.respondents == split.heldout.respondents and back.questions == split.questions
    with pytest.raises(ValueError, match="hide must be 'class' or 'item'"):
        split_heldout(survey, taxonomy, hide="answers")


def test_a_suite_from_a_real_survey_shaped_file(tmp_path: Path) -> None:
    data, mapping = write_wvs_like(tmp_path / "in")
    survey = load_survey(data, mapping)
    split = split_heldout(survey, load_taxonomy(), per_group=1, questions_per_respondent=2, seed=0)
    assert sorted(q.region for q in split.questions) == ["Europe", "Europe", "Latin America", "Latin America",
                                                          "Sub-Saharan Africa", "Sub-Saharan Africa"]
    write_suite(tmp_path / "out", split, load_taxonomy(), name="wvs_sample", description="d", title="t", generator="g")
    back = read_suite(tmp_path / "out")
    assert back.train.respondents == split.train.respondents and len(back.questions) == 6
    assert back.heldout.schema == survey.schema
