"""OG-MAR's reply parsing and prompts: competency answers, persona JSON, judge ratings, free-text choices."""

from __future__ import annotations

import json

from paperworks.agents.ogmar import parse, prompts
from paperworks.tools.values import load_taxonomy


def test_relation_answers() -> None:
    assert parse.parse_relation("Strongly undermines.") == ("strongly_undermines", True)
    assert parse.parse_relation("It supports it, though it strongly supports others") == ("supports", True)
    assert parse.parse_relation("weakly_supports") == ("weakly_supports", True)
    assert parse.parse_relation("No effect at all; undermines nothing") == ("none", True)
    assert parse.parse_relation("I like turtles") == ("none", False)


def test_persona_json() -> None:
    good = json.dumps({"persona_id": "P2", "answer": "Not happy.", "reasoning": "r", "alignment_factors": ["a", 3]})
    got = parse.parse_persona(f"Sure!\n```json\n{good}\n```", "P2", ["happy", "not happy"])
    assert (got.answer, got.error, got.alignment_factors) == ("not happy", None, ["a", "3"])
    for reply, why in [("yes", "no JSON object"), ('{"answer": "yes",}', "invalid JSON"),
                       ('{"answer": "maybe"}', "is not one of"), ('{"reasoning": "x"}', "no 'answer' field"),
                       ('{"answer": "yes"', "unterminated")]:
        got = parse.parse_persona(reply, "P1", ["yes", "no"])
        assert got.answer is None and why in str(got.error) and "abstention" in str(got.error)
        assert "\n" not in str(got.error)
    loose = parse.parse_persona('The respondent would say "no".', "P1", ["yes", "no"], lenient=True)
    assert (loose.answer, loose.structured, loose.error) == ("no", False, None)
    assert parse.parse_persona('{"answer": "maybe"}', "P1", ["yes", "no"], lenient=True).answer is None


def test_judge_evidence() -> None:
    assert parse.parse_evidence('{"evidence": {"P1": 3, "P2": "weak", "P3": 9}}', ["P1", "P2", "P3", "P4"]) == (
        {"P1": 3, "P2": 1, "P3": 3, "P4": 0}, None)
    assert parse.parse_evidence('{"P1": 2.4}', ["P1"]) == ({"P1": 2}, None)
    ratings, error = parse.parse_evidence("P1 is best", ["P1", "P2"])
    assert ratings == {"P1": 0, "P2": 0} and error and error.startswith("judge: no JSON object")


def test_free_text_choice() -> None:
    assert parse.parse_choice("I am not happy, sadly", ["happy", "not happy"]) == "not happy"
    assert parse.parse_choice("Happy. Not happy would be wrong.", ["happy", "not happy"]) == "happy"
    assert parse.parse_choice('The answer is "yes".', ["yes", "no"]) == "yes"
    assert parse.parse_choice("nobody knows", ["yes", "no"]) is None


def test_prompts_carry_their_markers() -> None:
    tax = load_taxonomy()
    a, b = tax.get("religious_exclusivism"), tax.get("outgroup_tolerance")
    text = prompts.competency_messages("a 30-year-old female", a, b)[0]["content"]
    assert f'How does "{a.name}" affect "{b.name}"?' in text and "strongly undermines" in text
    demo = {"country": "EUR-1", "region": "Europe", "age": 30.0, "sex": "female", "income": 4, "urban": "urban"}
    assert prompts.persona_text(demo) == "a 30-year-old female in EUR-1 (Europe), income decile 4, urban"
    judge = prompts.judge_messages("R1", "t", [], ["A supports B"], "Q?", ["yes", "no"],
                                   [{"persona_id": "P1", "answer": "yes", "reasoning": "r"}])[0]["content"]
    assert prompts.JUDGE_MARKER in judge and "- P1:" in judge and "A supports B" in judge
