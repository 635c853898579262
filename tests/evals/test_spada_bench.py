"""SPADA-Bench: the suite loads and is complete (fast); every reference passes and every mutant is
killed in the CAD sandbox (slow)."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from paperworks.eval.suite import load_suite

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "evals" / "spada_bench"


def _verify_module() -> ModuleType:
    """``scripts/verify_spada_bench.py`` as a module (scripts/ is not a package)."""
    path = ROOT / "scripts" / "verify_spada_bench.py"
    spec = importlib.util.spec_from_file_location("verify_spada_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def _functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_suite_loads_with_complete_rows() -> None:
    suite = load_suite("spada_bench")
    assert suite.spec.workflow == "spada" and suite.spec.answer_field == "code_path"
    assert len(suite.samples) >= 30
    categories = set()
    for sample in suite.samples:
        meta = sample.metadata
        assert (SUITE / str(sample.target)).is_file(), sample.id
        assert (SUITE / meta["reference"]).is_file(), sample.id
        assert len(meta["mutants"]) >= 3, sample.id
        assert all((SUITE / m).is_file() for m in meta["mutants"]), sample.id
        assert meta["constraints"]["min_parts"] == meta["parts"] >= 2, sample.id
        assert len(meta["constraints"]["envelope"]) == 3, sample.id
        assert sample.input["request"] and meta["request_abstract"], sample.id
        categories.add(meta["category"])
    assert max(s.metadata["parts"] for s in suite.samples) >= 6
    assert len(categories) >= 8


def test_programs_follow_the_conventions() -> None:
    """References and mutants define PARAMS and build(); hidden tests define test_* functions."""
    for sample in load_suite("spada_bench").samples:
        for rel in [sample.metadata["reference"], *sample.metadata["mutants"]]:
            source = (SUITE / rel).read_text(encoding="utf-8")
            assert "build" in _functions(SUITE / rel) and "PARAMS = {" in source, rel
        tests = [n for n in _functions(SUITE / str(sample.target)) if n.startswith("test_")]
        assert len(tests) >= 3, sample.id


def _required_names(path: Path) -> set[str]:
    """Part names the hidden tests require: string constants in ``test_parts_named`` and in module-level
    constants (``BOLTS = [...]``), leaving out the prefixes given to ``_named``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots = [n for n in tree.body if isinstance(n, ast.Assign | ast.FunctionDef)
             and (isinstance(n, ast.Assign) or n.name == "test_parts_named")]
    prefixes = {id(arg) for root in roots for call in ast.walk(root) if isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name) and call.func.id == "_named" for arg in call.args}
    return {node.value for root in roots for node in ast.walk(root)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prefixes
            and re.fullmatch(r"[a-z]+(_[a-z0-9]+)*", node.value)}


def _stated(name: str, request: str) -> bool:
    """``name`` is in backticks in the request, or inside a stated range such as `bolt_1` .. `bolt_4`."""
    if f"`{name}`" in request:
        return True
    numbered = re.fullmatch(r"(.+)_(\d+)", name)
    if numbered is None:
        return False
    stated = [int(n) for n in re.findall(rf"`{re.escape(numbered[1])}_(\d+)`", request)]
    return bool(stated) and min(stated) <= int(numbered[2]) <= max(stated)


def test_part_names_are_in_the_request() -> None:
    """Every part name the hidden tests require is stated (in backticks) in the detailed request."""
    for sample in load_suite("spada_bench").samples:
        names = _required_names(SUITE / str(sample.target))
        assert len(names) >= 2, sample.id
        for name in names:
            assert _stated(name, sample.input["request"]), f"{sample.id}: the request does not name part {name!r}"


def test_abstract_variant_reuses_the_rows() -> None:
    detailed, abstract = load_suite("spada_bench"), load_suite("spada_bench_abstract")
    assert [s.id for s in abstract.samples] == [s.id for s in detailed.samples]
    assert [s.input["request"] for s in abstract.samples] == \
        [s.metadata["request_abstract"] for s in detailed.samples]


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_references_pass_and_mutants_fail_in_the_sandbox() -> None:
    pytest.importorskip("cadquery")
    from paperworks.tools.cad.sandbox import WorkerPool

    verify = _verify_module()
    with WorkerPool(1) as pool:
        check = verify.sandbox_checker(pool)
        tasks = [verify.verify_task(row, check) for row in verify.load_rows()]
    failing = [t["id"] for t in tasks if not t["reference_passes"]]
    surviving = [p["program"] for t in tasks for p in t["programs"][1:] if p["passed"]]
    summary = verify.summarize(tasks)
    assert summary["tasks"] >= 30
    assert not failing, f"references failing: {failing}"
    assert not surviving, f"mutants surviving: {surviving}"
    assert summary["mutation_score"] == 1.0
