"""Lean source text without a Lean: comments and strings, banned tactics, bracket balance, and the
split of a tactic script into its top-level steps (so that each ``have`` is checked on its own)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

#: Tactics a solver's text may not contain (the FPS authors' list plus the newer search tactics):
#: each either closes goals without a proof or is a search tool whose output must not stay in a proof.
DEFAULT_BANNED: tuple[str, ...] = (
    "sorry", "admit", "stop", "apply?", "rw?", "exact?", "simp?", "simp_all?", "aesop?", "decide?",
    "hint", "rw_search", "change?", "have?", "unfold?", "says", "slim_check", "plausible",
    "lcErased", "lcProof", "lcCast", "lcUnreachable", "Quot.lcInv",
)

#: Always refused in text that paperworks embeds into a Lean command or tactic (whatever the banned
#: setting): they run arbitrary code, add axioms or declarations, or change the parser.
UNSAFE_TOKENS: tuple[str, ...] = (
    "run_tac", "run_cmd", "run_elab", "run_meta", "by_elab", "elab", "elab_rules", "macro", "macro_rules",
    "syntax", "notation", "infix", "infixl", "infixr", "prefix", "postfix", "declare_syntax_cat", "axiom",
    "unsafe", "implemented_by", "extern", "initialize", "builtin_initialize", "attribute", "import",
    "theorem", "lemma", "def", "instance", "abbrev", "example", "structure", "class", "inductive",
    "namespace", "section", "mutual", "opaque", "universe", "variable", "deriving", "set_option",
)

_COMMAND = re.compile(r"(?<![\w'.!?#])#[A-Za-z_]\w*")  # #eval, #exit, #print, ...
_OPEN = "([{⟨⦃⟦⁅"
_CLOSE = ")]}⟩⦄⟧⁆"


def strip_comments(text: str, *, blank_strings: bool = False) -> str:
    """``text`` without ``--`` line comments and (nested) ``/- -/`` block comments, newlines kept so
    lines stay where they were; with ``blank_strings`` the insides of string literals become spaces."""
    out: list[str] = []
    i, n, depth = 0, len(text), 0
    while i < n:
        c, two = text[i], text[i:i + 2]
        if depth:
            if two == "/-":
                depth, i = depth + 1, i + 2
            elif two == "-/":
                depth, i = depth - 1, i + 2
            else:
                out.append("\n" if c == "\n" else "")
                i += 1
            continue
        if two == "/-":
            depth, i = 1, i + 2
        elif two == "--":
            while i < n and text[i] != "\n":
                i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            body = text[i + 1:min(j, n)]
            out.append('"' + ("".join("\n" if ch == "\n" else " " for ch in body) if blank_strings else body) + '"')
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _token_pattern(token: str) -> re.Pattern[str]:
    end = r"(?![\w'!?])" if token[-1].isalnum() or token[-1] in "_'" else r"(?![\w'])"
    return re.compile(r"(?<![\w'.!?])" + re.escape(token) + end)


def find_banned(text: str, banned: Iterable[str] = DEFAULT_BANNED, *, unsafe: bool = True) -> list[str]:
    """The banned tokens that occur in ``text`` outside comments and strings, in the order of ``banned``
    (then the unsafe ones and ``#`` commands when ``unsafe``). Whole tokens only: ``rw?`` is not ``rw``."""
    code = strip_comments(text, blank_strings=True)
    code = re.sub(r'"[^"]*"', '""', code)
    found = [t for t in dict.fromkeys(banned) if t and _token_pattern(t).search(code)]
    if unsafe:
        found += [t for t in UNSAFE_TOKENS if t not in found and _token_pattern(t).search(code)]
        found += [m for m in dict.fromkeys(_COMMAND.findall(code)) if m not in found]
    return found


def bracket_problem(text: str) -> str | None:
    """``None`` when every bracket in ``text`` (outside comments and strings) closes in order; else why not.
    A term embedded in a statement must not close the parentheses that hold it."""
    code = strip_comments(text, blank_strings=True)
    stack: list[str] = []
    for ch in code:
        if ch in _OPEN:
            stack.append(_CLOSE[_OPEN.index(ch)])
        elif ch in _CLOSE:
            if not stack or stack.pop() != ch:
                return f"unbalanced '{ch}'"
    return f"unclosed '{_OPEN[_CLOSE.index(stack[-1])]}'" if stack else None


def depth_profile(line: str, depth: int) -> int:
    """Bracket depth after ``line`` (already without comments and strings), starting from ``depth``."""
    for ch in line:
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
    return depth


_CONTINUATION = ("_ ", "_\t", "|", "<;>", ")", "]", "}", "⟩")


def split_steps(script: str) -> list[str]:
    """Top-level steps of a tactic script: a step starts on a line at the script's smallest indentation
    outside any bracket; deeper lines, ``_ = ...`` calc lines and lines inside ``{ }`` belong to it.
    Comment lines go with the step after them; each step is dedented."""
    lines = script.splitlines()
    code = strip_comments(script, blank_strings=True).splitlines()
    code += [""] * (len(lines) - len(code))
    indents = [len(c) - len(c.lstrip()) for c in code if c.strip()]
    if not indents:
        return []
    base = min(indents)
    steps: list[list[str]] = []
    pending: list[str] = []  # comment and blank lines waiting for their step
    depth = 0
    for raw, c in zip(lines, code, strict=True):
        stripped = c.strip()
        if not stripped:
            (pending if depth == 0 or not steps else steps[-1]).append(raw)
            continue
        col = len(c) - len(c.lstrip())
        starts = depth == 0 and col == base and not stripped.startswith(_CONTINUATION)
        if starts or not steps:
            steps.append([*pending, raw])
        else:
            steps[-1].extend([*pending, raw])
        pending = []
        depth = depth_profile(c, depth)
    return [_dedent(s, base) for s in steps]


def _dedent(lines: Sequence[str], base: int) -> str:
    out = [ln[base:] if ln[:base].strip() == "" else ln.lstrip() for ln in lines]
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    return "\n".join(out)


def indent(text: str, spaces: int, *, first: bool = True) -> str:
    """Every non-blank line of ``text`` indented by ``spaces`` (the first one too unless ``first`` is False)."""
    pad = " " * spaces
    lines = text.splitlines() or [""]
    return "\n".join((pad + ln if ln.strip() and (first or k) else ln) for k, ln in enumerate(lines))
