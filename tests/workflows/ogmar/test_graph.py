"""The ``ogmar`` workflow with scripted models: K persona agents fanned out in parallel, the judge seeing
all K answers, the decision order (evidence, then votes, then demographic relevance), broken persona
JSON as an abstention, retrieved triples reaching the prompts, the baselines and the model-free mode."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from paperworks.agents.ogmar.prompts import JUDGE_MARKER
from paperworks.core.errors import UserError
from paperworks.models.scripted import register_script
from paperworks.workflows import runner
from paperworks.workflows.ogmar.data import OgmarConfig, packaged_suite, resources
from paperworks.workflows.ogmar.judge import decide
from paperworks.workflows.ogmar.replay import neighbour_replies
from paperworks.workflows.registry import get_workflow

SUITE = packaged_suite()
ROW = json.loads((SUITE / "questions.jsonl").read_text(encoding="utf-8").splitlines()[0])
INPUT = {k: ROW[k] for k in ("question", "choices", "respondent_id", "demographics")}  # choices yes / no
ORACLE = str(SUITE / "oracle" / "ontology.ttl")


def persona(pid: str, answer: str, delay: float = 0.0) -> dict[str, Any]:
    body = {"persona_id": pid, "answer": answer, "reasoning": f"{pid} thinks so", "alignment_factors": ["x"]}
    return {"when": f"You are persona {pid},", "text": json.dumps(body), "delay_s": delay}


def judge(ratings: dict[str, int], shown: list[str]) -> dict[str, Any]:
    return {"when": [JUDGE_MARKER, *(f"- {p}:" for p in shown)], "text": json.dumps({"evidence": ratings})}


def run(replies: list[Any], config: dict[str, Any], name: str, inp: dict[str, Any] | None = None) -> dict[str, Any]:
    spec = get_workflow("ogmar")
    model = register_script(f"ogmar-{name}", [*replies, "{}"], repeat_last=True)
    inp = inp or INPUT
    run_dir = runner.create_run(spec, inp, model=model, config_values={"ontology": "none", **config})
    outcome = asyncio.run(runner.execute(run_dir, spec.make_state(spec.parse_input(inp))))
    assert outcome.status == "succeeded", outcome.error
    out: dict[str, Any] = outcome.output
    out["_tokens"] = outcome.usage.total_tokens
    return out


def test_fan_out_runs_k_personas_in_parallel_and_the_judge_sees_all_answers() -> None:
    def replies(delay: float) -> list[Any]:
        return [judge({"P1": 0, "P2": 3, "P3": 1}, ["P1", "P2", "P3"]),
                persona("P1", "yes", delay), persona("P2", "no", delay), persona("P3", "yes", delay)]

    start = time.monotonic()
    run(replies(0.0), {"k": 3}, "fanout-0")
    quick = time.monotonic() - start
    start = time.monotonic()
    out = run(replies(0.8), {"k": 3}, "fanout")
    assert time.monotonic() - start - quick < 1.6  # three 0.8 s replies at once, not one after another (2.4 s)
    assert [a["persona_id"] for a in out["persona_answers"]] == ["P1", "P2", "P3"]
    assert [n["respondent_id"] for n in out["neighbours"]] == [a["respondent_id"] for a in out["persona_answers"]]
    assert out["judge"]["model_called"] and out["judge"]["shown"] == ["P1", "P2", "P3"]
    # the judge's reply matched only because its prompt listed all three answers; its ratings decide
    assert out["judge"]["ratings"] == {"P1": 0, "P2": 3, "P3": 1}
    assert out["answer"] == "no" and out["decided_by"] == "evidence" and out["votes"] == {"yes": 2, "no": 1}


def test_evidence_tie_is_decided_by_votes() -> None:
    replies = [judge({"P1": 2, "P2": 2, "P3": 2}, ["P1", "P2", "P3"]),
               persona("P1", "no"), persona("P2", "yes"), persona("P3", "yes")]
    out = run(replies, {"k": 3}, "votes")
    assert out["answer"] == "yes" and out["decided_by"] == "votes"


def test_vote_tie_is_decided_by_demographic_relevance() -> None:
    replies = [judge({"P1": 1, "P2": 1}, ["P1", "P2"]), persona("P1", "no"), persona("P2", "yes")]
    out = run(replies, {"k": 2}, "demo")
    d1, d2 = (n["distance"] for n in out["neighbours"])
    assert d1 < d2  # P1 is the nearer respondent
    assert out["answer"] == "no" and out["decided_by"] == "demographics"
    assert out["judge"]["relevance"]["no"] > out["judge"]["relevance"]["yes"]


def test_decision_order_directly() -> None:
    rows: list[dict[str, Any]] = [{"persona_id": "P1", "answer": "a", "distance": 0.1},
                                  {"persona_id": "P2", "answer": "b", "distance": 0.2},
                                  {"persona_id": "P3", "answer": "b", "distance": 0.3},
                                  {"persona_id": "P4", "answer": None}]
    assert decide(rows, ["a", "b"], {"P1": 3, "P2": 1}).decided_by == "evidence"
    assert decide(rows, ["a", "b"], {"P1": 3, "P2": 1}).answer == "a"
    assert (decide(rows, ["a", "b"], {}).answer, decide(rows, ["a", "b"], {}).decided_by) == ("b", "votes")
    tied = rows[:2]
    assert (decide(tied, ["a", "b"], {}).answer, decide(tied, ["a", "b"], {}).decided_by) == ("a", "demographics")
    same = [{**tied[0], "distance": 0.2}, tied[1]]
    assert (decide(same, ["b", "a"], {}).answer, decide(same, ["b", "a"], {}).decided_by) == ("b", "order")
    assert decide(rows[3:], ["a", "b"], {}).decided_by == "no_answers"


def test_triple_evidence_outranks_the_neighbours_majority() -> None:
    row = json.loads((SUITE / "questions.jsonl").read_text(encoding="utf-8").splitlines()[1])
    assert row["id"] == "EAS0066-WB01"  # choices happy / not happy
    inp = {k: row[k] for k in ("question", "choices", "respondent_id", "demographics")}
    replay = neighbour_replies(row["choices"])  # each persona repeats its own respondent's answer
    out = run(replay, {"evidence": "triples", "ontology": ORACLE}, "replay-oracle", inp)
    assert out["votes"] == {"happy": 2, "not happy": 3} and not out["judge"]["model_called"]
    assert out["favoured_by_triples"] == "happy" and out["triple_evidence"] > 0
    assert out["answer"] == "happy" and out["decided_by"] == "evidence" and out["consistency"] is True
    out = run(replay, {"evidence": "triples"}, "replay-none", inp)  # no ontology: the majority stands
    assert out["answer"] == "not happy" and out["decided_by"] == "votes" and out["consistency"] is None


def test_broken_persona_json_is_one_error_and_an_abstention() -> None:
    replies = [judge({"P1": 1, "P3": 2}, ["P1", "P3"]), persona("P1", "yes"),
               {"when": "You are persona P2,", "text": '{"persona_id": "P2", "answer": "no", reasoning: oops}'},
               persona("P3", "no")]
    out = run(replies, {"k": 3}, "broken")
    assert out["abstentions"] == 1 and out["persona_answers"][1]["answer"] is None
    assert len(out["errors"]) == 1 and out["errors"][0].startswith("persona P2: invalid JSON")
    assert out["judge"]["shown"] == ["P1", "P3"] and out["answer"] == "no"


def test_all_personas_abstaining_answers_nothing_or_the_knn_fallback() -> None:
    out = run(["not json at all"], {"k": 3}, "silent")
    assert out["answer"] == "" and out["decided_by"] == "abstained" and out["abstentions"] == 3
    out = run(["not json at all"], {"k": 3, "fallback": "knn"}, "silent-knn")
    assert out["answer"] in INPUT["choices"] and out["decided_by"] == "fallback_knn"


def test_retrieved_triples_reach_the_persona_prompts() -> None:
    needs = {"when": ["You are persona", "Relations between values:"],
             "text": json.dumps({"persona_id": "P", "answer": "no", "reasoning": "r", "alignment_factors": []})}
    out = run([needs], {"k": 2, "ontology": ORACLE, "embedder": "hashing"}, "triples")
    assert out["triples"] and out["domains"] and out["ontology"] == ORACLE
    assert len(out["triples"]) <= 2 * 3 and all(t["category"] in out["domains"] for t in out["triples"])
    assert out["abstentions"] == 0 and out["answer"] == "no"
    if out["favoured_by_triples"] is not None:
        assert out["consistency"] == (out["favoured_by_triples"] == "no")
    out = run([needs], {"k": 2}, "no-triples")  # ontology none: no relations in the prompt, so no reply fits
    assert out["triples"] == [] and out["abstentions"] == 2 and out["consistency"] is None


def test_the_question_item_and_hidden_answers_are_never_used() -> None:
    cfg = OgmarConfig.model_validate({})
    res = resources(cfg, SUITE)
    seen = res.respondent(ROW["respondent_id"], ROW["demographics"]).answers
    assert seen and not set(ROW["hidden_items"]) & set(seen)
    item = res.item_for(ROW["question"])
    assert item is not None and item.code == ROW["item"]


@pytest.mark.parametrize("mode", ["zero_shot", "persona", "valuesrag"])
def test_single_call_baselines(mode: str) -> None:
    marker = {"zero_shot": "Which choice would", "persona": "Answer as yourself",
              "valuesrag": "Similar respondents:"}[mode]
    out = run([{"when": marker, "text": 'I think "no".'}], {"mode": mode}, f"base-{mode}")
    assert out["answer"] == "no" and out["decided_by"] == "model" and out["persona_answers"] == []
    out = run(["maybe"], {"mode": mode}, f"base-{mode}-bad")
    assert out["answer"] == "" and "names no choice" in out["errors"][0]


def test_knn_mode_makes_no_model_call() -> None:
    from paperworks.tools.values import knn_majority, load_survey, load_taxonomy

    out = run([], {"mode": "knn"}, "knn")
    assert out["_tokens"] == 0 and out["decided_by"] == "knn"
    tax = load_taxonomy(SUITE / "taxonomy.yaml")
    train = load_survey(SUITE / "population" / "train.csv", SUITE / "population" / "mapping.yaml", tax)
    value = knn_majority(ROW["demographics"], train, ROW["item"], 5)
    assert out["answer"] == train.items[ROW["item"]].choice(value)


def test_bad_settings_are_one_line() -> None:
    spec = get_workflow("ogmar")
    with pytest.raises(UserError, match="setting 'mode'"):
        spec.parse_config({"mode": "bogus"})
    with pytest.raises(UserError, match="setting 'k'"):
        spec.parse_config({"k": 0})
    with pytest.raises(UserError, match="choices"):
        spec.parse_input({"question": "q?", "choices": ["a", "A"]})
