"""FCGraft for SPADA: the bench's reference programs as grafted segments in the code prompt, on the
embedded SmolLM2-135M. A task's own reference is never retrieved; a grafted prompt's next-token
distribution is close to the full prefill's; the workflow setting refuses a model it cannot graft into."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def grafter() -> Any:
    from paperworks.backends.fcgraft.cad import CadGrafter
    from paperworks.models.local import get_local_model
    from paperworks.models.local.smollm import LocalModelError

    try:
        local = get_local_model("smollm2-135m-torch")
    except LocalModelError as exc:
        pytest.skip(str(exc))
    return CadGrafter(local.model, local.tokenizer, local.name)


def test_own_reference_is_never_retrieved(grafter: Any) -> None:
    for ref in list(grafter.refs.values())[:10]:
        picked = grafter.pick(ref.request, 3)
        assert ref.name not in picked and len(picked) == 3
    assert grafter.pick("a hinge with two leaves and a pin", 1)  # a user's request: anything may come


@pytest.mark.slow
def test_grafted_prompt_is_close_to_full_prefill_and_cheaper(grafter: Any) -> None:
    from paperworks.agents.spada.prompts import CONVENTION
    from paperworks.backends.fcgraft import kv
    from paperworks.backends.fcgraft.cad import segment_text, tail_text

    request = "A square plate 40 mm x 40 mm x 5 mm with a cylindrical post 10 mm in diameter on top."
    names = grafter.pick(request, 2)
    head = grafter.head()
    parts = [grafter._segment(n, segment_text(grafter.refs[n]), head) for n in names]
    tail = grafter.encode(tail_text(request, {}, CONVENTION))[-40:]
    full = kv.prefill(grafter.model, head.ids + [i for p in parts for i in p.ids])
    ref = kv.next_logprobs(grafter.model, kv.new_cache(grafter.model, [full]), tail)
    grafted = kv.next_logprobs(grafter.model, kv.stitch(grafter.model, head, parts), tail)
    unmoved = kv.next_logprobs(grafter.model, kv.stitch(grafter.model, head, parts, reposition=False), tail)
    assert kv.kl(ref, grafted) < kv.kl(ref, unmoved)
    a = grafter.generate(request, {}, CONVENTION, k=2, max_new_tokens=4, graft=True)
    b = grafter.generate(request, {}, CONVENTION, k=2, max_new_tokens=4, graft=False)
    assert a.references == b.references == names
    assert a.reused_tokens == b.prefilled_tokens - a.prefilled_tokens and a.reused_tokens > 500
    assert 1 <= a.decoded_tokens <= 4


def test_spada_setting_refuses_a_model_it_cannot_graft_into() -> None:
    import asyncio

    from paperworks.core.errors import UserError
    from paperworks.workflows.context import RunContext
    from paperworks.workflows.spada.graph import SpadaConfig, build_graph

    graph = build_graph(SpadaConfig(fcgraft_references=2, max_iterations=1)).compile()
    with pytest.raises(UserError, match="fcgraft_references needs the embedded model"):
        asyncio.run(graph.ainvoke({"request": "a plate", "spec": {}}, context=RunContext(model="openai/gpt-4o"),
                                  config={"recursion_limit": 5}))


def test_grafted_code_call_counts_in_the_run_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """The grafted call bypasses the gateway, so the node charges its tokens to the run's budget itself and
    refuses to start past a limit."""
    import asyncio

    from langgraph.checkpoint.memory import InMemorySaver

    from paperworks.core.budget import Budget, Limits, current_budget
    from paperworks.core.errors import LimitExceeded
    from paperworks.models.gateway import model_for
    from paperworks.models.scripted import register_script
    from paperworks.workflows import context
    from paperworks.workflows.spada import graph as spada

    register_script("fcgraft-spec", ['{"parts": [{"name": "plate"}]}'])
    monkeypatch.setattr(context.RunContext, "get_model", lambda self: model_for("scripted/fcgraft-spec"))
    info = {"reused_tokens": 300, "prefilled_tokens": 95, "decoded_tokens": 42, "text": None}
    monkeypatch.setattr(spada, "_graft_code", lambda *a: ("```python\nresult = 1\n```", dict(info)))
    graph = spada.build_graph(spada.SpadaConfig(fcgraft_references=2, max_iterations=1)).compile(
        checkpointer=InMemorySaver(), interrupt_after=["write_code"])

    def run(budget: Budget, thread: str) -> dict[str, Any]:
        async def go() -> dict[str, Any]:
            token = current_budget.set(budget)
            try:
                return dict(await graph.ainvoke({"request": "a plate"}, context=context.RunContext(
                    model="local/smollm2-135m", artifact_dir=None), config={"configurable": {"thread_id": thread}}))
            finally:
                current_budget.reset(token)
        return asyncio.run(go())

    spec_only = Budget()  # what the spec call alone costs, through the gateway
    asyncio.run(_spec_call(spec_only))
    budget = Budget()
    state = run(budget, "a")
    assert state["code"].strip() == "result = 1"
    assert budget.usage.calls == spec_only.usage.calls + 1 == 2
    assert budget.usage.prompt_tokens == spec_only.usage.prompt_tokens + 300 + 95
    assert budget.usage.completion_tokens == spec_only.usage.completion_tokens + 42
    # a run whose token limit is spent by the spec call does not start the grafted call
    tight = Budget(Limits(tokens=1))
    with pytest.raises(LimitExceeded):
        run(tight, "b")
    assert tight.usage.calls == 1


async def _spec_call(budget: Any) -> None:
    from paperworks.agents.spada import prompts
    from paperworks.core.budget import current_budget
    from paperworks.models.gateway import model_for

    token = current_budget.set(budget)
    try:
        await model_for("scripted/fcgraft-spec").generate(prompts.spec_messages("a plate"), max_tokens=2048)
    finally:
        current_budget.reset(token)
