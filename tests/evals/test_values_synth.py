"""The values_synth suite: every row gives the workflow the respondent and the question, never the answer
or the hidden class answers; an in-process eval with a scripted oracle scores 100% and a wrong one 0%;
``paperworks eval`` in the model-free kNN mode reproduces ``knn_majority`` on the same rows."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from paperworks.eval import harness
from paperworks.eval.suite import open_suite
from paperworks.models.scripted import register_script
from paperworks.tools.values import knn_majority, read_suite
from paperworks.workflows.ogmar.data import packaged_suite
from paperworks.workflows.ogmar.replay import answer_replies, variant_suite
from tests.conftest import cli

SUITE = packaged_suite()
ROWS = [json.loads(line) for line in (SUITE / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
IDS = [r["id"] for r in ROWS[:2] + ROWS[100:102]]


def test_rows_never_show_the_answer_or_the_hidden_answers() -> None:
    suite = open_suite("values_synth")
    assert len(suite.samples) == 360 and suite.spec.workflow == "ogmar" and suite.spec.group_by == ["region", "domain"]
    values = read_suite(SUITE)
    for sample, row in zip(suite.samples, ROWS, strict=True):
        assert set(sample.input) == {"question", "choices", "respondent_id", "demographics"}
        assert sample.target == row["answer"] and "answer_value" not in json.dumps(sample.input)
        assert not set(row["hidden_items"]) & set(values.heldout.respondent(row["respondent_id"]).answers)
        assert row["item"] in row["hidden_items"]


def _eval(model: str, suite: str, log: Path, ids: list[str]) -> dict[str, Any]:
    run = harness.create_eval(harness.EvalArgs(suite=suite, model=model, sample_ids=ids, concurrency=2,
                                               log_dir=str(log)))
    results = asyncio.run(harness.run_eval(run))
    assert results.errors == {}, results.errors
    return results.metrics


@pytest.mark.parametrize("wrong", [False, True])
def test_scripted_oracle_scores_all_and_a_wrong_one_none(tmp_path: Path, wrong: bool) -> None:
    rows = [r for r in ROWS if r["id"] in IDS]
    model = register_script(f"values-{wrong}", answer_replies(rows, wrong))
    metrics = _eval(model, "values_synth", tmp_path / "plain", IDS)  # the suite as shipped: no ontology
    assert metrics["match/accuracy"]["value"] == (0.0 if wrong else 1.0)
    assert metrics["match/abstained"]["value"] == 0.0
    assert any(k.startswith("match/accuracy[region=") for k in metrics)
    oracle = variant_suite(SUITE, tmp_path / "values_synth_oracle",
                           {"ontology": "oracle/ontology.ttl", "embedder": "hashing", "evidence": "triples"})
    metrics = _eval(model, str(oracle), tmp_path / "oracle", IDS)
    assert metrics["match/accuracy"]["value"] == (0.0 if wrong else 1.0)
    assert "match/consistency" in metrics  # the triples gave evidence for some rows


@pytest.mark.slow
def test_knn_mode_through_paperworks_eval_reproduces_knn_majority(tmp_path: Path) -> None:
    suite = variant_suite(SUITE, tmp_path / "values_synth_knn", {"mode": "knn"})
    proc = cli("eval", str(suite), "--limit", "12", "--log-dir", str(tmp_path / "runs"), "-q", timeout=300)
    assert proc.returncode == 0, proc.stderr
    [run_dir] = list((tmp_path / "runs").iterdir())
    results = json.loads((run_dir / "results.json").read_text())
    values = read_suite(SUITE)
    expected = {q.id: values.train.items[q.item].choice(knn_majority(q.demographics, values.train, q.item, 5))
                for q in values.questions[:12]}
    records = map(json.loads, (run_dir / "samples.jsonl").read_text().splitlines())
    got = {r["id"]: r["output"]["answer"] for r in records}
    assert got == expected  # the same answer on every row, hence the same accuracy
    hits = [expected[q.id] == q.answer for q in values.questions[:12]]
    assert results["metrics"]["match/accuracy"]["value"] == pytest.approx(sum(hits) / 12)
    assert results["metrics"]["tokens/mean"]["value"] == 0
