"""A symbolic (non-Lean) answer checker for formal problem solving (D-FPS / FPS benchmarks).

Lean's RPE would check ``(answer = submission) ↔ formal_answer``; with no Lean available here we
judge with SymPy instead, and every verdict says so (``label``). Three layers, each importing only
those below it (and ``funcs``, the SymPy base under elaborate and compare):

1. parse: ``lex`` → ``syntax`` (the tree) → ``parse`` (one Pratt parser for Lean's pp.explicit output,
   the benchmark's ``formal_answer``, and ordinary surface syntax, the solver's term) → ``leantypes``.
2. elaborate: ``values`` → ``elab`` (the core) → ``handlers`` → ``constants`` → ``forms`` (the
   ``Elaborator``) → ``ref``: terms become SymPy values at the answer type, following Lean's typing
   rules that change values (ℕ subtraction and division, ℤ division, numerals typed by context, ``^``
   exponents typed on their own); ``ref`` reads the reference out of ``@Eq T answer X`` (and the other
   shapes it lists) and a submission.
3. compare: ``outcome`` → ``sampling`` → ``sets`` → ``equiv`` → ``latex``: equivalence, symbolic first,
   then seeded numeric sampling; ``latex`` reads informal answers for the coverage report.

Entry: ``local`` (one check or one row's coverage in this process) → ``client`` (the worker process's
client, over ``wire``) → ``api`` (:func:`check_answer`, :func:`coverage`); ``worker`` is the process itself.

Safety: inputs are bounded in length and nesting, exact powers and factorials in size, every step
by a deadline, and :func:`check_answer` runs the work in a separate worker process that is killed
when ``timeout_s`` passes, so no submission can hang or crash the caller. Failures never raise:
they come back as ``equivalent=None`` with a one-line reason.
"""

from paperworks.tools.lean.symbolic.api import check_answer, coverage, shutdown_worker
from paperworks.tools.lean.symbolic.local import (
    LABEL,
    MAX_REFERENCE_CHARS,
    MAX_SUBMISSION_CHARS,
    SymbolicVerdict,
    check_answer_local,
    coverage_row,
    submission_terms,
)

__all__ = ["LABEL", "MAX_REFERENCE_CHARS", "MAX_SUBMISSION_CHARS", "SymbolicVerdict", "check_answer",
           "check_answer_local", "coverage", "coverage_row", "shutdown_worker", "submission_terms"]
