"""OG-MAR's offline phase with a scripted oracle: the recovered ontology against the generator's truth,
aggregation with provenance, the RDF round trip, summaries cached per respondent, and resume after the
build process is killed mid-run (the rerun ends with the same ontology as an uninterrupted build)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paperworks.core.errors import UserError
from paperworks.models.scripted import register_script
from paperworks.tools.values import Ontology, SummaryCache, value_profile
from paperworks.workflows.ogmar.build import (
    BuildSettings,
    build,
    load_build_data,
    read_answers,
    summary_order,
    summary_variant,
)
from paperworks.workflows.ogmar.data import packaged_suite
from paperworks.workflows.ogmar.elicit import aggregate, select_pairs
from paperworks.workflows.ogmar.replay import SUMMARY_TEXT, build_replies
from tests.conftest import ROOT

DATA = load_build_data(packaged_suite())


def _oracle(name: str) -> str:
    assert DATA.reference is not None
    return register_script(name, build_replies(DATA.reference, DATA.taxonomy))


@pytest.mark.slow
def test_oracle_build_recovers_the_screened_truth(tmp_path: Path) -> None:
    settings = BuildSettings(model=_oracle("oracle-build"), pairs=30, summaries=3, concurrency=8)
    report = asyncio.run(build(DATA, settings, tmp_path / "b"))
    assert report.answers == 6 * 30 * 2 and report.asked_now == report.answers
    typed, pair = report.scores["typed"], report.scores["pair"]
    assert typed["precision"] == 1.0 and typed["fp"] == 0  # every stated relation is true, type and direction
    screened = {frozenset(p) for p in select_pairs(DATA.train, DATA.taxonomy, 30)}
    truth_hit = sum(frozenset(r.pair) in screened for r in DATA.reference or [])
    assert pair["tp"] == truth_hit and typed["recall"] == round(truth_hit / 132, 4) and truth_hit >= 28
    assert report.screen_scores["typed"]["precision"] < 0.5  # the screen alone does not know types
    built = Ontology.from_turtle(tmp_path / "b" / "ontology.ttl")
    assert len(built) == report.relations and all(r.provenance.agreed == 6 == r.provenance.asked for r in built)
    cache = SummaryCache(tmp_path / "b" / "summaries.sqlite")
    assert len(cache) == 3
    for r in summary_order(DATA)[:3]:  # the held-out respondents' neighbours come first
        got = cache.get(value_profile(r, DATA.train.items, DATA.taxonomy), summary_variant(settings.model))
        assert got is not None and got.text == SUMMARY_TEXT
    cache.close()
    again = asyncio.run(build(DATA, settings, tmp_path / "b"))  # everything cached: nothing is asked again
    assert again.asked_now == 0 and again.summarised_now == 0 and again.relations == report.relations


@pytest.mark.slow
def test_rdf_round_trip_of_a_built_ontology(tmp_path: Path) -> None:
    settings = BuildSettings(model=_oracle("oracle-rdf"), pairs=14, summaries=0)
    asyncio.run(build(DATA, settings, tmp_path / "b"))
    text = (tmp_path / "b" / "ontology.ttl").read_text(encoding="utf-8")
    built = Ontology.from_turtle(text)
    assert len(built) >= 12 and Ontology.from_turtle(built.to_turtle(taxonomy=DATA.taxonomy)) == built
    r = built.relations[0]
    assert r.provenance.source == f"model:{settings.model}" and len(r.provenance.personas) == 6
    assert "rdfs:label" in text  # the taxonomy's classes travel with the relations
    touching = built.sparql_touching([r.subject])
    assert r in touching and all(r.subject in t.pair for t in touching)


def test_aggregation_votes_and_provenance() -> None:
    rows = [{"persona": p, "subject": "a", "object": "b", "predicate": pred} for p, pred in
            [("p1", "supports"), ("p2", "strongly_supports"), ("p3", "supports"), ("p4", "none")]]
    rows += [{"persona": p, "subject": "b", "object": "a", "predicate": pred} for p, pred in
             [("p1", "weakly_supports"), ("p2", "weakly_supports"), ("p3", "none"), ("p4", "none")]]
    rows += [{"persona": p, "subject": "c", "object": "d", "predicate": pred} for p, pred in
             [("p1", "undermines"), ("p2", "supports"), ("p3", "none"), ("p4", "none")]]
    onto = aggregate(rows, 0.5, "test")
    assert len(onto) == 1  # b→a has less agreement than a→b; c-d ties on sign
    rel = onto.get("a", "b")
    assert rel is not None and rel.predicate == "supports" and rel.provenance.personas == ("p1", "p3")
    assert (rel.provenance.agreed, rel.provenance.asked) == (2, 4)
    assert rel.strength == round((0.65 + 1.0 + 0.65) / 3, 4)
    assert len(aggregate(rows, 0.75, "test")) == 1 and len(aggregate(rows, 0.8, "test")) == 0


@pytest.mark.slow
def test_another_model_in_the_same_folder_is_refused(tmp_path: Path) -> None:
    asyncio.run(build(DATA, BuildSettings(model=_oracle("oracle-a"), pairs=2, summaries=0), tmp_path / "b"))
    with pytest.raises(UserError, match="was built with model"):
        asyncio.run(build(DATA, BuildSettings(model=_oracle("oracle-b"), pairs=2, summaries=0), tmp_path / "b"))


@pytest.mark.slow
def test_resume_after_a_kill_gives_the_same_ontology(tmp_path: Path) -> None:
    assert DATA.reference is not None
    replies = [{**r, "delay_s": 0.02} if isinstance(r, dict) else {"text": r, "delay_s": 0.02}
               for r in build_replies(DATA.reference, DATA.taxonomy)]
    script = tmp_path / "oracle.json"
    script.write_text(json.dumps({"replies": replies}), encoding="utf-8")
    model = f"scripted/{script}"
    args = ["--data", str(packaged_suite()), "--model", model, "--pairs", "10", "--summaries", "2", "-q"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "paperworks", "ogmar", "build", *args, "--out", str(killed)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    answers = killed / "answers.jsonl"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        if answers.is_file() and answers.read_bytes().count(b"\n") >= 30:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the build finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    partial = len(read_answers(answers))
    assert 30 <= partial < 6 * 10 * 2
    assert json.loads((killed / "build.json").read_text())["status"] == "running"
    assert not (killed / "ontology.ttl").exists()
    done = subprocess.run([sys.executable, "-m", "paperworks", "ogmar", "build", *args, "--out", str(killed)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads((killed / "report.json").read_text())
    assert report["asked_now"] == 120 - partial and report["summarised_now"] == 0
    whole = asyncio.run(build(DATA, BuildSettings(model=model, pairs=10, summaries=2), tmp_path / "whole"))
    assert whole.asked_now == 120
    assert Ontology.from_turtle(killed / "ontology.ttl") == Ontology.from_turtle(tmp_path / "whole" / "ontology.ttl")
    assert len(read_answers(answers)) == 120
