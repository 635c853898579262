"""The scorer registry, the string and number scorers, and the judge with scripted judge replies."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from paperworks.core.errors import UserError
from paperworks.eval.judge import build_messages, parse_verdict, render_input
from paperworks.eval.records import Sample, Score
from paperworks.eval.scorers import (
    SCORERS,
    ScoreContext,
    extract_answer,
    find_numbers,
    get_scorer,
    normalize_text,
    register_scorer,
    target_number,
)
from paperworks.models.scripted import register_script

CTX = ScoreContext(judge_model=None)


def score(name: str, answer: str, target: Any, ctx: ScoreContext = CTX, **args: Any) -> Score:
    sample = Sample(id="s1", input={"question": "q?"}, target=target, source="data.jsonl:1")
    return asyncio.run(get_scorer(name)(sample, {"answer": answer}, answer, ctx, **args))


# ------------------------------------------------------------------------------------------ registry

def test_registry_has_builtins_and_alias() -> None:
    assert {"exact", "match", "quasi_exact", "numeric", "includes", "judge"} <= set(SCORERS)
    assert score("quasi_exact", "Paris", "paris").passed


def test_unknown_scorer_is_one_line_user_error_listing_names() -> None:
    with pytest.raises(UserError) as err:
        get_scorer("nope")
    message = str(err.value)
    assert "\n" not in message and "nope" in message and "exact" in message and "numeric" in message


def test_unknown_argument_is_user_error() -> None:
    with pytest.raises(UserError, match="tolerance"):
        score("numeric", "1", 1, tolerance=0.1)
    with pytest.raises(UserError, match="pick"):
        score("numeric", "1", 1, pick="middle")


def test_workflow_scorers_take_precedence_and_may_be_sync() -> None:
    def my_exact(sample: Sample, output: Any, answer: str, ctx: ScoreContext) -> bool:
        return answer == "always"

    async def graded(sample: Sample, output: Any, answer: str, ctx: ScoreContext, **args: Any) -> float:
        return 0.25 * args.get("factor", 1)

    wf = {"exact": my_exact, "graded": graded}
    sample = Sample(id="s", input={}, target="x")
    verdict = asyncio.run(get_scorer("exact", wf)(sample, None, "always", CTX))
    assert verdict.passed and verdict.value == 1.0 and verdict.answer == "always"
    graded_score = asyncio.run(get_scorer("graded", wf)(sample, None, "a", CTX, factor=2))
    assert graded_score.value == 0.5 and graded_score.passed is None
    assert get_scorer("numeric", wf) is SCORERS["numeric"]
    with pytest.raises(UserError, match="graded"):
        get_scorer("missing", wf)


def test_register_scorer_decorator() -> None:
    @register_scorer("test_len_is_target")
    async def length(sample: Sample, output: Any, answer: str, ctx: ScoreContext) -> Score:
        ok = len(answer) == sample.target
        return Score(value=float(ok), passed=ok)

    try:
        assert score("test_len_is_target", "abc", 3).passed
    finally:
        SCORERS.pop("test_len_is_target")


@pytest.mark.parametrize(("output", "field", "expected"), [
    ({"answer": "42", "steps": 3}, "answer", "42"),
    ({"answer": 42}, "answer", "42"),
    ({"answer": ["a", "b"]}, "answer", '["a", "b"]'),
    ({"result": "x"}, "result", "x"),
    ({"other": "x"}, "answer", ""),
    ("plain text", "answer", "plain text"),
    (None, "answer", ""),
    (3.5, "answer", "3.5"),
    ([1, 2], "answer", "[1, 2]"),
])
def test_extract_answer(output: Any, field: str, expected: str) -> None:
    assert extract_answer(output, field) == expected


# ------------------------------------------------------------------------------------------ exact, includes

@pytest.mark.parametrize(("answer", "target", "args", "passed"), [
    ("Paris", "Paris", {}, True),
    ("  Paris\n", "Paris ", {}, True),
    ("paris", "Paris", {}, False),
    ("paris", "Paris", {"case_sensitive": False}, True),
    ("Paris.", "Paris", {}, False),
    ("42", 42, {}, True),
    ("5", 5.0, {}, True),
    ("Lyon", ["Paris", "Lyon"], {}, True),
    ("", "x", {}, False),
])
def test_exact(answer: str, target: Any, args: dict[str, Any], passed: bool) -> None:
    result = score("exact", answer, target, **args)
    assert result.passed is passed and result.value == float(passed)
    assert (result.explanation is None) is passed


def test_scorer_without_target_is_misuse() -> None:
    with pytest.raises(UserError, match=r"s1.*data.jsonl:1.*needs a target"):
        score("exact", "x", None)


@pytest.mark.parametrize(("answer", "target", "passed"), [
    ("The capital is Paris.", "paris", True),
    ("PARIS", "Paris", True),
    ("The capital is Lyon.", "Paris", False),
    ("I think 391", 391, True),
    ("Either Lyon or Nice", ["Paris", "Nice"], True),
])
def test_includes(answer: str, target: Any, passed: bool) -> None:
    assert score("includes", answer, target).passed is passed


def test_includes_case_sensitive() -> None:
    assert not score("includes", "PARIS", "Paris", case_sensitive=True).passed


# ------------------------------------------------------------------------------------------ numeric

@pytest.mark.parametrize(("answer", "target", "passed"), [
    ("The answer is $1,234.50.", 1234.5, True),
    ("12%", 12, True),
    ("12.5%", 0.125, True),
    ("3/4", 0.75, True),
    ("It is 3 / 4 of the cake", "0.75", True),
    ("-17", -17, True),
    ("The temperature fell to −3.5 degrees", -3.5, True),
    ("1.5e-3", 0.0015, True),
    ("6.02E23", 6.02e23, True),
    ("1,000,000", 1e6, True),
    ("First 3, then 5, so 8", 8, True),
    ("First 3, then 5, so 8", 3, False),
    ("391", 390, False),
    ("391", "391", True),
    ("Total: $12.50", "$12.50", True),
    ("12/25/2024", 12, True),
    ("0.1 + 0.2 = 0.30000000000000004", 0.3, True),
    ("x = 1990-2000", 2000, True),
])
def test_numeric(answer: str, target: Any, passed: bool) -> None:
    result = score("numeric", answer, target)
    assert result.passed is passed, (answer, target, result)
    assert result.value == float(passed)


def test_numeric_pick_first_and_tolerance() -> None:
    assert score("numeric", "First 3, then 5, so 8", 3, pick="first").passed
    assert not score("numeric", "100.4", 100).passed
    assert score("numeric", "100.4", 100, abs_tol=0.5).passed
    assert score("numeric", "101", 100, rel_tol=0.02).passed


def test_numeric_no_number_fails_with_explanation() -> None:
    result = score("numeric", "I do not know", 7)
    assert result.passed is False and result.value == 0.0
    assert result.explanation == "no number in answer"


def test_numeric_explains_a_miss() -> None:
    result = score("numeric", "391", 390)
    assert result.explanation == "|391 - 390| > tolerance"
    assert result.details == {"extracted": 391.0, "target": 390.0}


def test_numeric_needs_a_numeric_target() -> None:
    with pytest.raises(UserError, match="numeric target"):
        score("numeric", "5", "five")


def test_find_numbers_and_target_number() -> None:
    assert [n.value for n in find_numbers("a 1,234 b -2 c .5 d 3/4 e 1e3")] == [1234, -2, 0.5, 0.75, 1000]
    assert find_numbers("no digits here") == []
    assert find_numbers("3/0") == []
    assert target_number("1,234.5") == 1234.5
    assert target_number(" 3/4 ") == 0.75
    assert target_number("about 5") is None
    assert target_number(True) is None
    assert target_number(["1"]) is None


# ------------------------------------------------------------------------------------------ match

@pytest.mark.parametrize(("answer", "target", "passed"), [
    # numbers
    ("$1,234.50", 1234.5, True),
    ("The answer is $1,234.50.", 1234.5, True),
    ("12%", 12, True),
    ("12 km", "12", True),
    ("3/4", 0.75, True),
    ("12", 13, False),
    ("12 or 13", 12, False),
    ("twelve", 12, False),
    # lists
    ("a, b; c", ["a", "b", "c"], True),
    ("A; B, C.", "a, b, c", True),
    ("a, c, b", ["a", "b", "c"], False),
    ("a, b", ["a", "b", "c"], False),
    ("1, 2.0, $3", [1, 2, 3], True),
    ("1, 2, 4", "1; 2; 3", False),
    ('["x", "y"]', ["x", "y"], True),
    ("[1, 2]", [1, 2], True),
    # strings
    ("The Eiffel Tower!", "eiffel tower", True),
    ("Final answer: Paris", "Paris", True),
    ("  U.S.A. ", "USA", True),
    ("New   York", "new york", True),
    ("Paris, France", "Paris", False),
    ("Lyon", "Paris", False),
])
def test_match(answer: str, target: Any, passed: bool) -> None:
    result = score("match", answer, target)
    assert result.passed is passed, (answer, target, result)
    assert (result.explanation is None) is passed


def test_match_list_length_explained() -> None:
    assert score("match", "a, b", ["a", "b", "c"]).explanation == "expected 3 items, got 2"


def test_normalize_text() -> None:
    assert normalize_text("The  Quick, brown-fox!") == "quickbrownfox"
    assert normalize_text("An apple a day") == "appleday"


# ------------------------------------------------------------------------------------------ judge

def judge(replies: list[Any], name: str, *, target: Any = "Paris", answer: str = "Paris is the capital.",
          metadata: dict[str, Any] | None = None, inp: dict[str, Any] | None = None, **args: Any) -> Score:
    model = register_script(name, replies)
    sample = Sample(id="q1", input=inp or {"question": "What is the capital of France?"}, target=target,
                    metadata=metadata or {})
    ctx = ScoreContext(judge_model=model, seed=3)
    return asyncio.run(get_scorer("judge")(sample, {"answer": answer}, answer, ctx, **args))


def test_judge_correct_verdict_records_reasoning_grade_and_usage() -> None:
    reply = json.dumps({"reasoning": "It names Paris, as the reference does.", "grade": "C"})
    result = judge([reply], "judge-c")
    assert result.passed is True and result.value == 1.0
    assert result.explanation == "It names Paris, as the reference does."
    assert result.answer == "Paris is the capital."
    d = result.details
    assert d["grade"] == "C" and d["raw"] == reply and d["judge_model"] == "scripted/judge-c"
    assert d["attempts"] == 1 and "judge_error" not in d
    assert d["usage"]["calls"] == 1 and d["usage"]["prompt_tokens"] > 0 and d["usage"]["total_tokens"] > 0


def test_judge_incorrect_and_partial_verdicts() -> None:
    wrong = judge(['{"reasoning": "Says Lyon.", "grade": "I"}'], "judge-i", answer="Lyon")
    assert wrong.passed is False and wrong.value == 0.0 and wrong.details["grade"] == "I"
    partial = judge(['{"reasoning": "Half.", "grade": "P"}'], "judge-p")
    assert partial.passed is False and partial.value == 0.5
    strict = judge(['{"reasoning": "Half.", "grade": "P"}'], "judge-p-strict", partial_credit=False)
    assert strict.passed is False and strict.value == 0.0 and strict.details["grade"] == "P"


def test_judge_fenced_json_with_trailing_text() -> None:
    reply = 'Here is my verdict:\n```json\n{"reasoning": "Matches.", "grade": "C"}\n```\nHope that helps!'
    result = judge([reply], "judge-fenced")
    assert result.passed and result.explanation == "Matches." and result.details["attempts"] == 1


def test_judge_garbage_then_good_reply_on_retry() -> None:
    result = judge(["I think it is fine, probably.", {"text": '{"reasoning": "Correct city.", "grade": "C"}'}],
                   "judge-retry")
    assert result.passed and result.value == 1.0 and result.explanation == "Correct city."
    d = result.details
    assert d["attempts"] == 2 and d["raw_replies"][0] == "I think it is fine, probably."
    assert d["usage"]["calls"] == 2 and "judge_error" not in d


def test_judge_garbage_twice_records_error_without_raising() -> None:
    result = judge(["no idea", "still no idea"], "judge-garbage")
    assert result.passed is False and result.value == 0.0
    d = result.details
    assert "unreadable judge reply after 2 attempts" in d["judge_error"]
    assert d["grade"] is None and d["raw"] == "still no idea" and d["usage"]["calls"] == 2


def test_judge_needs_a_judge_model() -> None:
    sample = Sample(id="q1", input={"question": "?"}, target="x")
    with pytest.raises(UserError, match="--judge-model"):
        asyncio.run(get_scorer("judge")(sample, "x", "x", ScoreContext(judge_model=None)))


def test_judge_rubric_field_goes_into_the_prompt() -> None:
    result = judge(['{"reasoning": "ok", "grade": "C"}'], "judge-rubric", target=None,
                   metadata={"rubric": "Must mention the Seine."}, rubric_field="rubric")
    assert result.passed
    with pytest.raises(UserError, match="rubric_field"):
        judge(["{}"], "judge-rubric-missing", metadata={}, rubric_field="rubric")


@pytest.mark.parametrize(("reply", "grade", "reasoning"), [
    ('{"reasoning": "r", "grade": "C"}', "C", "r"),
    ('{"grade": "incorrect", "reasoning": "r"}', "I", "r"),
    ('{"Reasoning": "r", "Grade": "p"} trailing {', "P", "r"),
    ("The answer matches.\nGRADE: C", "C", "The answer matches."),
    ("Close but wrong.\n**Grade:** I", "I", "Close but wrong."),
    ('{"reasoning": "cut off", "grade": "C"', "C", None),
])
def test_parse_verdict(reply: str, grade: str, reasoning: str | None) -> None:
    verdict = parse_verdict(reply)
    assert isinstance(verdict, tuple) and verdict[0] == grade
    if reasoning is not None:
        assert verdict[1] == reasoning


@pytest.mark.parametrize("reply", ["", "grade: i think it is right", '{"grade": "B"}', "```json\n{oops}\n```"])
def test_parse_verdict_failures_say_why(reply: str) -> None:
    assert isinstance(parse_verdict(reply), str)


def test_render_input() -> None:
    assert render_input({"question": "Why?"}) == "Why?"
    text = render_input({"task": "Add", "numbers": [1, 2]})
    assert text.startswith("task: Add\nnumbers: [") and "1" in text


def test_build_messages_holds_question_answer_and_reference() -> None:
    sample = Sample(id="q", input={"question": "Capital of France?"}, target="Paris",
                    metadata={"rubric": "Must name Paris."})
    messages = build_messages(sample, "Lyon", "Must name Paris.", partial_credit=False)
    user = messages[-1]["content"]
    assert "Capital of France?" in user and "Lyon" in user and "Must name Paris." in user
    assert '"grade": "C|I"' in messages[0]["content"] and "- P:" not in messages[0]["content"]
    with_partial = build_messages(sample, "", None, partial_credit=True)
    assert "- P:" in with_partial[0]["content"] and "(empty)" in with_partial[-1]["content"]
    assert "none given" in with_partial[-1]["content"]


@pytest.mark.parametrize(("answer", "target"), [
    ("error: invalid expression at position 3", 3),
    ("Error: calculate failed: division by zero at line 1", 1),
    ("ZeroDivisionError: 7 divided by zero", 7),
    ("I could not finish.\nerror: tool 'calculate' timed out after 30 s", 30),
    ('<tool_call>[{"name": "calculate", "arguments": {"expression": "17*23"}}]</tool_call>', 17),
])
def test_numeric_never_reads_a_number_out_of_an_error_message(answer: str, target: int) -> None:
    result = score("numeric", answer, target)
    assert result.passed is False, result
    assert "error messages are not read" in (result.explanation or "")


def test_numeric_reads_the_final_answer_only() -> None:
    assert score("numeric", "Step 1: 17 * 23 = 391.\nThe answer is 391.", 391).passed
    assert not score("numeric", "The answer is 391, after 3 steps", 3).passed  # not a number before the mark
    assert score("numeric", "calculate gave 391\nerror: retry limit 2 reached", 391).passed
    assert not score("numeric", "calculate gave 391\nerror: retry limit 2 reached", 2).passed
