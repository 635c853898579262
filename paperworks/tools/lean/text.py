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
    # the compiler instead of the kernel: `native_decide`, `decide +native` rest on the axiom
    # `Lean.ofReduceBool` (trusting every `implemented_by`/`extern` in scope), not on a checked proof
    "native_decide", "native", "ofReduceBool", "Lean.ofReduceBool", "ofReduceNat", "Lean.ofReduceNat",
    "trustCompiler", "Lean.trustCompiler",
    "sorryAx",
)

_COMMAND = re.compile(r"(?<![\w'.!?#])#[A-Za-z_]\w*")  # #eval, #exit, #print, ...
_OPEN = "([{⟨⦃⟦⁅"
_CLOSE = ")]}⟩⦄⟧⁆"


_CHAR_LIT = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]{1,6}\}|.)|[^\\'\n])'")
_RAW_OPEN = re.compile(r"r(#*)\"")
_IDENT_CHAR = re.compile(r"[\w'!?]")


def _blank(body: str) -> str:
    return "".join("\n" if ch == "\n" else " " for ch in body)


def strip_comments(text: str, *, blank_strings: bool = False) -> str:
    """``text`` without ``--`` line comments and (nested) ``/- -/`` block comments, newlines kept so
    lines stay where they were; with ``blank_strings`` the insides of string literals become spaces.

    Lexed as Lean does, so that nothing a banned-token scan must see can pass for a comment or a
    string: char literals (``'"'``), ``«…»`` names (``«--»``, ``«/-»``), raw strings
    (``r#"a"b"#``), and interpolated strings (``s!"{code}"``) whose ``{…}`` parts stay code."""
    return _lex(text, 0, blank_strings, None, "prefix")[0]


def _lex(text: str, i: int, blank: bool, stop: str | None, interp: str) -> tuple[str, int]:
    """Lex from ``i``; with ``stop`` (``}``) return at the unmatched ``}`` that ends an interpolation.
    ``interp``: which strings are interpolated: ``prefix`` (``s!"…"``, ``m!"…"``), ``all`` or ``none``."""
    out: list[str] = []
    n, depth, braces = len(text), 0, 0
    # the name being read: `h'`, `get!` continue one; `2'"'` is the numeral 2, then the char literal '"'
    run, run_digit = False, False
    while i < n:
        c, two = text[i], text[i:i + 2]
        in_name = run and not run_digit
        if not _IDENT_CHAR.match(c):
            run = False
        elif not run:
            run, run_digit = True, c.isdigit()
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
            continue
        if two == "--":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if stop is not None and c == "{":
            braces += 1
        elif stop is not None and c == "}":
            if braces == 0:
                return "".join(out), i
            braces -= 1
        j = text.find("»", i + 1) if c == "«" else -1
        if j >= 0:  # a quoted name: its inside is no comment, string or bracket (unclosed: plain text)
            out.append(text[i:j + 1] if not blank else "«" + _blank(text[i + 1:j]) + "»")
            i = j + 1
            continue
        if c == "'" and not in_name:
            m = _CHAR_LIT.match(text, i)
            if m:
                run = False
                out.append("' '" if blank else m.group(0))
                i = m.end()
                continue
        if c == "r" and not in_name:
            m = _RAW_OPEN.match(text, i)
            if m:
                close = '"' + m.group(1)
                j = text.find(close, m.end())
                if j >= 0:  # unclosed: plain text, so that nothing after it escapes the scan
                    run = False
                    body = text[m.end():j]
                    out.append('"' + _blank(body) + '"' if blank else text[i:j + len(close)])
                    i = j + len(close)
                    continue
        if c == '"' and (interp == "all" or interp == "prefix" and in_name and text[i - 1] == "!"):
            piece, i = _interpolated(text, i + 1, blank, interp)
            out.append(piece)
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            body = text[i + 1:min(j, n)]
            out.append('"' + (_blank(body) if blank else body) + ('"' if j < n else ""))  # unclosed: no quote
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out), i


def _interpolated(text: str, i: int, blank: bool, interp: str) -> tuple[str, int]:
    """An interpolated string's pieces from after its opening quote: text pieces as (blanked) strings,
    ``{…}`` pieces lexed as code; returns the text and the index after the closing quote."""
    out, piece, n = ['"'], [], len(text)
    while i < n and text[i] != '"':
        if text[i] == "\\":
            piece.append(text[i:i + 2])
            i += 2
        elif text[i] == "{":
            code, i = _lex(text, i + 1, blank, "}", interp)
            body = "".join(piece)
            tail = "\n" * (len(code) - len(code.rstrip("\n")))  # no character after the code's last newline
            out.append((_blank(body) if blank else body)
                       + ('" ' + code.rstrip("\n") + ' "' + tail if blank else "{" + code + "}"))
            piece = []
            i += 1
        else:
            piece.append(text[i])
            i += 1
    body = "".join(piece)
    out.append((_blank(body) if blank else body) + ('"' if i < n else ""))  # unclosed: no quote added
    return "".join(out), i + 1


def _token_pattern(token: str) -> re.Pattern[str]:
    end = r"(?![\w'!?])" if token[-1].isalnum() or token[-1] in "_'" else r"(?![\w'])"
    return re.compile(r"(?<![\w'.!?])" + re.escape(token) + end)


def find_banned(text: str, banned: Iterable[str] = DEFAULT_BANNED, *, unsafe: bool = True) -> list[str]:
    """The banned tokens that occur in ``text`` outside comments and strings, in the order of ``banned``
    (then the unsafe ones and ``#`` commands when ``unsafe``). Whole tokens only: ``rw?`` is not ``rw``."""
    # Whether a string is interpolated depends on the syntax before it (`s!`, `m!`, but also
    # `dbg_trace`, `throwError`, while `get!"…"` is a plain string): the code of both readings is
    # scanned, with every string plain and with every string interpolated.
    codes = [_lex(text, 0, True, None, mode)[0] for mode in ("none", "all")]
    code = "\n".join(re.sub(r'"[^"]*"', '""', c) for c in codes)
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
