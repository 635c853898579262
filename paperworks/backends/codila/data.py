"""Data generated here whose validity is checkable: a small code-like language with a parser, and
arithmetic expressions with their answers. No torch in this module.

**The code-like language** (written for this project). A program is one to three statements::

    let NAME : TYPE = EXPR ;

``TYPE`` is ``int`` or ``list``. ``NAME`` is a *multi-token identifier*: two sub-word tokens, and only six
spellings are names (``get Val``, ``get Sum``, ``set Key``, ``set Len``, ``max Len``, ``min Sum``); ``get Key``
is not one. Expressions are typed::

    INT  := DIGIT | NAME(int) | INT + INT | ( INT ) | len ( LIST )
    LIST := [ INT ] | [ INT , INT ] | NAME(list)

A name is used only after its declaration, with its declared type, and declared once. Brackets must
balance and match. :func:`parse_program` decides all of it.

**Arithmetic.** ``a + b``, ``a * b``, ``a + b * c``, ``(a + b) * c`` … over single digits, with the usual
precedence; the answer is written most significant digit first.

**Sequences.** Every sequence has :data:`SEQ_LEN` tokens. Code: ``<c>`` then the program, padded with
``.`` (``PAD``); the generated region is everything after ``<c>``. Arithmetic: the prompt ``<a> EXPR =``
left-padded to :data:`ARITH_PROMPT` tokens, then an answer slot of :data:`ARITH_ANSWER` tokens (digits, then
``PAD``), then ``PAD`` to the end (fixed, never generated). :class:`Example` records each sequence's generated region.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from paperworks.core.errors import UserError

PAD, MASK, CODE, ARITH = ".", "?", "<c>", "<a>"
PREFIXES = ("get", "set", "max", "min")
SUFFIXES = ("Val", "Sum", "Key", "Len")
NAMES: tuple[tuple[str, str], ...] = (("get", "Val"), ("get", "Sum"), ("set", "Key"), ("set", "Len"),
                                      ("max", "Len"), ("min", "Sum"))
"""The only legal two-token identifiers."""
DIGITS = tuple(str(d) for d in range(10))
KEYWORDS = ("let", ":", "int", "list", "=", ";", "(", ")", "[", "]", ",", "+", "*", "len")
VOCAB: tuple[str, ...] = (PAD, MASK, CODE, ARITH) + KEYWORDS + PREFIXES + SUFFIXES + DIGITS
STOI = {t: i for i, t in enumerate(VOCAB)}
PAD_ID, MASK_ID, CODE_ID, ARITH_ID = (STOI[t] for t in (PAD, MASK, CODE, ARITH))

SEQ_LEN = 33
"""Tokens per sequence (code: ``<c>`` + 32 generated)."""
ARITH_PROMPT = 12
"""Arithmetic prompt slot (left-padded)."""
ARITH_ANSWER = 4
"""Arithmetic answer slot (up to three digits and at least one ``PAD``)."""


def encode(tokens: list[str]) -> list[int]:
    """Token strings → ids (a ``KeyError`` names an unknown token)."""
    return [STOI[t] for t in tokens]


def decode(ids: list[int]) -> list[str]:
    """Ids → token strings."""
    return [VOCAB[i] for i in ids]


# ---------------------------------------------------------------- code language: parser


class _Fail(Exception):
    pass


class _Parser:
    def __init__(self, toks: list[str]) -> None:
        self.toks, self.i = toks, 0
        self.env: dict[str, str] = {}

    def peek(self, ahead: int = 0) -> str | None:
        j = self.i + ahead
        return self.toks[j] if j < len(self.toks) else None

    def eat(self, tok: str) -> None:
        if self.peek() != tok:
            raise _Fail(f"expected {tok!r} at token {self.i}, got {self.peek()!r}")
        self.i += 1

    def name(self) -> str:
        a, b = self.peek(), self.peek(1)
        if (a, b) not in NAMES:
            raise _Fail(f"no identifier at token {self.i}: {a!r} {b!r}")
        self.i += 2
        return f"{a}{b}"

    def is_name(self) -> bool:
        return (self.peek(), self.peek(1)) in NAMES

    def use(self, want: str) -> None:
        name = self.name()
        if self.env.get(name) != want:
            raise _Fail(f"{name} used as {want} but is {self.env.get(name, 'undeclared')}")

    def int_expr(self) -> None:
        self.int_atom()
        while self.peek() == "+":
            self.eat("+")
            self.int_atom()

    def int_atom(self) -> None:
        tok = self.peek()
        if tok in DIGITS:
            self.i += 1
        elif tok == "(":
            self.eat("(")
            self.int_expr()
            self.eat(")")
        elif tok == "len":
            self.eat("len")
            self.eat("(")
            self.list_expr()
            self.eat(")")
        elif self.is_name():
            self.use("int")
        else:
            raise _Fail(f"expected an int expression at token {self.i}, got {tok!r}")

    def list_expr(self) -> None:
        if self.peek() == "[":
            self.eat("[")
            self.int_expr()
            if self.peek() == ",":
                self.eat(",")
                self.int_expr()
            self.eat("]")
        elif self.is_name():
            self.use("list")
        else:
            raise _Fail(f"expected a list expression at token {self.i}, got {self.peek()!r}")

    def stmt(self) -> None:
        self.eat("let")
        name = self.name()
        if name in self.env:
            raise _Fail(f"{name} declared twice")
        self.eat(":")
        typ = self.peek()
        if typ not in ("int", "list"):
            raise _Fail(f"expected a type at token {self.i}, got {typ!r}")
        self.i += 1
        self.eat("=")
        self.int_expr() if typ == "int" else self.list_expr()
        self.eat(";")
        self.env[name] = typ


def check_program(tokens: list[str]) -> str | None:
    """``None`` when ``tokens`` (the generated region: a program then only ``PAD``) is a valid program, else
    the reason it is not."""
    n = len(tokens)
    while n and tokens[n - 1] == PAD:
        n -= 1
    p = _Parser(tokens[:n])
    try:
        if n == 0:
            raise _Fail("empty program")
        while p.i < n:
            p.stmt()
    except _Fail as exc:
        return str(exc)
    return None


def parse_program(tokens: list[str]) -> bool:
    """Whether ``tokens`` is a valid program (see the module docstring)."""
    return check_program(tokens) is None


# ---------------------------------------------------------------- code language: generator


def _int_expr(rng: random.Random, env: dict[str, str], depth: int) -> list[str]:
    ints = [n for n in NAMES if env.get("".join(n)) == "int"]
    lists = [n for n in NAMES if env.get("".join(n)) == "list"]
    r = rng.random()
    if depth > 0 and r < 0.25:
        return _int_expr(rng, env, depth - 1) + ["+"] + _int_expr(rng, env, depth - 1)
    if depth > 0 and r < 0.35:
        return ["("] + _int_expr(rng, env, depth - 1) + [")"]
    if depth > 0 and r < 0.5:
        inner = list(rng.choice(lists)) if lists and rng.random() < 0.5 else _list_lit(rng, env, depth - 1)
        return ["len", "("] + inner + [")"]
    if ints and r < 0.75:
        return list(rng.choice(ints))
    return [rng.choice(DIGITS)]


def _list_lit(rng: random.Random, env: dict[str, str], depth: int) -> list[str]:
    if rng.random() < 0.5:
        return ["["] + _int_expr(rng, env, depth) + ["]"]
    return ["["] + _int_expr(rng, env, depth) + [","] + _int_expr(rng, env, depth) + ["]"]


def random_program(rng: random.Random, max_len: int = SEQ_LEN - 1) -> list[str]:
    """A valid program of at most ``max_len`` tokens (resampled until it fits)."""
    while True:
        env: dict[str, str] = {}
        out: list[str] = []
        for _ in range(rng.randint(1, 3)):
            free = [n for n in NAMES if "".join(n) not in env]
            name = rng.choice(free)
            typ = rng.choice(("int", "list"))
            expr = _int_expr(rng, env, 2) if typ == "int" else (
                list(rng.choice([n for n in NAMES if env.get("".join(n)) == "list"]))
                if any(v == "list" for v in env.values()) and rng.random() < 0.3 else _list_lit(rng, env, 1))
            out += ["let", *name, ":", typ, "=", *expr, ";"]
            env["".join(name)] = typ
        if len(out) <= max_len:
            return out


# ---------------------------------------------------------------- arithmetic

_FORMS = ("a+b", "a*b", "a+b*c", "a*b+c", "(a+b)*c", "a*(b+c)", "a+b+c")


def random_arith(rng: random.Random) -> tuple[list[str], int]:
    """An expression's tokens and its value."""
    form = rng.choice(_FORMS)
    vals = {c: rng.randint(0, 9) for c in "abc"}
    toks = [str(vals[ch]) if ch in vals else ch for ch in form]
    return toks, int(eval(form, {}, vals))  # the form is one of _FORMS, never user input


def arith_answer(tokens: list[str]) -> int | None:
    """The number written in an answer slot (digits then only ``PAD``, no leading zero), else ``None``."""
    n = len(tokens)
    while n and tokens[n - 1] == PAD:
        n -= 1
    digits = tokens[:n]
    if not digits or any(t not in DIGITS for t in digits) or (len(digits) > 1 and digits[0] == "0"):
        return None
    return int("".join(digits))


# ---------------------------------------------------------------- sequences


@dataclass
class Example:
    """One training or evaluation sequence."""

    ids: list[int]
    """:data:`SEQ_LEN` token ids (the full sequence: prompt, answer or program, padding)."""
    start: int
    """First generated position."""
    end: int
    """One past the last generated position."""
    task: str
    """``"code"`` or ``"arith"``."""
    answer: int | None = None
    """Arithmetic: the value of the expression."""


def code_example(program: list[str]) -> Example:
    """``<c>`` + ``program`` padded to :data:`SEQ_LEN`."""
    if len(program) > SEQ_LEN - 1:
        raise UserError(f"program of {len(program)} tokens exceeds {SEQ_LEN - 1}")
    toks = [CODE] + program + [PAD] * (SEQ_LEN - 1 - len(program))
    return Example(encode(toks), 1, SEQ_LEN, "code")


def arith_example(expr: list[str], value: int) -> Example:
    """The left-padded prompt ``<a> EXPR =``, the answer slot, then padding."""
    prompt = [ARITH] + expr + ["="]
    ans = list(str(value))
    if len(prompt) > ARITH_PROMPT or len(ans) >= ARITH_ANSWER:
        raise UserError(f"arithmetic example too long: {' '.join(expr)} = {value}")
    toks = [PAD] * (ARITH_PROMPT - len(prompt)) + prompt + ans + [PAD] * (SEQ_LEN - ARITH_PROMPT - len(ans))
    return Example(encode(toks), ARITH_PROMPT, ARITH_PROMPT + ARITH_ANSWER, "arith", value)


def make_dataset(n: int, seed: int, arith_share: float = 0.5) -> list[Example]:
    """``n`` examples, a share ``arith_share`` of them arithmetic, the rest programs (seeded)."""
    if n < 0 or not 0.0 <= arith_share <= 1.0:
        raise UserError(f"bad dataset size {n} or arithmetic share {arith_share}")
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        if rng.random() < arith_share:
            out.append(arith_example(*random_arith(rng)))
        else:
            out.append(code_example(random_program(rng)))
    return out


def is_valid(ex: Example, ids: list[int]) -> bool:
    """Whether a decoded sequence's generated region is well formed: a program that parses (code) or a
    number (arithmetic)."""
    region = decode(ids[ex.start:ex.end])
    return parse_program(region) if ex.task == "code" else arith_answer(region) is not None


def is_correct(ex: Example, ids: list[int]) -> bool:
    """Arithmetic: the answer equals the expression's value; code: same as :func:`is_valid`."""
    if ex.task == "code":
        return is_valid(ex, ids)
    return arith_answer(decode(ids[ex.start:ex.end])) == ex.answer
