"""``spada``: SPADA, a self-testing parametric assembly design agent, as a LangGraph graph.

    START → write_spec → write_code → write_tests → run_checks ─(all pass)→ finish → END
                                                      ↑   └─(failures, budget left)→ repair ─┐
                                                      └──────────────────────────────────────┘
                                                          (budget spent)→ finish

The program and its tests run only in the CAD sandbox (``paperworks.tools.cad``): the program only
builds its geometry there, and a separate judge sandbox runs the tests on that geometry, the physical
checks (valid solids, one body per part, interference, floating parts, envelope) and the renders;
its verdict, failures and renders feed the repair step. Every iteration's code, tests, STEP/STL, renders and
results stay in the run's artifact folder, with ``report.json`` summarising them.
"""

from __future__ import annotations

import asyncio
import json
import operator
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any, TypedDict

from pydantic import BaseModel, ConfigDict, Field

from paperworks.agents.spada import prompts
from paperworks.agents.spada.parse import extract_code, extract_json, normalise_spec
from paperworks.core.artifacts import ArtifactStore
from paperworks.core.budget import Usage, current_budget
from paperworks.core.errors import UserError
from paperworks.workflows.context import RunContext
from paperworks.workflows.registry import WorkflowSpec
from paperworks.workflows.spada.sandbox import run_sandbox
from paperworks.workflows.spada.score import score_spada


class SpadaInput(BaseModel):
    """Input of the ``spada`` workflow."""

    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not silently dropped

    request: str = Field(min_length=1, description="The assembly to design, in words.")


class SpadaConfig(BaseModel):
    """Settings of the ``spada`` workflow (``-c key=value``)."""

    max_iterations: int = Field(4, ge=1, le=20, description="Sandbox runs (the first plus repairs).")
    write_tests: bool = Field(True, description="Let the model write its own deterministic tests.")
    renders: bool = Field(True, description="Render PNG views each iteration (feedback and people).")
    sandbox_wall_s: float = Field(60, gt=0, le=3600, allow_inf_nan=False,
                                  description="Wall-clock seconds for one sandbox run (at most an hour).")
    fcgraft_references: int = Field(0, ge=0, le=8, description=(
        "FCGraft: graft this many verified SPADA-Bench reference programs (cached KV segments) into the "
        "first code prompt; needs the embedded model (runs on its torch engine). 0: off."))


_grafter: Any = None
_grafter_lock = threading.Lock()


def _graft_code(request: str, spec: dict[str, Any], k: int, max_tokens: int) -> tuple[str, dict[str, Any]]:
    """The first program through FCGraft on the embedded model's torch engine (one shared library)."""
    global _grafter
    from paperworks.backends.fcgraft.cad import CadGrafter
    from paperworks.models.local import get_local_model

    with _grafter_lock:
        if _grafter is None:
            local = get_local_model("smollm2-135m-torch")
            _grafter = CadGrafter(local.model, local.tokenizer, local.name)
        reply = _grafter.generate(request, spec, prompts.CONVENTION, k=k, max_new_tokens=max_tokens)
    return reply.text, asdict(reply) | {"text": None}


class SpadaState(TypedDict, total=False):
    request: str
    spec: dict[str, Any]
    code: str
    tests: str
    iteration: int
    history: Annotated[list[dict[str, Any]], operator.add]
    last: dict[str, Any]
    status: str


def _store(ctx: RunContext) -> ArtifactStore:
    store = ctx.artifacts
    if store is None:  # outside a recorded run: a throwaway folder
        import tempfile

        store = ArtifactStore(Path(tempfile.mkdtemp(prefix="spada-")))
    return store


def summarise(result: dict[str, Any], iteration: int) -> dict[str, Any]:
    """One line of the iteration report."""
    tests, checks = result.get("tests", []), result.get("checks", [])
    return {
        "iteration": iteration, "ok": bool(result.get("ok")), "stage": result.get("stage"),
        "error": result.get("error"),
        "tests_passed": sum(1 for t in tests if t.get("passed")), "tests_total": len(tests),
        "checks_passed": sum(1 for c in checks if c.get("passed")), "checks_total": len(checks),
        "failures": prompts.feedback_text(result).splitlines()[:20] if not result.get("ok") else [],
        "artifacts": result.get("artifacts", {}),
    }


def build_graph(config: SpadaConfig | None = None) -> Any:
    """The uncompiled SPADA graph."""
    from langgraph.graph import END, START, StateGraph
    from langgraph.runtime import Runtime

    cfg = config or SpadaConfig.model_validate({})

    async def ask(ctx: RunContext, messages: list[dict[str, Any]]) -> str:
        gen = {"seed": ctx.seed, "max_tokens": 2048, **ctx.generation}
        return (await ctx.get_model().generate(messages, stream=ctx.stream, **gen)).text

    async def write_spec(state: SpadaState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        if cfg.fcgraft_references and not runtime.context.model.startswith("local/smollm2-135m"):
            raise UserError(f"spada: fcgraft_references needs the embedded model (local/smollm2-135m), "
                            f"not {runtime.context.model}: grafting works on the model's own KV cache")
        reply = await ask(runtime.context, prompts.spec_messages(state["request"]))
        spec = normalise_spec(extract_json(reply), state["request"])
        _store(runtime.context).write_text("spec.json", json.dumps(spec, indent=2))
        return {"spec": spec, "iteration": 0}

    async def write_code(state: SpadaState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        if cfg.fcgraft_references:
            budget = current_budget.get()
            if budget is not None:  # the grafted call bypasses the gateway: its limits and usage are kept here
                budget.check()
            text, info = await asyncio.to_thread(_graft_code, state["request"], state.get("spec", {}),
                                                 cfg.fcgraft_references, int(ctx.generation.get("max_tokens", 2048)))
            if budget is not None:  # prompt tokens: those reused from grafted segments and those prefilled
                budget.record(Usage(prompt_tokens=int(info["reused_tokens"]) + int(info["prefilled_tokens"]),
                                    completion_tokens=int(info["decoded_tokens"]), calls=1))
            _store(ctx).write_text("fcgraft.json", json.dumps(info, indent=2))
            return {"code": extract_code(text)}
        reply = await ask(ctx, prompts.code_messages(state["request"], state.get("spec", {})))
        return {"code": extract_code(reply)}

    async def write_tests(state: SpadaState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        if not cfg.write_tests:
            return {"tests": ""}
        reply = await ask(runtime.context, prompts.tests_messages(state["request"], state.get("spec", {}),
                                                                  state["code"]))
        tests = extract_code(reply)
        return {"tests": tests if "def test_" in tests else ""}

    async def run_checks(state: SpadaState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        store = _store(runtime.context)
        n = state.get("iteration", 0) + 1
        store.write_text(f"iter_{n}/assembly.py", state["code"])
        if state.get("tests"):
            store.write_text(f"iter_{n}/tests.py", state["tests"])
        result = await asyncio.to_thread(run_sandbox, state["code"], state.get("tests") or None,
                                         store.root / f"iter_{n}", wall_s=cfg.sandbox_wall_s, renders=cfg.renders)
        store.write_text(f"iter_{n}/result.json", json.dumps(result, indent=2, default=str))
        return {"iteration": n, "last": summarise(result, n), "history": [summarise(result, n)]}

    async def repair(state: SpadaState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        last = state.get("last", {})
        root = _store(ctx).root
        renders = [Path(p) if Path(p).is_absolute() else root / p
                   for k, p in (last.get("artifacts") or {}).items() if k.startswith("render")]
        vision = _supports_vision(ctx.model)
        feedback = "\n".join(last.get("failures", [])) or str(last.get("error"))
        reply = await ask(ctx, prompts.repair_messages(state["request"], state["code"], feedback,
                                                       [p for p in renders if p.is_file()], vision))
        return {"code": extract_code(reply)}

    def finish(state: SpadaState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        store = _store(runtime.context)
        store.write_text("assembly.py", state.get("code", ""))
        store.write_text("tests.py", state.get("tests", ""))
        ok = bool(state.get("last", {}).get("ok"))
        report = {"request": state.get("request"), "ok": ok, "iterations": state.get("iteration", 0),
                  "history": state.get("history", [])}
        store.write_text("report.json", json.dumps(report, indent=2, default=str))
        return {"status": "passed" if ok else "budget_spent"}

    def route(state: SpadaState) -> str:
        if state.get("last", {}).get("ok") or state.get("iteration", 0) >= cfg.max_iterations:
            return "finish"
        return "repair"

    graph = StateGraph(SpadaState, context_schema=RunContext)
    for name, fn in [("write_spec", write_spec), ("write_code", write_code), ("write_tests", write_tests),
                     ("run_checks", run_checks), ("repair", repair), ("finish", finish)]:
        graph.add_node(name, fn)
    graph.add_edge(START, "write_spec")
    graph.add_edge("write_spec", "write_code")
    graph.add_edge("write_code", "write_tests")
    graph.add_edge("write_tests", "run_checks")
    graph.add_conditional_edges("run_checks", route, ["repair", "finish"])
    graph.add_edge("repair", "run_checks")
    graph.add_edge("finish", END)
    return graph


def _supports_vision(model: str) -> bool:
    try:
        from paperworks.models.gateway import supports_vision

        return supports_vision(model)
    except Exception:
        return False


def edit(source: Path, overrides: dict[str, Any], target: Path) -> dict[str, Any]:
    """Rebuild a finished SPADA run's assembly with new parameter values, rerun its tests and checks,
    and render it into ``target``'s artifacts — no model call."""
    from paperworks.core.errors import UserError

    src = ArtifactStore(source / "artifacts")
    code_path = src.root / "assembly.py"
    if not code_path.is_file():
        raise UserError(f"{source} has no artifacts/assembly.py: only a finished spada run can be edited")
    code = code_path.read_text(encoding="utf-8")
    tests = (src.root / "tests.py").read_text(encoding="utf-8") if (src.root / "tests.py").is_file() else ""
    store = ArtifactStore(target / "artifacts")
    store.write_text("assembly.py", code)
    store.write_text("tests.py", tests)
    result = run_sandbox(code, tests or None, store.root / "edit", params=overrides)
    store.write_text("edit/result.json", json.dumps(result, indent=2, default=str))
    unknown = sorted(set(overrides) - set(result.get("params") or {}))
    summary = summarise(result, 1)
    return {**summary, "params": result.get("params", {}), "overrides": overrides, "unknown_params": unknown,
            "answer": "assembly.py"}


def output(state: dict[str, Any]) -> dict[str, Any]:
    """The final program and how it fared."""
    last = state.get("last", {})
    return {"code_path": "assembly.py", "code": state.get("code", ""), "tests": state.get("tests", ""),
            "ok": bool(last.get("ok")), "iterations": state.get("iteration", 0), "status": state.get("status", ""),
            "tests_passed": last.get("tests_passed", 0), "tests_total": last.get("tests_total", 0),
            "checks_passed": last.get("checks_passed", 0), "checks_total": last.get("checks_total", 0),
            "answer": _verdict(last, state.get("iteration", 0))}


def _verdict(last: dict[str, Any], iterations: int) -> str:
    """One line for people: did the design pass, and what failed."""
    head = "passes" if last.get("ok") else "does not pass"
    text = (f"the assembly {head} after {iterations} iteration(s): tests {last.get('tests_passed', 0)}/"
            f"{last.get('tests_total', 0)}, checks {last.get('checks_passed', 0)}/{last.get('checks_total', 0)}")
    if last.get("error"):
        text += f"; {last.get('stage')} error: {last['error']}"
    return text + " (artifacts/assembly.py, artifacts/report.json)"


def make_state(inp: SpadaInput) -> dict[str, Any]:
    """Initial state for a request."""
    return {"request": inp.request, "iteration": 0, "history": []}


SPEC = WorkflowSpec(
    name="spada",
    description="SPADA: CadQuery assembly code + its own tests, compile-test-repair loop with renders.",
    build_graph=build_graph,
    input_model=SpadaInput,
    config_model=SpadaConfig,
    make_state=make_state,
    output=output,
    status=lambda state: "succeeded",
    scorers={"spada": score_spada},
    edit=edit,
)
