"""Tokenizer for Lean 4 terms, both pp.explicit output and ordinary surface syntax. Layer: parse (its
first step; imports nothing of the checker).

One token stream serves both: pp.explicit is a subset of surface syntax (prefix applications with
``@Name`` heads, ``fun (x : T) => ...``, ``nat_lit n``), so one lexer and one parser read both.

Rules:
- Identifiers are Lean names: letters (Unicode, so ``ℝ``, ``π``, ``α`` count), digits, ``_``, ``'``,
  subscripts, and dots that join name parts (``Nat.succ``, ``n.choose``). A dot followed by a digit
  ends the name and becomes a projection token (``p.1``). ``λ`` is a keyword, not a letter.
- ``@Name`` is one token (explicit application: every argument, implicit and instance, follows).
- Numbers are decimal: ``12``, ``1.25``, ``2e-3``. Their digits are bounded (``MAX_DIGITS``).
- Symbols are matched longest first (``=>`` before ``=``, ``⌋₊`` before ``⌋``).
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_DIGITS = 2_000

KEYWORDS = {"fun", "λ", "if", "then", "else", "in", "let", "match", "with", "at"}

SYMBOLS = sorted(
    [
        "=>", "↦", "->", "→", "<->", "↔", "<=", "≤", ">=", "≥", "!=", "≠", "∧", "/\\", "∨", "\\/", "¬",
        "∈", "∉", "∪", "∩", "\\", "×", "⁻¹", "^", "*", "/", "%", "+", "-", "=", "<", ">", "(", ")", "{",
        "}", "[", "]", "⟨", "⟩", ",", ":", "|", "↑", "√", "∑", "∏", "∀", "∃", "!", "⌊", "⌋₊", "⌋", "⌈",
        "⌉₊", "⌉", ";", "![", "!![", "∞", "ᶜ", "∅", "⊤", "∣", "≡", "·", "•", "∘", "''", "⊆", "⊂", "$",
        "..", "_",
    ],
    key=len,
    reverse=True,
)

_SUBSCRIPTS = set("₀₁₂₃₄₅₆₇₈₉ₐₑₒₓₔₕₖₗₘₙₚₛₜᵢⱼ")
_NOT_LETTERS = {"λ", "Π", "Σ", "∑", "∏", "π_"}


class LexError(ValueError):
    """The text holds a character or literal that no Lean term may contain (or one too large)."""


@dataclass(frozen=True)
class Token:
    """One token: ``kind`` is ``ident``, ``num``, ``proj``, ``sym``, ``kw`` or ``eof``."""

    kind: str
    text: str
    pos: int


def _ident_start(ch: str) -> bool:
    return (ch.isalpha() or ch == "_") and ch not in _NOT_LETTERS


def _ident_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_'?" or ch in _SUBSCRIPTS


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens; raise :class:`LexError` on characters Lean terms never hold."""
    out: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if text.startswith("--", i):  # line comment
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if ch == "@" and i + 1 < n and _ident_start(text[i + 1]):
            j = _scan_name(text, i + 1)
            out.append(Token("ident", text[i:j], i))
            i = j
            continue
        if ch == "«":  # quoted name part
            j = text.find("»", i)
            if j < 0:
                raise LexError(f"unclosed « at {i}")
            out.append(Token("ident", text[i + 1 : j], i))
            i = j + 1
            continue
        if _ident_start(ch) and not (ch == "_" and (i + 1 >= n or not _ident_char(text[i + 1]))):
            j = _scan_name(text, i)
            word = text[i:j]
            out.append(Token("kw" if word in KEYWORDS else "ident", word, i))
            i = j
            continue
        if ch.isdigit():
            j = _scan_number(text, i)
            out.append(Token("num", text[i:j], i))
            i = j
            continue
        if ch == "." and i + 1 < n and text[i + 1].isdigit() and out and out[-1].kind in ("ident", "sym"):
            j = i + 1
            while j < n and text[j].isdigit():
                j += 1
            out.append(Token("proj", text[i + 1 : j], i))
            i = j
            continue
        if ch == "." and i + 1 < n and _ident_start(text[i + 1]) and out and out[-1].text in (")", "⟩", "]"):
            j = _scan_name(text, i + 1)  # (expr).name: a method call on a parenthesized term
            out.append(Token("proj", text[i + 1 : j], i))
            i = j
            continue
        for sym in SYMBOLS:
            if text.startswith(sym, i):
                out.append(Token("sym", sym, i))
                i += len(sym)
                break
        else:
            if ch == "λ":
                out.append(Token("kw", "λ", i))
                i += 1
                continue
            raise LexError(f"unexpected character {ch!r} at {i}")
    out.append(Token("eof", "", n))
    return out


def _scan_name(text: str, i: int) -> int:
    n = len(text)
    j = i
    while j < n:
        if _ident_char(text[j]) or (j == i and _ident_start(text[j])):
            j += 1
        elif text[j] == "." and j + 1 < n and _ident_start(text[j + 1]) and j > i:
            j += 1
        elif _ident_start(text[j]):
            j += 1
        else:
            break
    return j


def _scan_number(text: str, i: int) -> int:
    n = len(text)
    j = i
    while j < n and text[j].isdigit():
        j += 1
    if j + 1 < n and text[j] == "." and text[j + 1].isdigit():
        j += 1
        while j < n and text[j].isdigit():
            j += 1
    if j < n and text[j] in "eE" and (
        (j + 1 < n and text[j + 1].isdigit())
        or (j + 2 < n and text[j + 1] in "+-" and text[j + 2].isdigit())
    ):
        j += 2
        while j < n and text[j].isdigit():
            j += 1
    if j - i > MAX_DIGITS:
        raise LexError(f"numeral with more than {MAX_DIGITS} digits at {i}")
    return j
