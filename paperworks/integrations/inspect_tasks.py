"""Inspect AI tasks for the shipped paperworks suites: ``inspect eval paperworks/<suite>``.

Registered through the ``inspect_ai`` entry-point group (``paperworks =
"paperworks.integrations.inspect_tasks"`` in pyproject.toml): Inspect resolves ``paperworks/arith`` by
loading this module, which registers one ``@task`` per folder of ``paperworks/suites/``.

Each task is

- a ``MemoryDataset`` of the suite's samples (input text, target, the paperworks input and metadata),
- a solver that runs the suite's own workflow (its LangGraph graph, config, limits and generation
  settings) on each sample, through the same code as ``paperworks eval`` (``run_sample``), and puts the
  conversation into ``state.messages`` and the answer into ``state.output``,
- one Inspect scorer per suite scorer that applies that paperworks scorer to the workflow's output
  (same value; ``passed`` and details in the score's metadata), with accuracy and stderr metrics.

The workflow's model calls go through paperworks' model gateway (litellm), not through Inspect's
model API: the paperworks model is the task argument ``model`` (``-T model=openai/gpt-4o-mini`` or a
scripted model), and by default the name of Inspect's ``--model`` when litellm can route it (names
like ``openai/gpt-4o-mini`` mean the same model to both). Inspect's ``mockllm`` is not a litellm
provider, so with it pass ``-T model=...``. Each sample's calls are in its messages; their token
counts are in the sample's metadata (``paperworks.usage``), not in Inspect's model usage.

Task arguments: ``model``, ``judge_model`` (suites with model-graded scorers), ``epochs`` (default: the
suite's), ``seed``, ``config`` (workflow settings over the suite's, a dict).
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.dataset import Sample as InspectSample
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import Generate, TaskState, solver

from paperworks.core.errors import UserError
from paperworks.eval.suite import Suite

SUITES_DIR = Path(__file__).resolve().parents[1] / "suites"
"""The suites shipped with paperworks; one task each."""

RECORD_KEY = "paperworks_record"
"""Where the solver leaves the sample's ``SampleRecord`` (as a dict) in ``state.store``."""


def shipped_suites() -> list[str]:
    """Names of the suites in ``paperworks/suites/`` (folders with a suite.yaml)."""
    return sorted(p.parent.name for p in SUITES_DIR.glob("*/suite.yaml"))


def _load(name: str) -> Suite:
    from paperworks.eval.suite import load_suite, unavailable_scorers, without_scorers

    suite = load_suite(str(SUITES_DIR / name))
    skipped = unavailable_scorers(suite)
    if skipped and len(skipped) == len(suite.spec.scorers):
        raise UserError(f"suite '{name}': no scorer can run here: "
                        + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    return without_scorers(suite, set(skipped))


def _target(value: Any) -> str | list[str]:
    if value is None:
        return ""
    return [str(v) for v in value] if isinstance(value, list) else str(value)


def dataset(suite: Suite) -> MemoryDataset:
    """The suite's samples as Inspect ``Sample``s (the paperworks input in ``metadata["paperworks_input"]``)."""
    from paperworks.integrations.inspect_samples import _input_text

    return MemoryDataset([InspectSample(input=_input_text(s.input), target=_target(s.target), id=s.id,
                                        metadata={**s.metadata, "paperworks_input": s.input})
                          for s in suite.samples], name=suite.name, location=str(suite.folder))


def _model_name(state: TaskState, model: str | None) -> str:
    from paperworks.models.gateway import check_model

    name = model or str(state.model)
    try:
        check_model(name)
    except UserError as exc:
        raise UserError(f"{exc} (Inspect's model '{state.model}' is not a litellm model string: pass the "
                        "paperworks model as a task argument, -T model=...)") from exc
    return name


@solver
def paperworks_workflow(suite_name: str, model: str | None = None, seed: int = 0,
                        config: dict[str, Any] | None = None) -> Any:
    """Run the suite's paperworks workflow on the sample (``paperworks eval``'s ``run_sample``, unscored)."""
    from paperworks.core.budget import Limits
    from paperworks.core.events import EventLog, read_events
    from paperworks.eval.sample_runner import EvalSetup, run_sample
    from paperworks.eval.suite import without_scorers
    from paperworks.integrations.inspect_samples import answer_text
    from paperworks.integrations.inspect_transcript import conversation
    from paperworks.workflows.registry import get_workflow

    suite = _load(suite_name)
    by_id = {s.id: s for s in suite.samples}
    spec = get_workflow(suite.spec.workflow)
    workflow_config = spec.parse_config({**(suite.spec.config or {}), **(config or {})})
    limits = suite.spec.limits
    work = Path(tempfile.mkdtemp(prefix=f"paperworks-inspect-{suite_name}-"))  # artifacts, events, prompts
    atexit.register(shutil.rmtree, work, True)
    graphs: dict[str, Any] = {}

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        from langgraph.checkpoint.memory import MemorySaver

        name = _model_name(state, model)
        if name not in graphs:
            graphs[name] = spec.build_graph(workflow_config).compile(checkpointer=MemorySaver())
        setup = EvalSetup(
            run_dir=work, suite=without_scorers(suite, [s.name for s in suite.spec.scorers]), spec=spec,
            workflow_config=workflow_config, model=name, judge_model=None, seed=seed, epochs=1,
            limits=Limits(time_s=getattr(limits, "time_s", None), tokens=getattr(limits, "tokens", None),
                          working_time_s=getattr(limits, "working_time_s", None), cost=getattr(limits, "cost", None)),
            cache=False, generation=dict(suite.spec.generation or {}))
        sample = by_id[str(state.sample_id)]
        events_path = work / "events" / f"{uuid.uuid4().hex}.jsonl"  # one log per sample; prompts shared
        events_path.parent.mkdir(exist_ok=True)
        record = await run_sample(setup, graphs[name], sample, state.epoch, EventLog(events_path))
        events = [e for e in read_events(events_path) if e.get("sample") == record.key]
        messages = conversation(events, events_path.parent)
        if messages:
            state.messages = messages
        state.output = ModelOutput.from_content(name, answer_text(record.output, {}),
                                                error=record.error)
        state.store.set(RECORD_KEY, record.to_dict())
        state.metadata["paperworks"] = {"status": record.status, "error": record.error, "usage": record.usage,
                                        "output": record.output}
        return state

    return solve


def _suite_scorer(suite_name: str, scorer_name: str, args: dict[str, Any], judge_model: str | None,
                  seed: int) -> Any:
    @scorer(metrics=[accuracy(), stderr()], name=scorer_name)
    def make() -> Any:
        """Apply the suite's paperworks scorer to the workflow's output (0 when the workflow failed)."""
        from paperworks.eval.scorers import ScoreContext, extract_answer, get_scorer
        from paperworks.workflows.registry import get_workflow

        suite = _load(suite_name)
        by_id = {s.id: s for s in suite.samples}
        fn = get_scorer(scorer_name, get_workflow(suite.spec.workflow).scorers)
        ctx = ScoreContext(judge_model=judge_model, seed=seed)

        async def score(state: TaskState, target: Target) -> Score:
            record = state.store.get(RECORD_KEY) or {}
            if record.get("status") != "succeeded":
                return Score(value=0.0, explanation=f"workflow {record.get('status', 'not run')}: "
                                                    f"{record.get('error') or ''}".strip(),
                             metadata={"passed": False})
            output = record.get("output")
            result = await fn(by_id[str(state.sample_id)], output, extract_answer(output, suite.spec.answer_field),
                              ctx, **args)
            return Score(value=float(result.value), answer=result.answer, explanation=result.explanation,
                         metadata={"passed": result.passed, "details": result.details})

        return score

    return make()


def suite_task(suite_name: str, model: str | None = None, judge_model: str | None = None,
               epochs: int | None = None, seed: int = 0, config: dict[str, Any] | None = None) -> Task:
    """The Inspect ``Task`` of one suite (what ``inspect eval paperworks/<suite>`` builds)."""
    from paperworks.eval.harness import JUDGED

    suite = _load(suite_name)
    if any(s.name in JUDGED for s in suite.spec.scorers) and not judge_model:
        raise UserError(f"suite '{suite_name}' is scored by a judge model: pass -T judge_model=...")
    scorers = [_suite_scorer(suite_name, s.name, dict(s.args or {}), judge_model, seed) for s in suite.spec.scorers]
    return Task(dataset=dataset(suite), solver=paperworks_workflow(suite_name, model, seed, config), scorer=scorers,
                epochs=epochs or suite.spec.epochs, name=suite_name, version=suite.spec.version,
                metadata={"paperworks_suite": suite_name, "workflow": suite.spec.workflow})


def _register(name: str) -> Any:
    def factory(model: str | None = None, judge_model: str | None = None, epochs: int | None = None,
                seed: int = 0, config: dict[str, Any] | None = None) -> Task:
        return suite_task(name, model=model, judge_model=judge_model, epochs=epochs, seed=seed, config=config)

    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = f"The paperworks suite '{name}' run with its own workflow and scorers."
    return task(name=_registry_name(factory, name))(factory)


def _registry_name(obj: Any, name: str) -> str:
    """The name to give ``@task`` so that the task is ``paperworks/<name>``: Inspect prefixes the package
    itself when it sees paperworks as installed, but not when a stray ``paperworks.egg-info`` (a source
    checkout on ``sys.path``) hides the editable install's metadata; then the prefix is ours to add."""
    from inspect_ai._util.package import get_installed_package_name

    return name if get_installed_package_name(obj) == "paperworks" else f"paperworks/{name}"


TASKS = {name: _register(name) for name in shipped_suites()}
"""Suite name → its registered task factory (registry name ``paperworks/<suite>``)."""
