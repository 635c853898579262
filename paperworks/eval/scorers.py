"""The scorer registry and the built-in string and number scorers.

A scorer is ``async def fn(sample, output, answer, ctx, **args) -> Score``: ``output`` is the workflow's
output, ``answer`` the answer extracted from it (``extract_answer``), ``ctx`` the ``ScoreContext``.
Scorers never raise for a bad answer (a wrong answer is a failing ``Score``); they raise ``UserError``
only for misuse: unknown arguments, or a target the scorer cannot use.

Built-ins: ``exact``, ``match`` (alias ``quasi_exact``), ``numeric``, ``includes`` and the model-graded
``judge`` (in ``judge.py``). Workflows add their own in ``WorkflowSpec.scorers``; those win over these.
"""

from __future__ import annotations

import inspect
import json
import re
import unicodedata
from collections.abc import Awaitable, Callable
from typing import Any

from paperworks.core.errors import UserError
from paperworks.eval import judge as _judge
from paperworks.eval.numbers import (  # noqa: F401  (find_numbers, target_number: part of this API)
    Number,
    close_to,
    final_answer_text,
    find_numbers,
    marked_numbers,
    target_number,
)
from paperworks.eval.records import Sample, Score
from paperworks.eval.score_context import ScoreContext

ScorerFn = Callable[..., Awaitable[Score]]
"""``async (sample, output, answer, ctx, **args) -> Score``."""


class Scorer:
    """A registered scorer: checks its arguments, awaits the function and returns a ``Score``.

    Wraps sync or async functions; a function may return a ``Score``, a ``Score`` dict, a bool
    (pass/fail) or a number (a graded value).
    """

    def __init__(self, name: str, fn: Callable[..., Any],
                 check: Callable[[Sample, dict[str, Any]], None] | None = None,
                 available: Callable[[], str | None] | None = None) -> None:
        self.name = name
        self.fn = fn
        self.check = check
        """``check(sample, args)`` raises ``UserError`` for a sample the scorer cannot score (its target)."""
        self.available = available
        """``available()`` → None when the scorer can run on this machine, else why not (one line), e.g.
        a Lean-verified scorer where no Lean toolchain is found (a workflow's scorer function declares
        it as its ``available`` attribute). An eval drops an unavailable scorer,
        says so and records it in run.json (``skipped_scorers``); its figures are never replaced by
        another scorer's."""
        self.metrics: tuple[str, ...] = tuple(str(m) for m in getattr(fn, "metrics", ()) or ())
        """Names of the numbers the scorer reports in ``details["metrics"]`` (a scorer function declares them
        as its ``metrics`` attribute; ``paperworks train --shaping`` accepts these names)."""
        self.__doc__ = fn.__doc__
        params = list(inspect.signature(fn).parameters.values())[4:]
        self.open = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
        """True when the function takes ``**args`` (any argument is accepted)."""
        self.params = [p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
        """Names of the arguments the scorer takes."""

    def check_args(self, args: dict[str, Any]) -> None:
        """Raise a one-line ``UserError`` for arguments this scorer does not take."""
        unknown = sorted(set(args) - set(self.params))
        if unknown and not self.open:
            raise UserError(f"scorer '{self.name}': unknown argument(s) {unknown}; "
                            f"it takes {self.params or 'no arguments'}")

    def unavailable(self) -> str | None:
        """Why this scorer cannot run here (None when it can)."""
        return self.available() if self.available is not None else None

    def check_sample(self, sample: Sample, args: dict[str, Any]) -> None:
        """Raise a one-line ``UserError`` (naming the row) if this scorer cannot use ``sample``;
        the suite loader calls it for every row, so a bad target fails before the eval starts."""
        if self.check is not None:
            self.check(sample, args)

    async def __call__(self, sample: Sample, output: Any, answer: str, ctx: ScoreContext, **args: Any) -> Score:
        self.check_args(args)
        result = self.fn(sample, output, answer, ctx, **args)
        if inspect.isawaitable(result):
            result = await result
        return _to_score(result, answer, self.name)


def _to_score(result: Any, answer: str, name: str) -> Score:
    if isinstance(result, Score):
        score = result
    elif isinstance(result, dict):
        score = Score.from_dict(result)
    elif isinstance(result, bool):
        score = Score(value=float(result), passed=result)
    elif isinstance(result, int | float):
        score = Score(value=float(result))
    else:
        raise UserError(f"scorer '{name}' returned {type(result).__name__}; expected a Score, dict, bool or number")
    if score.answer is None:
        score.answer = answer
    return score


SCORERS: dict[str, Scorer] = {}
"""Built-in scorers by name (aliases included)."""


def register_scorer(name: str, *aliases: str, check: Callable[[Sample, dict[str, Any]], None] | None = None
                    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: register ``fn`` as the scorer ``name`` (and its ``aliases``); returns ``fn`` unchanged.
    ``check(sample, args)`` validates each row at suite load (see ``Scorer.check_sample``)."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        for key in (name, *aliases):
            SCORERS[key] = Scorer(key, fn, check)
        return fn

    return decorate


def get_scorer(name: str, workflow_scorers: dict[str, Callable[..., Any]] | None = None) -> Scorer:
    """The scorer called ``name``: the workflow's own (``WorkflowSpec.scorers``) first, then the built-ins."""
    if workflow_scorers and name in workflow_scorers:
        fn = workflow_scorers[name]
        return fn if isinstance(fn, Scorer) else Scorer(name, fn, available=getattr(fn, "available", None))
    if name in SCORERS:
        return SCORERS[name]
    known = sorted({*SCORERS, *(workflow_scorers or {})})
    raise UserError(f"unknown scorer '{name}'; known: {', '.join(known)}")


def extract_answer(output: Any, field: str = "answer") -> str:
    """The answer text in a workflow's output: a dict's ``field``, a string itself, anything else as JSON."""
    if isinstance(output, dict):
        output = output.get(field)
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    if hasattr(output, "model_dump"):
        output = output.model_dump(mode="json")
    return json.dumps(output, ensure_ascii=False, default=str)


# ---------------------------------------------------------------------------------------- numbers

_ANSWER_PREFIX = re.compile(r"^\s*(?:the\s+)?(?:final\s+)?answer\s*(?:is\s*:?|:)\s*", re.IGNORECASE)


def _text(value: Any) -> str:
    """A target value as text (integral floats without ``.0``)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _require_target(sample: Sample, scorer: str) -> Any:
    if sample.target is None:
        where = f" ({sample.source})" if sample.source else ""
        raise UserError(f"sample '{sample.id}'{where}: scorer '{scorer}' needs a target, and it has none")
    return sample.target


def _needs_target(scorer: str) -> Callable[[Sample, dict[str, Any]], None]:
    def check(sample: Sample, args: dict[str, Any]) -> None:
        _require_target(sample, scorer)

    return check


def _numeric_target(sample: Sample, args: dict[str, Any]) -> float:
    """The sample's target as a number; a one-line error naming the row when it is not one."""
    target = target_number(_require_target(sample, "numeric"))
    if target is None:
        where = f" ({sample.source})" if sample.source else ""
        raise UserError(f"sample '{sample.id}'{where}: scorer 'numeric' needs a numeric target, "
                        f"got {sample.target!r}")
    return target


def _alternatives(target: Any) -> list[str]:
    return [_text(t) for t in target] if isinstance(target, list | tuple) else [_text(target)]


# ---------------------------------------------------------------------------------------- scorers

@register_scorer("exact", check=_needs_target("exact"))
async def exact(sample: Sample, output: Any, answer: str, ctx: ScoreContext, *, case_sensitive: bool = True) -> Score:
    """The answer equals the target after stripping whitespace (a list target: any of its items)."""
    targets = _alternatives(_require_target(sample, "exact"))
    got = answer.strip()
    fold: Callable[[str], str] = (lambda s: s) if case_sensitive else str.casefold
    passed = any(fold(got) == fold(t.strip()) for t in targets)
    return Score(value=float(passed), passed=passed, answer=got,
                 explanation=None if passed else f"{got!r} != {' | '.join(repr(t) for t in targets)}")


def _check_includes(sample: Sample, args: dict[str, Any]) -> None:
    """An empty target is in every answer: a one-line error naming the row, not a pass for everything."""
    if any(not t.strip() for t in _alternatives(_require_target(sample, "includes"))):
        where = f" ({sample.source})" if sample.source else ""
        raise UserError(f"sample '{sample.id}'{where}: scorer 'includes' needs a non-empty target, "
                        f"got {sample.target!r}")


@register_scorer("includes", check=_check_includes)
async def includes(sample: Sample, output: Any, answer: str, ctx: ScoreContext, *,
                   case_sensitive: bool = False) -> Score:
    """The target occurs in the answer, case-insensitively by default (a list target: any of its items)."""
    targets = _alternatives(_require_target(sample, "includes"))
    fold: Callable[[str], str] = (lambda s: s) if case_sensitive else str.casefold
    passed = any(fold(t.strip()) in fold(answer) for t in targets)
    return Score(value=float(passed), passed=passed, answer=answer,
                 explanation=None if passed else f"{' | '.join(repr(t) for t in targets)} not in the answer")


def _check_numeric(sample: Sample, args: dict[str, Any]) -> None:
    _numeric_target(sample, args)


@register_scorer("numeric", check=_check_numeric)
async def numeric(sample: Sample, output: Any, answer: str, ctx: ScoreContext, *, pick: str = "last",
                  rel_tol: float = 1e-6, abs_tol: float = 1e-9) -> Score:
    """The number the final answer states (the last one, or the first with ``pick="first"``; the one
    right after "the answer is" when the answer says so) is close to the target. Only the final answer
    is read (``final_answer_text``): never a number out of an error message or tool-call markup in it."""
    if pick not in ("last", "first"):
        raise UserError(f"scorer 'numeric': pick must be 'last' or 'first', not {pick!r}")
    target = _numeric_target(sample, {})
    final, marked = final_answer_text(answer)
    numbers = find_numbers(final)
    if not numbers:
        why = "no number in the final answer (numbers in error messages are not read)" if find_numbers(answer) \
            else "no number in answer"
        return Score(value=0.0, passed=False, answer=answer, explanation=why)
    got = numbers[-1] if pick == "last" and not marked else numbers[0]  # "the answer is N, ...": N
    if marked:
        stated = marked_numbers(final)
        if len({(n.value, n.percent) for n in stated}) > 1:  # "the answer is 5 or 6", "not 5; it is 7"
            shown = ", ".join(f"{n.value:g}" for n in stated[:5])
            return Score(value=0.0, passed=False, answer=answer,
                         explanation=f"the answer states several numbers after its answer mark ({shown})")
        got = stated[0] if stated else got
    passed = close_to(got, target, float(rel_tol), float(abs_tol))
    shown = f"{got.value:g}{'%' if got.percent else ''}"
    explanation = f"{shown} == {target:g}" if passed else f"|{got.value:g} - {target:g}| > tolerance"
    return Score(value=float(passed), passed=passed, answer=answer, explanation=explanation,
                 details={"extracted": got.value, "target": target})


def normalize_text(text: str) -> str:
    """Lowercase, drop punctuation, the articles a/an/the and all whitespace (GAIA's normalisation)."""
    text = re.sub(r"[^\w\s]|_", "", unicodedata.normalize("NFKC", text).casefold())
    text = re.sub(r"\b(?:a|an|the)\b", " ", text)
    return "".join(text.split())


def _one_number(text: str) -> Number | None:
    """The number an item states: it must hold exactly one (words around it, like units, are ignored)."""
    numbers = find_numbers(text)
    return numbers[0] if len(numbers) == 1 else None


def _item_matches(got: str, want: Any) -> bool:
    number = target_number(want)
    if number is not None:
        found = _one_number(got)
        return found is not None and close_to(found, number)
    return normalize_text(got) == normalize_text(_text(want))


def _split(text: str) -> list[str]:
    return [part.strip() for part in re.split(r"[,;]", text)]


def _answer_items(answer: str) -> list[str]:
    if answer.startswith("["):
        try:
            items = json.loads(answer)
        except json.JSONDecodeError:
            items = None
        if isinstance(items, list):
            return [_text(i) for i in items]
    return _split(answer)


@register_scorer("match", "quasi_exact", check=_needs_target("match"))
async def match(sample: Sample, output: Any, answer: str, ctx: ScoreContext) -> Score:
    """GAIA-style quasi-exact match.

    A numeric target: the answer must state one number (``$``, ``%``, commas and unit words ignored)
    equal to it. A list target, or one with commas/semicolons: both are split on ``,``/``;`` and
    compared item by item, in order. Otherwise the normalised strings (``normalize_text``) must be equal.
    """
    target = _require_target(sample, "match")
    got = _ANSWER_PREFIX.sub("", answer.strip()).strip()
    if target_number(target) is not None:
        passed = _item_matches(got, target)
        why = "" if passed else f"{got!r} does not state the number {_text(target)}"
    elif isinstance(target, list | tuple) or (isinstance(target, str) and re.search(r"[,;]", target)):
        wants = list(target) if isinstance(target, list | tuple) else _split(target)
        items = _answer_items(got)
        if len(items) != len(wants):
            passed, why = False, f"expected {len(wants)} items, got {len(items)}"
        else:
            bad = [i for i, (g, w) in enumerate(zip(items, wants, strict=True)) if not _item_matches(g, w)]
            passed = not bad
            why = "" if passed else f"item(s) {[i + 1 for i in bad]} differ: {items} vs {wants}"
    else:
        passed = normalize_text(got) == normalize_text(_text(target))
        why = "" if passed else f"{normalize_text(got)!r} != {normalize_text(_text(target))!r}"
    return Score(value=float(passed), passed=passed, answer=answer, explanation=why or None)


register_scorer("judge")(_judge.judge)  # the model-graded scorer of judge.py, listed last
