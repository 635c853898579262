"""The ``spada`` scorer: the agent's final program against the task's hidden tests and engineering
constraints (the contract the agent never sees), run in the CAD sandbox. The program only builds its
geometry there; the hidden tests and checks run in a separate judge sandbox that never runs the
program, and the score comes from the judge's verdict alone (nothing the program prints or writes
is read as a result).

Score: passed when every hidden test and check passes (the assembly pass rate). Sub-metrics in
``details["metrics"]`` (averaged by the eval as ``spada/<name>``): ``invalid`` (did not compile or
build, its geometry did not load, or a part is not a valid solid), ``constraint_pass`` (share of
hidden tests and checks passed), ``iterations`` (sandbox runs the agent used), ``compiled`` (the program
got past Python's compiler: a program can only claim a later failure, never an earlier success) and
``loaded`` (the judge sandbox loaded its parts' geometry: the judge's own account). The last two grade
how far an unsolved program got; ``paperworks train --shaping compiled=W`` may add them to the reward
as declared shaping terms.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from paperworks.core.scoring import Sample, Score

INVALID_STAGES = {"compile", "build", "export", "load", "timeout", "killed", "sandbox"}
JUDGED_STAGES = {"checks", "done", "tests"}
"""Stages past the judge's loading of the geometry."""
METRICS = ("invalid", "constraint_pass", "iterations", "compiled", "loaded")


def progress(result: dict[str, Any]) -> dict[str, float]:
    """``compiled`` and ``loaded`` of a sandbox result (see the module docstring)."""
    stage, error = str(result.get("stage") or ""), str(result.get("error") or "")
    compiled = not (stage == "compile" or (stage in {"timeout", "killed"} and error.endswith("during compile")))
    loaded = stage in JUDGED_STAGES and bool(result.get("parts"))
    return {"compiled": float(compiled), "loaded": float(loaded)}


def suite_folder(sample: Sample) -> Path:
    """The suite folder, from the sample's ``path:line`` source."""
    return Path(sample.source.rsplit(":", 1)[0]).parent


async def score_spada(sample: Sample, output: Any, answer: str, ctx: Any) -> Score:
    """Run the agent's program with the hidden tests and checks; see the module docstring."""
    from paperworks.workflows.spada.sandbox import run_sandbox

    code = output.get("code", "") if isinstance(output, dict) else ""
    iterations = int(output.get("iterations", 0)) if isinstance(output, dict) else 0
    hidden = (suite_folder(sample) / str(sample.target)).read_text(encoding="utf-8")
    constraints = dict(sample.metadata.get("constraints") or {})
    options: dict[str, Any] = {}
    if constraints.get("envelope"):
        options["envelope"] = tuple(float(v) for v in constraints["envelope"])
    for key in ("interference_tol_mm3", "contact_tol_mm"):
        if key in constraints:
            options[key] = float(constraints[key])
    if not code.strip():
        return Score(0.0, False, answer, "no program was produced",
                     details={"metrics": {"invalid": 1.0, "constraint_pass": 0.0, "iterations": float(iterations),
                                          "compiled": 0.0, "loaded": 0.0}})
    with tempfile.TemporaryDirectory(prefix="spada-score-") as tmp:
        result = await asyncio.to_thread(run_sandbox, code, hidden, Path(tmp), renders=False, options=options)
    tests, checks = result.get("tests", []), list(result.get("checks", []))
    if constraints.get("min_parts") and result.get("stage") not in INVALID_STAGES:
        n = len(result.get("parts") or [])
        need = int(constraints["min_parts"])
        checks.append({"name": "min_parts", "passed": n >= need, "message": f"{n} parts, at least {need} required"})
    items = [*tests, *checks]
    passed = sum(1 for i in items if i.get("passed"))
    invalid = result.get("stage") in INVALID_STAGES or any(
        not c.get("passed") for c in checks if str(c.get("name", "")).startswith("valid"))
    ok = bool(result.get("ok")) and all(i.get("passed") for i in items)
    failures = [f"{i.get('name')}: {i.get('message')}" for i in items if not i.get("passed")]
    explanation = "all hidden tests and checks pass" if ok else (result.get("error") or "; ".join(failures[:5]))
    return Score(
        1.0 if ok else 0.0, ok, answer, explanation,
        details={
            "metrics": {"invalid": float(invalid), "constraint_pass": passed / len(items) if items else 0.0,
                        "iterations": float(iterations), **progress(result)},
            "stage": result.get("stage"),
            "tests": [{k: t.get(k) for k in ("name", "passed", "message")} for t in tests],
            "checks": [{k: c.get(k) for k in ("name", "passed", "message")} for c in checks],
        },
    )


score_spada.metrics = METRICS  # type: ignore[attr-defined]
