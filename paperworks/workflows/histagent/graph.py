"""``histagent``: a history research agent (HistAgent, ICML 2026) as a LangGraph graph.

    START → read_question → write_plan → manage ─(final_answer / text)→ reformulate → END
                                           │ └─(tool calls, budget spent)→ stop_at_limit → END
                                           └─(tool calls)→ dispatch ─(ask_<x>)→ ask_<x> (subgraph) → collect
                                                             │ (calculate, unknown: observation)       │
                                              ← manage or revise_plan (every k turns) ←────────────────┘

The manager plans, delegates sub-tasks to specialist subgraphs (archive, OCR, translation, file reader,
image analyst, speech; each with its own tools and step budget), revises its plan every ``replan_every`` turns
and ends with ``final_answer`` (answer + evidence: document, page, line, text). Every tool call goes
through ``execute_call`` (a ``tool_call`` event) and into the output's ``tools_used``.
"""

from __future__ import annotations

from typing import Any

from paperworks.agents.histagent import parse, prompts
from paperworks.agents.react import tool_message
from paperworks.models.types import Message, ToolCall
from paperworks.workflows.context import RunContext, base_dir
from paperworks.workflows.histagent.score import evidence
from paperworks.workflows.histagent.state import HistConfig, HistInput, HistState, turn_state
from paperworks.workflows.registry import WorkflowSpec


def build_graph(config: HistConfig | None = None) -> Any:
    """The uncompiled HistAgent graph."""
    from langgraph.graph import END, START, StateGraph
    from langgraph.runtime import Runtime

    from paperworks.tools.registry import ToolContext, execute_call, get_tools
    from paperworks.workflows.histagent import tools as ht
    from paperworks.workflows.histagent.specialist import build_specialist

    cfg = config or HistConfig.model_validate({})
    team = ht.specialists(cfg.specialists)
    direct = {t.name: t for t in get_tools(["calculate"])}
    schemas = [parse.ask_schema(s.name, prompts.DUTIES.get(s.name, "")) for s in team]
    schemas += [t.schema() for t in direct.values()] + [parse.final_schema()]
    team_text = ", ".join(f"{s.name} ({', '.join(s.tools)})" for s in team)

    async def ask_model(runtime: Runtime[RunContext], messages: list[Message], tools: Any = None) -> Any:
        ctx = runtime.context
        return await ctx.get_model().generate(messages, tools, stream=False, **{"seed": ctx.seed, **ctx.generation})

    def read_question(state: HistState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        files = ht.resolve_paths(state.get("attachments", []), base_dir(runtime.context.run_dir))
        shown = [f + ("" if _exists(f) else " (missing)") for f in files]
        text = prompts.brief(state.get("question", ""), shown, state.get("evidence", []))
        return {"attachments": files, "messages": [*state.get("messages", []), {"role": "user", "content": text}]}

    async def write_plan(state: HistState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        reply = await ask_model(runtime, [
            {"role": "system", "content": prompts.PLANNER.format(specialists=team_text)},
            {"role": "user", "content": prompts.WRITE_PLAN.format(brief=state["messages"][-1]["content"])}])
        return {"plan": reply.text.strip() or "(no plan)"}

    async def revise_plan(state: HistState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        reports = "\n".join(f"- {r['specialist']}: {r['report'][:800]}" for r in state.get("reports", []))
        reply = await ask_model(runtime, [
            {"role": "system", "content": prompts.PLANNER.format(specialists=team_text)},
            {"role": "user", "content": prompts.REVISE_PLAN.format(
                brief=prompts.brief(state.get("question", ""), state.get("attachments", []),
                                    state.get("evidence", [])),
                plan=state.get("plan", ""), reports=reports or "(none yet)")}])
        return {"plan": reply.text.strip() or state.get("plan", ""), "since_plan": 0,
                "revisions": state.get("revisions", 0) + 1}

    async def manage(state: HistState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        step = state.get("steps", 0) + 1
        system = prompts.MANAGER.format(step=step, budget=cfg.max_steps, plan=state.get("plan", ""))
        reply = await ask_model(runtime, [{"role": "system", "content": system}, *state.get("messages", [])], schemas)
        message = reply.to_message()
        update: dict[str, Any] = {"steps": step, "since_plan": state.get("since_plan", 0) + 1}
        final = next((c for c in reply.tool_calls if c.name == parse.FINAL), None)
        if final is None and reply.tool_calls:
            return {**update, "messages": [*state.get("messages", []), message],
                    "queue": [c.to_openai() for c in reply.tool_calls]}
        answer, cited = parse.parse_final(final.arguments) if final else (reply.text.strip(), [])
        closing = [tool_message(c.id, c.name, "answer recorded" if c is final else "skipped: final answer given")
                   for c in reply.tool_calls]
        evidence = _merge(state.get("evidence", []), cited or ht.sources(state.get("tools_used", [])))
        return {**update, "messages": [*state.get("messages", []), message, *closing], "queue": [],
                "draft": answer, "evidence": evidence, "status": "answering"}

    async def dispatch(state: HistState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        call = ToolCall.from_openai(state["queue"][0])
        name = call.name.removeprefix(parse.ASK_PREFIX)
        if call.name.startswith(parse.ASK_PREFIX) and any(s.name == name for s in team):
            return {"active": {"id": call.id, "specialist": name, "task": str(call.arguments.get("task", ""))},
                    "sub_messages": [], "sub_steps": 0, "sub_report": ""}
        observation, ok = await execute_call(call, direct, ToolContext(artifacts=runtime.context.artifacts))
        return {"messages": [*state.get("messages", []), tool_message(call.id, call.name, observation)],
                "queue": state["queue"][1:], "active": None,
                "tools_used": [*state.get("tools_used", []), ht.record_use("manager", call, observation, ok)]}

    def collect(state: HistState) -> dict[str, Any]:
        active = state.get("active") or {}
        report = state.get("sub_report", "") or "(no report)"
        content = f"report from the {active.get('specialist', '?')} specialist: {ht.clip(report, cfg.report_chars)}"
        return {"messages": [*state.get("messages", []), tool_message(active.get("id", ""), "ask_" + str(
                    active.get("specialist")), content)],
                "reports": [*state.get("reports", []), {"specialist": active.get("specialist"),
                                                         "task": active.get("task"), "report": report}],
                "queue": state.get("queue", [])[1:], "active": None, "sub_messages": []}

    async def reformulate(state: HistState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        draft = state.get("draft", "")
        rewrite = cfg.reformulate == "always" or (cfg.reformulate == "auto" and
                                                  parse.needs_rewrite(draft, cfg.max_answer_words))
        answer = parse.short_answer(draft)
        if rewrite and draft.strip():
            reply = await ask_model(runtime, [{"role": "user", "content": prompts.REFORMULATE.format(
                question=state.get("question", ""), draft=draft)}])
            answer = parse.short_answer(reply.text) or answer
        return {"answer": answer, "status": "done"}

    def stop_at_limit(state: HistState) -> dict[str, Any]:
        return {"status": "step_limit", "queue": [], "answer": "",
                "draft": f"stopped: the manager still delegated after {state.get('steps', 0)} turns"}

    def after_manage(state: HistState) -> str:
        if state.get("status") == "answering":
            return "reformulate"
        return "dispatch" if state.get("steps", 0) < cfg.max_steps else "stop_at_limit"

    def after_call(state: HistState) -> str:
        active = state.get("active")
        if active:
            return "ask_" + str(active["specialist"])
        if state.get("queue"):
            return "dispatch"
        return "revise_plan" if cfg.replan_every and state.get("since_plan", 0) >= cfg.replan_every else "manage"

    graph = StateGraph(HistState, context_schema=RunContext)
    for node in (read_question, write_plan, revise_plan, manage, dispatch, collect, reformulate, stop_at_limit):
        graph.add_node(node.__name__, node)
    asks = []
    for s in team:
        graph.add_node("ask_" + s.name, build_specialist(s, cfg.specialist_steps, cfg.archive,
                                                         cfg.observation_chars, cfg).compile())
        graph.add_edge("ask_" + s.name, "collect")
        asks.append("ask_" + s.name)
    graph.add_edge(START, "read_question")
    graph.add_edge("read_question", "write_plan")
    graph.add_edge("write_plan", "manage")
    graph.add_edge("revise_plan", "manage")
    graph.add_conditional_edges("manage", after_manage, ["reformulate", "dispatch", "stop_at_limit"])
    graph.add_conditional_edges("dispatch", after_call, [*asks, "dispatch", "revise_plan", "manage"])
    graph.add_conditional_edges("collect", after_call, [*asks, "dispatch", "revise_plan", "manage"])
    graph.add_edge("reformulate", END)
    graph.add_edge("stop_at_limit", END)
    return graph


def _exists(path: str) -> bool:
    from pathlib import Path

    return Path(path).is_file()


def _merge(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = list(old)
    for item in new:
        if item not in out:
            out.append(item)
    return out


def _preflight(inp: Any, cfg: Any, base: Any) -> None:
    from paperworks.workflows.histagent.tools import preflight

    preflight(inp, cfg, base)


def make_state(inp: HistInput) -> dict[str, Any]:
    """Initial state for a question."""
    return {**turn_state(inp.question, inp.attachments), "messages": [], "evidence": []}


def chat_turn(text: str) -> dict[str, Any]:
    """One follow-up question in ``paperworks chat``: the evidence and the conversation carry over."""
    return turn_state(text, [])


def output(state: dict[str, Any]) -> dict[str, Any]:
    """The answer with its evidence, the tools used (with their outputs), the plan and the counters."""
    return {"answer": state.get("answer", ""), "status": state.get("status", ""),
            "evidence": state.get("evidence", []), "tools_used": state.get("tools_used", []),
            "plan": state.get("plan", ""), "reports": state.get("reports", []),
            "steps": state.get("steps", 0), "revisions": state.get("revisions", 0)}


def status(state: dict[str, Any]) -> str:
    """``step_limit`` when the manager was cut off, else ``succeeded``."""
    return "step_limit" if state.get("status") == "step_limit" else "succeeded"


SPEC = WorkflowSpec(
    name="histagent",
    description="History research agent (HistAgent): a planning manager delegating to archive, OCR, "
                "translation, file, image and speech specialists; answers with evidence.",
    build_graph=build_graph,
    input_model=HistInput,
    config_model=HistConfig,
    make_state=make_state,
    output=output,
    status=status,
    chat_turn=chat_turn,
    scorers={"evidence": evidence},
    preflight=_preflight,
)
