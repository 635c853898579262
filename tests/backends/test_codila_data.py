"""CoDiLA's generated data: the code-like language's parser, arithmetic answers, the sequence layout."""

from __future__ import annotations

import random

import pytest

from paperworks.backends.codila.data import (
    ARITH_ANSWER,
    ARITH_PROMPT,
    PAD,
    SEQ_LEN,
    arith_answer,
    arith_example,
    check_program,
    code_example,
    decode,
    is_correct,
    is_valid,
    make_dataset,
    parse_program,
    random_arith,
    random_program,
)
from paperworks.core.errors import UserError


def toks(text: str) -> list[str]:
    return text.split()


@pytest.mark.parametrize("text", [
    "let get Val : int = 3 ;",
    "let get Val : int = ( 3 + 4 ) ; let set Key : list = [ get Val , 2 ] ;",
    "let max Len : list = [ 1 ] ; let min Sum : int = len ( max Len ) + len ( [ 2 , 3 ] ) ; . .",
    "let set Len : list = [ len ( [ 1 ] ) ] ;",
])
def test_valid_programs_parse(text: str) -> None:
    assert check_program(toks(text)) is None


@pytest.mark.parametrize("text, reason", [
    ("let get Key : int = 3 ;", "no identifier"),                    # not one of the six spellings
    ("let get Val : list = [ 3 ) ;", "expected ']'"),                 # mismatched bracket
    ("let get Val : int = ( 3 + 4 ;", "expected ')'"),                # unbalanced
    ("let get Val : int = set Key ;", "undeclared"),                  # used before declaration
    ("let set Key : list = [ 1 ] ; let get Val : int = set Key ;", "used as int but is list"),
    ("let get Val : int = 1 ; let get Val : int = 2 ;", "declared twice"),
    ("let get Val : int = 3 ; . let", "expected 'let'"),              # PAD inside the program
    (". . .", "empty program"),
    ("let get Val : bool = 3 ;", "expected a type"),
])
def test_invalid_programs_are_rejected_with_the_reason(text: str, reason: str) -> None:
    why = check_program(toks(text))
    assert why is not None and reason in why
    assert not parse_program(toks(text))


def test_generated_programs_are_valid_and_varied() -> None:
    rng = random.Random(3)
    progs = [random_program(rng) for _ in range(400)]
    assert all(parse_program(p) for p in progs)
    assert all(len(p) <= SEQ_LEN - 1 for p in progs)
    assert len({" ".join(p) for p in progs}) > 300
    # every multi-token identifier, both types and both bracket kinds occur
    joined = " ".join(" ".join(p) for p in progs)
    for piece in ("get Val", "get Sum", "set Key", "set Len", "max Len", "min Sum", ": int", ": list", "[", "("):
        assert piece in joined


def test_arithmetic_answers() -> None:
    ex = arith_example(toks("( 2 + 3 ) * 4"), 20)
    region = decode(ex.ids[ex.start:ex.end])
    assert region == ["2", "0", PAD, PAD] and ex.answer == 20
    assert decode(ex.ids[:ARITH_PROMPT])[-9:] == toks("<a> ( 2 + 3 ) * 4 =")
    assert len(ex.ids) == SEQ_LEN and ex.end - ex.start == ARITH_ANSWER
    assert arith_answer(["1", "4", PAD, PAD]) == 14
    assert arith_answer(["0", "4", PAD, PAD]) is None      # leading zero
    assert arith_answer(["1", PAD, "2", PAD]) is None      # digit after padding
    assert arith_answer([PAD] * 4) is None
    wrong = ex.ids[:ex.start] + [ex.ids[ex.start + 1], ex.ids[ex.start]] + ex.ids[ex.start + 2:]  # "02"
    assert not is_valid(ex, wrong) and not is_correct(ex, wrong)
    assert is_valid(ex, ex.ids) and is_correct(ex, ex.ids)


def test_random_arith_values_follow_precedence() -> None:
    rng = random.Random(0)
    for _ in range(200):
        expr, value = random_arith(rng)
        # recompute by hand: * before +, parentheses first
        text = "".join(expr)
        if "(" in text:
            inner = text[text.index("(") + 1:text.index(")")]
            a = int(inner[0]) + int(inner[2])
            rest = text.replace(f"({inner})", "X")
            other = int(rest.replace("X", "").replace("*", ""))
            assert value == a * other
        else:
            assert value == sum(eval_product(term) for term in text.split("+"))


def eval_product(term: str) -> int:
    out = 1
    for d in term.split("*"):
        out *= int(d)
    return out


def test_dataset_layout_and_bad_sizes() -> None:
    data = make_dataset(200, seed=1, arith_share=0.5)
    assert {ex.task for ex in data} == {"code", "arith"}
    assert all(len(ex.ids) == SEQ_LEN for ex in data)
    assert all(is_valid(ex, ex.ids) and is_correct(ex, ex.ids) for ex in data)
    assert make_dataset(50, seed=1)[0].ids == make_dataset(50, seed=1)[0].ids
    code = code_example(toks("let get Val : int = 3 ;"))
    assert (code.start, code.end) == (1, SEQ_LEN)
    with pytest.raises(UserError, match="arithmetic share"):
        make_dataset(10, seed=0, arith_share=1.5)
    with pytest.raises(UserError, match="exceeds"):
        code_example(["let"] * SEQ_LEN)
