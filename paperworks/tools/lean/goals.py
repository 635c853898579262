"""Lean goal displays (``Meta.ppGoal``, as the REPL prints them) read into parts and written back:

    case h.mp
    x y : ℝ
    h : x = y
    ⊢ ?w

Continuation lines of a long hypothesis or target start with spaces."""

from __future__ import annotations

from dataclasses import dataclass, replace

from paperworks.tools.lean.text import depth_profile

TURNSTILE = "⊢"


@dataclass(frozen=True)
class Hyp:
    """One line of the context: names sharing a type (``x y : ℝ``), maybe a let-value (``:= v``)."""

    names: tuple[str, ...]
    type: str
    value: str | None = None

    def render(self) -> str:
        value = f" := {self.value}" if self.value is not None else ""
        return f"{' '.join(self.names)} : {self.type}{value}"


@dataclass(frozen=True)
class Goal:
    """A goal: its case tag (``h.mp``) if shown, the hypotheses in order, and the target."""

    hyps: tuple[Hyp, ...]
    target: str
    case: str | None = None

    @classmethod
    def parse(cls, text: str) -> Goal:
        """Read a goal display; a display without ``⊢`` is all target."""
        lines = text.strip("\n").splitlines()
        case = None
        if lines and lines[0].startswith("case "):
            case, lines = lines[0][5:].strip(), lines[1:]
        hyps: list[Hyp] = []
        target: list[str] | None = None
        block: list[str] = []

        def flush() -> None:
            if block:
                hyps.append(_hyp("\n".join(block)))
                block.clear()

        for line in lines:
            if target is not None:
                target.append(line)
            elif line.startswith(TURNSTILE):
                flush()
                target = [line[len(TURNSTILE):].strip()]
            elif line[:1].isspace() and block:
                block.append(line)
            else:
                flush()
                block.append(line)
        flush()
        if target is None:
            return cls(hyps=(), target=text.strip(), case=case)
        return cls(hyps=tuple(hyps), target="\n".join(target), case=case)

    def render(self, *, with_case: bool = True) -> str:
        """The display again (``Goal.parse(g.render()) == g``)."""
        head = [f"case {self.case}"] if self.case and with_case else []
        return "\n".join([*head, *(h.render() for h in self.hyps), f"{TURNSTILE} {self.target}"])

    def hyp(self, name: str) -> str | None:
        """The type of the visible hypothesis ``name`` (the last one of that name), or None."""
        for h in reversed(self.hyps):
            if name in h.names:
                return h.type
        return None

    def with_hyp(self, name: str, type_: str) -> Goal:
        """This goal with ``name : type_`` added last; an older ``name`` becomes ``name✝`` as in Lean."""
        old = tuple(Hyp(tuple(f"{n}✝" if n == name else n for n in h.names), h.type, h.value) for h in self.hyps)
        return replace(self, hyps=(*old, Hyp((name,), type_)))


def _hyp(text: str) -> Hyp:
    names, _, rest = text.partition(" : ")
    idx = _top_level(rest, " := ")
    value = None
    if idx is not None:
        rest, value = rest[:idx], rest[idx + 4:].strip()
    return Hyp(tuple(names.split()), rest.strip(), value)


def _top_level(text: str, needle: str) -> int | None:
    """Index of the first ``needle`` outside brackets in ``text``."""
    depth = 0
    for i, ch in enumerate(text):
        if depth == 0 and text.startswith(needle, i):
            return i
        depth = depth_profile(ch, depth)
    return None


def visible_goals(goals: tuple[str, ...] | list[str], *, slot: str = "w") -> tuple[str, ...]:
    """The goals without the answer slot ``case w`` (``⊢ Prop``), which the REPL keeps listing after the
    forward phase has assigned it."""
    return tuple(g for g in goals if not (g.startswith(f"case {slot}\n") and g.rstrip().endswith(f"{TURNSTILE} Prop")))
