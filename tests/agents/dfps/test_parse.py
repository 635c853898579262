"""Reading Lean replies: code blocks, comments, steps and the submitted answer term."""

from __future__ import annotations

import json

from paperworks.agents.dfps import parse, prompts


def test_extract_code_takes_first_block_and_dedents() -> None:
    reply = "Here:\n```lean4\n  have h : x = 1 := by\n    norm_num\n  exact h\n```\nmore\n```lean\nother\n```"
    assert parse.extract_code(reply) == "have h : x = 1 := by\n  norm_num\nexact h"
    assert parse.extract_code("```lean4\nhave h : a := b\n") == "have h : a := b"  # unclosed block
    assert parse.extract_code("no block at all") == "no block at all"


def test_submission_is_the_answer_the_exact_names() -> None:
    code = ("have h1 : answer = 2 + 3 := by norm_num\n"
            "have h_answer : answer = (5 : ℝ) := by\n  linarith [h1]\n"
            "exact h_answer -- submit")
    assert parse.submission_from_proof(code) == "(5 : ℝ)"
    # exact names the first; the text's last answer statement is not the submission then
    assert parse.submission_from_proof(code.replace("exact h_answer", "exact h1")) == "2 + 3"
    assert parse.submission_from_proof("have h : 7 = answer := by rfl\nexact h") == "7"
    assert parse.submission_from_proof("have h : answer = 1 ∨ answer = 2 := by omega\nexact h") \
        == "answer = 1 ∨ answer = 2"
    assert parse.submission_from_proof("have h1 : answer = 3 := by omega\nexact h2") is None
    assert parse.submission_from_proof("") is None


def test_submission_of_every_demonstration() -> None:
    """Each of the paper's 10 demonstrations ends by proving answer = <term>; the parser finds a term."""
    terms = [parse.submission_from_proof(d["formal_solution"]) for d in prompts.demonstrations()]
    assert len(terms) == 10 and all(terms), terms
    assert terms[0] == "7"


def test_answer_line() -> None:
    assert parse.submission_from_answer_line("Reasoning...\nAnswer: `2 * Real.sqrt 2`\n```lean4\nAnswer: x\n```") \
        == "2 * Real.sqrt 2"
    assert parse.submission_from_answer_line("**Final answer:** $7$") == "7"
    assert parse.submission_from_answer_line("no answer here") is None


def test_forward_prompt_fits_budget() -> None:
    msgs, n = prompts.forward_messages("What is 1+1?", "answer : ℕ\n⊢ ?w", n_demos=10, budget_chars=6000)
    text = msgs[-1]["content"]
    assert 0 < n < 10 and len(text) <= 6000
    assert text.count("# Formal Proof") == n and text.rstrip().endswith("```")
    _, n_all = prompts.forward_messages("q", "c", n_demos=10, budget_chars=10**6)
    assert n_all == 10
    _, n_none = prompts.forward_messages("q", "c", n_demos=0, budget_chars=10**6)
    assert n_none == 0
    json.dumps(msgs)
