"""One check, and one row's coverage, in this process: what the worker process runs (and what runs here
with ``isolate=False``). Layer: entry (below ``api`` and ``worker``; above parse, elaborate and compare,
which it imports only inside its functions, so that importing the checker does not import SymPy).

A check reads the reference (``ref.parse_reference``) and each submitted term (``ref.parse_submission``),
compares them (``equiv.Comparer``) and returns a :class:`SymbolicVerdict`; it never raises.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

LABEL = "symbolic, not Lean-verified"
MAX_SUBMISSION_CHARS = 20_000
MAX_REFERENCE_CHARS = 200_000


@dataclass
class SymbolicVerdict:
    """The checker's judgement of one submission.

    ``equivalent``: True/False, or None when undecided or unparsed. ``method``: ``symbolic`` (an
    exact argument), ``numeric`` (sampling or high-precision evaluation), ``unparsed`` (a side could
    not be read) or ``undecided``. ``reason``: one line. ``submission_expr``/``reference_expr``: the
    SymPy forms compared. ``label`` is always ``"symbolic, not Lean-verified"``.
    """

    equivalent: bool | None
    method: str
    reason: str
    submission_expr: str = ""
    reference_expr: str = ""
    elapsed_s: float = 0.0
    label: str = field(default=LABEL)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _short(x: Any, limit: int = 2_000) -> str:
    try:
        s = str(x)
    except ValueError:
        return "<a very large number>"
    return s if len(s) <= limit else s[:limit] + "…"


def one_line(text: str) -> str:
    return " ".join(str(text).split())[:300]


def precheck(submission: Any, formal_answer: Any, answer_type: Any) -> SymbolicVerdict | None:
    if not isinstance(submission, str) or not submission.strip():
        return SymbolicVerdict(None, "unparsed", "empty submission")
    if len(submission) > MAX_SUBMISSION_CHARS:
        return SymbolicVerdict(None, "unparsed", f"submission longer than {MAX_SUBMISSION_CHARS} characters")
    if not isinstance(formal_answer, str) or not isinstance(answer_type, str) or not formal_answer.strip():
        return SymbolicVerdict(None, "unparsed", "missing formal answer or answer type")
    if len(formal_answer) > MAX_REFERENCE_CHARS:
        return SymbolicVerdict(None, "unparsed", "formal answer too long")
    return None


def check_answer_local(submission: str, formal_answer: str, answer_type: str, *, intros: list | None = None,
                       timeout_s: float = 5.0) -> SymbolicVerdict:
    """:func:`~paperworks.tools.lean.symbolic.api.check_answer` in this process (used by the worker). Never raises."""
    start = time.monotonic()
    early = precheck(submission, formal_answer, answer_type)
    if early is not None:
        return early
    deadline = start + timeout_s
    try:
        verdict = _check(submission, formal_answer, answer_type, intros, deadline)
    except RecursionError:
        verdict = SymbolicVerdict(None, "unparsed", "term too deeply nested")
    except MemoryError:
        verdict = SymbolicVerdict(None, "undecided", "out of memory")
    except Exception as err:  # a verdict, never an exception, whatever SymPy raises
        verdict = SymbolicVerdict(None, "undecided", one_line(f"internal error: {type(err).__name__}: {err}"))
    verdict.elapsed_s = round(time.monotonic() - start, 4)
    return verdict


def _check(submission: str, formal_answer: str, answer_type: str, intros: list | None,
           deadline: float) -> SymbolicVerdict:
    from paperworks.tools.lean.symbolic.equiv import Comparer
    from paperworks.tools.lean.symbolic.funcs import TooLarge
    from paperworks.tools.lean.symbolic.ref import parse_reference, parse_submission

    try:
        ref = parse_reference(formal_answer, answer_type, intros, deadline)
    except TooLarge as err:
        return SymbolicVerdict(None, "unparsed", one_line(f"reference: {err}"))
    except (ValueError, TypeError, KeyError, IndexError, AssertionError) as err:
        return SymbolicVerdict(None, "unparsed", one_line(f"reference not read: {err}"))
    ref_text = " | ".join(_short(v) for v in ref.values)
    try:
        subs = [parse_submission(term, ref.ty, intros, deadline) for term in submission_terms(submission)]
    except TooLarge as err:
        return SymbolicVerdict(None, "unparsed", one_line(f"submission: {err}"), reference_expr=ref_text)
    except (ValueError, TypeError, KeyError, IndexError, AssertionError) as err:
        return SymbolicVerdict(None, "unparsed", one_line(f"submission not read: {err}"), reference_expr=ref_text)
    sub_text = " | ".join(_short(v) for v in subs)
    cmp = Comparer(deadline)
    try:
        outcome = _against(cmp, subs, ref)
    except TooLarge as err:
        return SymbolicVerdict(None, "undecided", one_line(f"comparison stopped: {err}"), sub_text, ref_text)
    method = outcome.method if outcome.equal is not None else "undecided"
    reason = outcome.reason if not ref.notes else f"{outcome.reason} ({'; '.join(ref.notes)})"
    return SymbolicVerdict(outcome.equal, method, one_line(reason), sub_text, ref_text)


def submission_terms(text: str) -> list[str]:
    """The value(s) a submission gives ``answer``: a plain term is itself; a proposition about ``answer``
    must be ``answer = T`` (or ``T = answer``) or a disjunction of such (``answer = 1 ∨ answer = -2``)."""
    from paperworks.tools.lean.submission import _WORD, Submission
    from paperworks.tools.lean.text import depth_profile

    if not _WORD.search(text):
        return [text]
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "∨" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        depth = depth_profile(ch, depth)
    parts.append(text[start:])
    terms = []
    for part in parts:
        part = part.strip()
        while part.startswith("(") and part.endswith(")") and _balanced(part[1:-1]):
            part = part[1:-1].strip()
        term = Submission.from_prop(part).term
        if term is None:
            raise ValueError(f"a proposition about answer must be `answer = TERM` or a disjunction of such, "
                             f"not {part.strip()[:80]!r}")
        terms.append(term)
    return terms


def _balanced(text: str) -> bool:
    """Brackets in ``text`` never close more than they opened and end balanced."""
    depth = 0
    for ch in text:
        depth += (ch in "([{⟨") - (ch in ")]}⟩")
        if depth < 0:
            return False
    return depth == 0


def _against(cmp: Any, subs: list[Any], ref: Any) -> Any:
    """Lean's reading: ``(answer = s₁ ∨ …) ↔ REF`` holds iff the submitted values and the reference's are
    the same set (a single value against two distinct alternatives is a miss, as RPE would find)."""
    from paperworks.tools.lean.symbolic.outcome import no, unknown, yes

    if ref.kind == "member":
        if len(subs) != 1:
            return unknown("several submitted values against a reference set: not decided here")
        from paperworks.tools.lean.symbolic.sets import member

        got = member(cmp, ref.values[0], subs[0], ref.ty)
        if got is None:
            return unknown("membership in the reference set undecided")
        return yes("symbolic", "lies in the reference set") if got else no("symbolic", "not in the reference set")
    if ref.kind not in ("value", "alternatives"):
        return unknown(f"reference kind {ref.kind}")
    table = [[cmp.compare(s, v, ref.ty) for v in ref.values] for s in subs]
    methods = {o.method for row in table for o in row if o.equal is not None} or {"symbolic"}
    method = "numeric" if "numeric" in methods else "symbolic"
    every_sub = [any(o.equal for o in row) for row in table]
    every_ref = [any(table[i][j].equal for i in range(len(subs))) for j in range(len(ref.values))]
    if all(every_sub) and all(every_ref):
        if len(subs) == 1 and len(ref.values) == 1:
            return table[0][0]
        return yes(method, f"the same {len(ref.values)} value(s) as the reference")
    missing_sub = [i for i, row in enumerate(table) if all(o.equal is False for o in row)]
    missing_ref = [j for j in range(len(ref.values)) if all(table[i][j].equal is False for i in range(len(subs)))]
    if missing_sub or missing_ref:
        if len(subs) == 1 and len(ref.values) == 1:
            return table[0][0]
        what = (f"submitted value {missing_sub[0] + 1} is no reference value" if missing_sub else
                f"reference value {missing_ref[0] + 1} of {len(ref.values)} is not submitted")
        return no(method, what)
    return unknown("undecided against the reference values")


# -- coverage ----------------------------------------------------------------------------------------
def coverage_row(row: dict[str, Any], timeout_s: float = 5.0) -> dict[str, Any]:
    """One row's coverage facts: reference parsed? informal parsed? agreement? (never raises)."""
    from paperworks.tools.lean.symbolic.funcs import time_limit

    start = time.monotonic()
    out: dict[str, Any] = {"reference": False, "informal": False, "agrees": None, "reason": ""}
    try:
        with time_limit(timeout_s * 2):
            out.update(_coverage_row(row, start + timeout_s))
    except Exception as err:  # one bad row must not stop the report
        out["reason"] = out["reason"] or one_line(f"{type(err).__name__}: {err}")[:120]
    out["seconds"] = round(time.monotonic() - start, 4)
    return out


def _coverage_row(row: dict[str, Any], deadline: float) -> dict[str, Any]:
    from paperworks.tools.lean.symbolic.latex import LatexUnparsed, compare_informal
    from paperworks.tools.lean.symbolic.ref import parse_reference

    out: dict[str, Any] = {}
    try:
        ref = parse_reference(row["formal_answer"], row["formal_answer_type"], row.get("intros"), deadline)
    except Exception as err:
        return {"reason": "reference: " + _reason_key(err)}
    out["reference"] = True
    out["reference_kind"] = ref.kind
    try:
        reader, _, outcome = compare_informal(str(row.get("informal_answer", "")), ref, deadline, row.get("intros"))
    except LatexUnparsed as err:
        out["reason"] = "informal: " + str(err)
        return out
    except Exception as err:
        out["reason"] = "informal: " + _reason_key(err)
        return out
    out["informal"] = True
    out["informal_reader"] = reader
    out["agrees"] = outcome.equal
    out["method"] = outcome.method
    if outcome.equal is not True:
        out["reason"] = ("disagrees: " if outcome.equal is False else "undecided: ") + outcome.reason[:100]
    return out


def _reason_key(err: Exception) -> str:
    """A short, countable reason: numbers and positions removed so that like failures group."""
    import re

    text = re.sub(r"\d+", "N", str(err))[:90]
    return f"{type(err).__name__}: {text}"
