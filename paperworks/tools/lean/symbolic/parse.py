"""A Pratt parser for Lean 4 terms into the syntax tree of ``syntax`` (:class:`Node`), with no meaning
attached. Layer: parse (tokens from ``lex`` in, a tree out).

It reads surface syntax (``fun n => n * (n + 1)``, ``{x : ℝ | 0 < x}``, ``∑ k in Finset.range 5, k``)
and therefore pp.explicit output too (``@HAdd.hAdd Nat Nat Nat inst a b`` is an application).
Precedences follow Lean 4 and Mathlib: ``↔`` 20, ``→`` 25 (right), ``∨`` 30 and ``∧`` 35 (right),
relations 50, ``+ - ∪`` 65, ``* / % ∩ \\`` 70, ``^`` 75 (right), prefix ``-`` takes its operand at 75,
``¬`` at 40, ``√`` at 100, application binds tightest; ``fun``/``∀``/``∃`` bodies extend to the right,
and big-operator bodies (``∑ x ∈ s, body``) are read at 67 as in Mathlib, so ``∑ k in s, k + 1`` is
``(∑ k in s, k) + 1``. Nesting deeper than :data:`MAX_DEPTH` is refused.
"""

from __future__ import annotations

from paperworks.tools.lean.symbolic.lex import Token, tokenize
from paperworks.tools.lean.symbolic.syntax import Binder, Node, tree_depth

MAX_DEPTH = 100
MAX_TREE_DEPTH = 300


class ParseError(ValueError):
    """The text is not a Lean term this parser reads."""


INFIX: dict[str, tuple[int, str, str]] = {  # symbol -> (precedence, associativity, op)
    "↔": (20, "n", "iff"), "<->": (20, "n", "iff"),
    "→": (25, "r", "arrow"), "->": (25, "r", "arrow"),
    "∨": (30, "r", "or"), "\\/": (30, "r", "or"),
    "∧": (35, "r", "and"), "/\\": (35, "r", "and"), "×": (35, "r", "prodty"),
    "=": (50, "n", "eq"), "≠": (50, "n", "ne"), "!=": (50, "n", "ne"), "<": (50, "n", "lt"),
    ">": (50, "n", "gt"), "≤": (50, "n", "le"), "<=": (50, "n", "le"), "≥": (50, "n", "ge"),
    ">=": (50, "n", "ge"), "∈": (50, "n", "mem"), "∉": (50, "n", "notmem"), "∣": (50, "n", "dvd"),
    "⊆": (50, "n", "subset"), "≡": (50, "n", "modeq"),
    "+": (65, "l", "add"), "-": (65, "l", "sub"), "∪": (65, "l", "union"),
    "*": (70, "l", "mul"), "/": (70, "l", "div"), "%": (70, "l", "mod"), "∩": (70, "l", "inter"),
    "\\": (70, "l", "sdiff"), "•": (73, "r", "mul"), "·": (70, "l", "mul"),
    "^": (75, "r", "pow"), "∘": (90, "r", "comp"),
}
MAX_PREC = 1024
_ARG_START_SYMS = {"(", "⟨", "{", "![", "!![", "∅", "⊤", "⌊", "⌈", "↑", "∞"}


def parse(text: str) -> Node:
    """Parse one Lean term; raise :class:`ParseError` (or ``LexError``) if it is not one."""
    parser = _Parser(tokenize(text))
    node = parser.term(0)
    if parser.peek().kind != "eof":
        tok = parser.peek()
        raise ParseError(f"unexpected {tok.text!r} at {tok.pos}")
    if tree_depth(node) > MAX_TREE_DEPTH:  # long left-associated chains nest without parser recursion
        raise ParseError(f"term nested deeper than {MAX_TREE_DEPTH}")
    return node


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.toks = tokens
        self.i = 0
        self.depth = 0

    def peek(self, k: int = 0) -> Token:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> Token:
        tok = self.toks[self.i]
        self.i = min(self.i + 1, len(self.toks) - 1)
        return tok

    def at(self, *texts: str) -> bool:
        tok = self.peek()
        return tok.kind in ("sym", "kw") and tok.text in texts

    def expect(self, text: str) -> None:
        tok = self.next()
        if tok.text != text or tok.kind not in ("sym", "kw"):
            raise ParseError(f"expected {text!r} at {tok.pos}, found {tok.text!r}")

    # -- terms -------------------------------------------------------------------------------
    def term(self, prec: int) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError(f"term nested deeper than {MAX_DEPTH}")
        try:
            lhs = self.prefix()
            while True:
                tok = self.peek()
                if tok.kind == "sym" and tok.text in INFIX:
                    p, assoc, op = INFIX[tok.text]
                    if p < prec:
                        break
                    self.next()
                    rhs = self.term(p if assoc == "r" else p + 1)
                    lhs = self._modeq(lhs, rhs) if op == "modeq" else Node(op, (lhs, rhs))
                    if assoc == "n" and self.peek().kind == "sym" and INFIX.get(self.peek().text, (0,))[0] == p:
                        if op not in ("eq", "lt", "le", "gt", "ge", "ne"):
                            break
                    continue
                if tok.kind == "sym" and tok.text == "!" and prec <= MAX_PREC:
                    self.next()
                    lhs = Node("fact", (lhs,))
                    continue
                break
            return lhs
        finally:
            self.depth -= 1

    def _modeq(self, lhs: Node, rhs: Node) -> Node:
        self.expect("[")
        kind = self.next()
        if kind.text not in ("MOD", "ZMOD"):
            raise ParseError(f"expected MOD or ZMOD at {kind.pos}")
        modulus = self.term(0)
        self.expect("]")
        return Node("modeq", (lhs, rhs, modulus), kind.text)

    def prefix(self) -> Node:
        tok = self.peek()
        if tok.kind == "kw" and tok.text in ("fun", "λ"):
            self.next()
            binders = self.binders(("=>", "↦"))
            self.next()
            return Node("lam", (self.term(0),), tuple(binders))
        if tok.kind == "sym" and tok.text in ("∀", "∃"):
            self.next()
            binders = self.binders((",",))
            self.next()
            return Node("forall" if tok.text == "∀" else "exists", (self.term(0),), tuple(binders))
        if tok.kind == "sym" and tok.text in ("∑", "∏"):
            return self.bigop()
        if tok.kind == "kw" and tok.text == "if":
            self.next()
            cond = self.term(0)
            self.expect("then")
            a = self.term(0)
            self.expect("else")
            return Node("ite", (cond, a, self.term(0)))
        if tok.kind == "sym" and tok.text == "-":
            self.next()
            return Node("neg", (self.term(75),))
        if tok.kind == "sym" and tok.text == "¬":
            self.next()
            return Node("not", (self.term(40),))
        if tok.kind == "sym" and tok.text == "√":
            self.next()
            return Node("sqrt", (self.term(100),))
        if tok.kind == "sym" and tok.text == "|":
            self.next()
            inner = self.term(0)
            self.expect("|")
            return self.postfix(Node("abs", (inner,)))
        return self.application()

    def application(self) -> Node:
        head = self.argument()
        args: list[Node] = []
        while True:
            tok = self.peek()
            if tok.kind == "kw" and tok.text in ("fun", "λ"):
                args.append(self.prefix())
                break
            if tok.kind == "sym" and tok.text in ("∀", "∃"):  # pp prints these as trailing arguments
                args.append(self.prefix())
                break
            if not self._starts_argument(tok):
                break
            args.append(self.argument())
        return Node("app", (head, *args)) if args else head

    def _starts_argument(self, tok: Token) -> bool:
        if tok.kind in ("ident", "num"):
            return True
        if tok.kind == "sym" and tok.text == "[":
            nxt = self.peek(1)
            return nxt.text not in ("MOD", "ZMOD")
        return tok.kind == "sym" and tok.text in _ARG_START_SYMS

    def argument(self) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError(f"term nested deeper than {MAX_DEPTH}")
        try:
            return self.postfix(self.atom())
        finally:
            self.depth -= 1

    def postfix(self, node: Node) -> Node:
        while True:
            tok = self.peek()
            if tok.kind == "proj":
                self.next()
                node = Node("proj", (node,), tok.text)
            elif tok.kind == "sym" and tok.text == "⁻¹":
                self.next()
                node = Node("inv", (node,))
            elif tok.kind == "sym" and tok.text == "ᶜ":
                self.next()
                node = Node("compl", (node,))
            else:
                return node

    def atom(self) -> Node:
        tok = self.next()
        if tok.kind == "num":
            return _number(tok)
        if tok.kind == "ident":
            return Node("ident", (), tok.text)
        if tok.kind != "sym":
            raise ParseError(f"unexpected {tok.text or 'end of input'!r} at {tok.pos}")
        t = tok.text
        if t == "(":
            return self.paren()
        if t == "⟨":
            return Node("anon", tuple(self.items("⟩")))
        if t == "[":
            return Node("list", tuple(self.items("]")))
        if t == "![":
            return Node("vec", tuple(self.items("]")))
        if t == "{":
            return self.braces()
        if t == "↑":
            return Node("coe", (self.argument(),))
        if t in ("⌊", "⌈"):
            inner = self.term(0)
            close = self.next().text
            if close not in ("⌋", "⌋₊", "⌉", "⌉₊"):
                raise ParseError(f"unclosed {t} at {tok.pos}")
            kind = ("floor" if t == "⌊" else "ceil") + ("_nat" if close.endswith("₊") else "")
            return Node(kind, (inner,))
        if t == "∅":
            return Node("setlit", ())
        if t in ("⊤", "∞"):
            return Node("ident", (), "⊤")
        if t == "_":
            raise ParseError(f"hole _ at {tok.pos}")
        raise ParseError(f"unexpected {t!r} at {tok.pos}")

    def items(self, close: str) -> list[Node]:
        out: list[Node] = []
        if self.at(close):
            self.next()
            return out
        while True:
            out.append(self.term(0))
            if self.at(","):
                self.next()
                continue
            self.expect(close)
            return out

    def paren(self) -> Node:
        if self.at(")"):
            self.next()
            return Node("tuple", ())
        first = self.term(0)
        if self.at(":"):
            self.next()
            ty = self.term(0)
            self.expect(")")
            return Node("ascr", (first, ty))
        if self.at(","):
            self.next()
            rest = self.items(")")
            return Node("tuple", (first, *rest))
        self.expect(")")
        return Node("paren", (first,))

    def braces(self) -> Node:
        if self.at("}"):
            self.next()
            return Node("setlit", ())
        first = self.term(0)
        if self.at(":"):
            self.next()
            ty = self.term(0)
            self.expect("|")
            pred = self.term(0)
            self.expect("}")
            return Node("setof", (pred,), Binder(first, ty))
        if self.at("|"):
            self.next()
            pred = self.term(0)
            self.expect("}")
            if first.op == "mem":  # {x ∈ S | p}
                return Node("sep", (first.args[1], pred), Binder(first.args[0], None))
            return Node("setof", (pred,), Binder(first, None))
        rest = [first]
        while self.at(","):
            self.next()
            rest.append(self.term(0))
        self.expect("}")
        return Node("setlit", tuple(rest))

    # -- binders -----------------------------------------------------------------------------
    def binders(self, stops: tuple[str, ...]) -> list[Binder]:
        """Binder groups up to one of ``stops``: ``x``, ``(x y : T)``, ``⟨a, b⟩``, ``x : T``, ``x > 0``."""
        out: list[Binder] = []
        pending: list[Node] = []
        while not self.at(*stops):
            tok = self.peek()
            if tok.kind == "eof":
                raise ParseError("binder list not closed")
            if tok.kind == "ident" or (tok.kind == "sym" and tok.text == "_"):
                self.next()
                pending.append(Node("ident", (), tok.text if tok.kind == "ident" else "_"))
            elif tok.kind == "sym" and tok.text == ":":
                self.next()
                ty = self.term(26) if stops == ("=>", "↦") else self.term(0)
                out.extend(Binder(p, ty) for p in pending)
                pending = []
            elif tok.kind == "sym" and tok.text in ("(", "{", "[", "⦃"):
                out.extend(Binder(p, None) for p in pending)
                pending = []
                out.extend(self.group())
            elif tok.kind == "sym" and tok.text == "⟨":
                self.next()
                pending.append(Node("tuple", tuple(self.items("⟩"))))
            elif tok.kind == "sym" and tok.text in (">", "<", "≥", "≤", "∈", "≠", "∉"):
                self.next()
                bound = self.term(51)
                out.extend(Binder(p, None) for p in pending)
                out.append(Binder(Node("guard", (), tok.text), bound))
                pending = []
            else:
                raise ParseError(f"unexpected {tok.text!r} in binders at {tok.pos}")
        out.extend(Binder(p, None) for p in pending)
        return out

    def group(self) -> list[Binder]:
        opener = self.next().text
        close = {"(": ")", "{": "}", "[": "]", "⦃": "⦄"}[opener]
        if opener == "[":  # instance binder: skipped
            self.term(0)
            self.expect(close)
            return []
        first = self.term(0) if opener == "(" and self.peek().text in ("(", "⟨") else None
        if first is not None and self.at(")"):
            self.next()  # a pattern like ((a, b))
            return [Binder(first.args[0] if first.op == "paren" else first, None)]
        names: list[Node] = [] if first is None else [first]
        while self.peek().kind == "ident" or self.at("_"):
            tok = self.next()
            names.append(Node("ident", (), tok.text))
        if self.at(","):  # (a, b) pattern
            self.next()
            rest = self.items(close)
            return [Binder(Node("tuple", (*names, *rest)), None)]
        ty = None
        if self.at(":"):
            self.next()
            ty = self.term(0)
        self.expect(close)
        return [Binder(n, ty) for n in names]

    def bigop(self) -> Node:
        kind = "bigsum" if self.next().text == "∑" else "bigprod"
        if self.at("("):
            grp = self.group()
            binder = grp[0] if grp else Binder(Node("ident", (), "_"), None)
        else:
            tok = self.next()
            if tok.kind != "ident":
                raise ParseError(f"expected a bound variable at {tok.pos}")
            pat = Node("ident", (), tok.text)
            ty = None
            if self.at(":"):
                self.next()
                ty = self.term(51)
            binder = Binder(pat, ty)
        domain: Node | None = None
        if self.at("in", "∈"):
            self.next()
            domain = self.term(0)
        elif self.at("<"):
            self.next()
            domain = Node("app", (Node("ident", (), "Finset.range"), self.term(51)))
        self.expect(",")
        body = self.term(67)
        return Node(kind, (body,) if domain is None else (body, domain), binder)


def _number(tok: Token) -> Node:
    text = tok.text
    if all(c.isdigit() for c in text):
        return Node("num", (), int(text))
    mant, _, exp = text.lower().partition("e")
    whole, _, frac = mant.partition(".")
    e10 = int(exp) if exp else 0
    if abs(e10) > 10_000:
        raise ParseError(f"exponent of {text!r} too large")
    return Node("dec", (), (int(whole + frac), len(frac) - e10))
