"""Verify SPADA-Bench: every reference passes all its hidden tests and checks, every mutant fails one.

    python scripts/verify_spada_bench.py [--task ID ...] [--local] [--out PATH]

Each task's reference solution and mutants run through the CAD sandbox
(``paperworks.tools.cad.sandbox``: built in the candidate's sandbox, judged in a separate judge
sandbox) with the task's hidden tests and its engineering constraints (envelope, interference and
contact tolerances; the checks include one connected body per part). The script prints one row per task and writes
``benchmarks/results/spada_bench_verify.json`` (references passing, mutants killed, mutation score
= killed / total, per task). Exit status 1 if a reference fails or a mutant survives.

``--local`` runs the programs in this process with a small built-in harness instead of the sandbox
(only for the benchmark's own, trusted programs; used while developing the tasks).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "evals" / "spada_bench"
RESULTS = ROOT / "benchmarks" / "results" / "spada_bench_verify.json"


@dataclass
class Outcome:
    """One program checked against its task's hidden tests and checks."""

    program: str
    passed: bool
    failures: list[str] = field(default_factory=list)
    """Names of the failed tests and checks (or the stage that failed), each with its message."""
    seconds: float = 0.0


Checker = Callable[[str, str, dict[str, Any]], Outcome]


def load_rows(suite: Path = SUITE) -> list[dict[str, Any]]:
    """The suite's data rows, in file order."""
    lines = (suite / "data.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


# --- the sandbox ---------------------------------------------------------------------------------

def sandbox_checker(pool: Any = None) -> Checker:
    """A checker that runs each program in the CAD sandbox (through ``pool`` when given)."""
    from paperworks.tools.cad.sandbox import CheckOptions, check_program

    def check(code: str, tests: str, constraints: dict[str, Any]) -> Outcome:
        env = constraints.get("envelope")
        options = CheckOptions(interference_tol_mm3=constraints.get("interference_tol_mm3", 1e-3),
                               contact_tol_mm=constraints.get("contact_tol_mm", 0.05),
                               envelope=tuple(env) if env else None, renders=False, exports=False)
        run = pool.check if pool is not None else check_program
        result = run(code, tests, options=options)
        failures = [f"test {t.name}: {t.message}" for t in result.tests if not t.passed]
        failures += [f"check {c.name}: {c.message}" for c in result.checks if not c.passed]
        if not result.ok and not failures:
            failures.append(f"stage {result.stage}: {result.error}")
        min_parts = int(constraints.get("min_parts", 0))
        if result.ok and len(result.parts) < min_parts:
            failures.append(f"check min_parts: {len(result.parts)} parts, expected >= {min_parts}")
        return Outcome(program="", passed=bool(result.ok) and not failures, failures=failures)

    return check


# --- the local harness (trusted, benchmark-owned programs only) ------------------------------------

class _LocalCtx:
    """The test context of the program convention, computed in this process."""

    def __init__(self, params: dict[str, Any], parts: dict[str, Any], assembly: Any) -> None:
        self.params, self.parts, self.assembly = params, parts, assembly

    def bbox(self, name: str) -> tuple[float, float, float, float, float, float]:
        b = self.parts[name].BoundingBox()
        return (b.xmin, b.ymin, b.zmin, b.xmax, b.ymax, b.zmax)

    def volume(self, name: str) -> float:
        return float(self.parts[name].Volume())

    def interference(self, a: str, b: str) -> float:
        # solids only: touching parts intersect in faces, whose Volume() is not zero in OCC
        return float(sum(s.Volume() for s in self.parts[a].intersect(self.parts[b]).Solids()))

    def distance(self, a: str, b: str) -> float:
        return float(self.parts[a].distance(self.parts[b]))

    def center(self, name: str) -> tuple[float, float, float]:
        c = self.parts[name].Center()
        return (c.x, c.y, c.z)

    def is_valid(self, name: str) -> bool:
        return bool(self.parts[name].isValid())


def _local_parts(assembly: Any) -> dict[str, Any]:
    """The assembly's top-level children as located shapes, by name."""
    import cadquery as cq

    parts: dict[str, Any] = {}
    for child in assembly.children:
        obj = child.obj
        if isinstance(obj, cq.Workplane):
            shapes = [v for v in obj.vals() if isinstance(v, cq.Shape)]
            obj = shapes[0] if len(shapes) == 1 else cq.Compound.makeCompound(shapes)
        parts[child.name] = obj.moved(child.loc)
    return parts


def _local_checks(ctx: _LocalCtx, constraints: dict[str, Any]) -> list[str]:
    failures = [f"check valid: {n} is not a valid solid" for n in ctx.parts if not ctx.is_valid(n)]
    names = list(ctx.parts)
    tol = constraints.get("interference_tol_mm3", 1e-3)
    touch = {n: {n} for n in names}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            overlap = ctx.interference(a, b)
            if overlap > tol:
                failures.append(f"check interference: {a} and {b} overlap by {overlap:.3f} mm3")
            if ctx.distance(a, b) <= constraints.get("contact_tol_mm", 0.05):
                touch[a].add(b)
                touch[b].add(a)
    seen, stack = {names[0]}, [names[0]]
    while stack:
        for other in touch[stack.pop()] - seen:
            seen.add(other)
            stack.append(other)
    failures += [f"check floating: {n} touches no other part" for n in names if n not in seen]
    env = constraints.get("envelope")
    if env:
        boxes = [ctx.bbox(n) for n in names]
        size = [max(b[i + 3] for b in boxes) - min(b[i] for b in boxes) for i in range(3)]
        if any(s > e + 1e-6 for s, e in zip(size, env, strict=True)):
            failures.append(f"check envelope: size {[round(s, 2) for s in size]} exceeds {env}")
    if len(names) < int(constraints.get("min_parts", 0)):
        failures.append(f"check min_parts: {len(names)} parts")
    return failures


def local_checker(code: str, tests: str, constraints: dict[str, Any]) -> Outcome:
    """Run a trusted program and its tests in this process (development only)."""
    program: dict[str, Any] = {"__name__": "spada_program"}
    try:
        exec(compile(code, "program.py", "exec"), program)
        params = dict(program["PARAMS"])
        assembly = program["build"](params)
        ctx = _LocalCtx(params, _local_parts(assembly), assembly)
    except Exception as exc:  # a program that does not build fails as a whole
        return Outcome(program="", passed=False, failures=[f"stage build: {type(exc).__name__}: {exc}"])
    failures = _local_checks(ctx, constraints)
    suite: dict[str, Any] = {"__name__": "spada_tests"}
    exec(compile(tests, "hidden_tests.py", "exec"), suite)
    for name, fn in suite.items():
        if name.startswith("test_") and callable(fn):
            try:
                fn(ctx)
            except Exception as exc:  # any exception fails that test
                failures.append(f"test {name}: {type(exc).__name__}: {exc}")
    return Outcome(program="", passed=not failures, failures=failures)


# --- verification ---------------------------------------------------------------------------------

def verify_task(row: dict[str, Any], check: Checker, suite: Path = SUITE) -> dict[str, Any]:
    """Check one task's reference and mutants; the task's entry of the results file."""
    tests = (suite / row["hidden_tests"]).read_text(encoding="utf-8")
    outcomes: list[Outcome] = []
    for rel in [row["reference"], *row["mutants"]]:
        start = time.perf_counter()
        outcome = check((suite / rel).read_text(encoding="utf-8"), tests, row["constraints"])
        outcome.program, outcome.seconds = rel, round(time.perf_counter() - start, 2)
        outcomes.append(outcome)
    reference, mutants = outcomes[0], outcomes[1:]
    killed = sum(not m.passed for m in mutants)
    return {"id": row["id"], "category": row["category"], "parts": row["parts"],
            "reference_passes": reference.passed, "mutants": len(mutants), "mutants_killed": killed,
            "mutation_score": killed / len(mutants) if mutants else 0.0,
            "programs": [asdict(o) for o in outcomes]}


def summarize(tasks: list[dict[str, Any]]) -> dict[str, Any]:
    """Suite-level figures from the per-task entries."""
    total = sum(t["mutants"] for t in tasks)
    killed = sum(t["mutants_killed"] for t in tasks)
    return {"tasks": len(tasks), "references_passing": sum(t["reference_passes"] for t in tasks),
            "mutants": total, "mutants_killed": killed, "mutation_score": killed / total if total else 0.0}


def _pool() -> Any:
    """The sandbox's warm worker pool, if it offers one (None: one fresh process per program)."""
    from paperworks.tools.cad import sandbox

    factory = getattr(sandbox, "WorkerPool", None)
    return factory(1) if factory is not None else None


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", action="append", help="only this task id (repeatable)")
    parser.add_argument("--local", action="store_true", help="trusted in-process harness, not the sandbox")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results JSON path")
    args = parser.parse_args(argv)
    rows = [r for r in load_rows() if not args.task or r["id"] in args.task]
    pool = None if args.local else _pool()
    check = local_checker if args.local else sandbox_checker(pool)
    tasks: list[dict[str, Any]] = []
    start = time.perf_counter()
    try:
        print(f"{'task':<22} {'parts':>5} {'reference':>9} {'killed':>8}  surviving / failing")
        for row in rows:
            entry = verify_task(row, check)
            tasks.append(entry)
            bad = [p["program"] for p in entry["programs"][1:] if p["passed"]]
            if not entry["reference_passes"]:
                bad.insert(0, "reference: " + "; ".join(entry["programs"][0]["failures"])[:200])
            print(f"{entry['id']:<22} {entry['parts']:>5} {'pass' if entry['reference_passes'] else 'FAIL':>9} "
                  f"{entry['mutants_killed']:>3}/{entry['mutants']:<4}  {', '.join(bad)}", flush=True)
    finally:
        if pool is not None and hasattr(pool, "close"):
            pool.close()
    summary = summarize(tasks)
    report = {**summary, "harness": "local" if args.local else "sandbox",
              "seconds": round(time.perf_counter() - start, 1), "cores": os.cpu_count(),
              "python": platform.python_version(), "cadquery": _version("cadquery"), "per_task": tasks}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"references passing {summary['references_passing']}/{summary['tasks']}, mutants killed "
          f"{summary['mutants_killed']}/{summary['mutants']}, mutation score {summary['mutation_score']:.3f} "
          f"-> {args.out}")
    ok = summary["references_passing"] == summary["tasks"] and summary["mutants_killed"] == summary["mutants"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
