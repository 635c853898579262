"""Inspect AI tasks for the shipped paperworks suites: ``inspect eval paperworks/<suite>``.

Registered through the ``inspect_ai`` entry-point group (``paperworks =
"paperworks.integrations.inspect_tasks"`` in pyproject.toml): Inspect resolves ``paperworks/arith`` by
loading this module, which registers one ``@task`` per folder of ``paperworks/suites/`` (and, through
``inspect_model``, the model APIs ``local`` and ``scripted``).

Each task is

- a ``MemoryDataset`` of the suite's samples (input text, target, the paperworks input and metadata),
- a solver that runs the suite's own workflow (its LangGraph graph, config, limits and generation
  settings) on each sample, through the same code as ``paperworks eval`` (``run_sample``), puts the
  conversation into ``state.messages`` and the answer into ``state.output``, and replays the workflow's
  model and tool calls into the sample's transcript as ``ModelEvent``s and ``ToolEvent``s, their tokens
  as the sample's model usage,
- one Inspect scorer per suite scorer that applies that paperworks scorer to the workflow's output
  (same value; ``passed`` and details in the score's metadata), with accuracy and stderr metrics.

The workflow's model calls go through paperworks' model gateway (litellm), not through Inspect's
model API: the paperworks model is the task argument ``model`` (``-T model=openai/gpt-4o-mini`` or a
scripted model), and by default the name of Inspect's ``--model`` when litellm can route it (names
like ``openai/gpt-4o-mini`` or ``local/smollm2-135m`` mean the same model to both). Inspect's ``mockllm``
is not a litellm provider, so with it pass ``-T model=...``. The task pins that model, so the log names it.

Everything is checked when the task loads, before a sample runs (``suite_task``): a missing or unknown
model, a bad judge model, ``epochs``, ``seed`` or workflow setting is one line and a non-zero exit.

Task arguments: ``model``, ``judge_model`` (suites with model-graded scorers), ``epochs`` (default: the
suite's), ``seed``, ``config`` (workflow settings over the suite's, a dict). The log's ``task_args.config``
and the solver's ``config`` are the settings the workflow ran with; the suite's generation settings are
the task's ``GenerateConfig``."""

from __future__ import annotations

import atexit
import shutil
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai._eval.task.constants import TASK_ALL_PARAMS_ATTR as _ALL_PARAMS  # the log's task_args
from inspect_ai._util.error import SilentException
from inspect_ai.dataset import MemoryDataset
from inspect_ai.dataset import Sample as InspectSample
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import Generate, TaskState, solver

from paperworks.core.errors import PaperworksError, UserError
from paperworks.eval.suite import Suite
from paperworks.integrations.inspect_model import NO_MODEL, inspect_model, resolve_model  # + local/scripted APIs

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


@solver
def paperworks_workflow(suite_name: str, model: str, seed: int = 0, config: dict[str, Any] | None = None) -> Any:
    """Run the suite's paperworks workflow on the sample (``paperworks eval``'s ``run_sample``, unscored) with
    the paperworks ``model`` and workflow settings ``config`` (over the suite's), and record its model and tool
    calls and usage into the sample's Inspect transcript."""
    from paperworks.core.budget import Limits
    from paperworks.core.events import EventLog, read_events
    from paperworks.eval.sample_runner import EvalSetup, run_sample
    from paperworks.eval.suite import without_scorers
    from paperworks.integrations.inspect_model import record_sample, working_clock
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
    graphs: list[Any] = []

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        from langgraph.checkpoint.memory import MemorySaver

        clock = working_clock()
        if not graphs:
            graphs.append(spec.build_graph(workflow_config).compile(checkpointer=MemorySaver()))
        setup = EvalSetup(
            run_dir=work, suite=without_scorers(suite, [s.name for s in suite.spec.scorers]), spec=spec,
            workflow_config=workflow_config, model=model, judge_model=None, seed=seed, epochs=1,
            limits=Limits(time_s=getattr(limits, "time_s", None), tokens=getattr(limits, "tokens", None),
                          working_time_s=getattr(limits, "working_time_s", None), cost=getattr(limits, "cost", None)),
            cache=False, generation=dict(suite.spec.generation or {}))
        sample = by_id[str(state.sample_id)]
        events_path = work / "events" / f"{uuid.uuid4().hex}.jsonl"  # one log per sample; prompts shared
        events_path.parent.mkdir(exist_ok=True)
        record = await run_sample(setup, graphs[0], sample, state.epoch, EventLog(events_path))
        events = [e for e in read_events(events_path) if e.get("sample") == record.key]
        record_sample(events, events_path.parent, clock)
        messages = conversation(events, events_path.parent)
        if messages:
            state.messages = messages
        state.output = ModelOutput.from_content(model, answer_text(record.output, {}), error=record.error)
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


class TaskLoadError(UserError):
    """A task that cannot run as asked (its model, judge model or a setting), raised when the task loads."""


class ReportedTaskLoadError(TaskLoadError, SilentException):
    """A ``TaskLoadError`` already printed to stderr as one line: under Inspect's CLI, whose exception hook
    exits 1 on a ``SilentException`` without printing anything more (no traceback, no log written)."""


def _under_inspect_cli() -> bool:
    """Whether Inspect's command line runs this process (its exception hook is installed)."""
    return getattr(sys.excepthook, "__module__", None) == "inspect_ai._util.error"


def _load_error(message: str) -> TaskLoadError:
    """The error to raise for a task that cannot load; under Inspect's CLI the line is printed here, to
    stderr and unwrapped (Inspect's own prerequisite errors go to stdout through rich, wrapped at 80
    columns when piped)."""
    message = " ".join(message.split())
    if _under_inspect_cli():
        print(f"error: {message}", file=sys.stderr, flush=True)
        return ReportedTaskLoadError(message)
    return TaskLoadError(message)


class SuiteTask(Task):
    """A suite's ``Task``: Inspect logs its task argument ``config`` as the workflow settings it runs with
    (the suite's, with ``-T config=...`` over them), not as the ``None`` the factory was called with."""

    workflow_settings: dict[str, Any]

    def __setattr__(self, name: str, value: Any) -> None:
        if name == _ALL_PARAMS and isinstance(value, dict):  # set by @task once the factory returns
            value = {**value, "config": getattr(self, "workflow_settings", value.get("config"))}
        super().__setattr__(name, value)


def _whole(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise UserError(f"-T {name}={value!r}: expected a whole number >= {low}")
    return value


def _settings(suite: Suite, config: Any) -> dict[str, Any]:
    """The workflow settings a task runs with (the suite's, ``config`` over them), validated."""
    from paperworks.workflows.registry import get_workflow

    if config is not None and not isinstance(config, dict):
        raise UserError(f"-T config={config!r}: expected a mapping of workflow settings, "
                        "e.g. -T config='{max_steps: 3}'")
    parsed = get_workflow(suite.spec.workflow).parse_config({**(suite.spec.config or {}), **(config or {})})
    return parsed.model_dump(mode="json") if parsed is not None else {}


def _generate_config(suite: Suite) -> Any:
    """The suite's generation settings that Inspect's ``GenerateConfig`` has fields for (for the log)."""
    from inspect_ai.model import GenerateConfig

    gen = dict(suite.spec.generation or {})
    if "stop" in gen:
        gen["stop_seqs"] = gen.pop("stop")
    return GenerateConfig(**{k: v for k, v in gen.items() if k in GenerateConfig.model_fields})


def _active_model() -> Any:
    from inspect_ai.model import get_model

    try:
        return get_model()
    except ValueError:  # called outside an eval, with no INSPECT_EVAL_MODEL: no model given
        return None


def suite_task(suite_name: str, model: str | None = None, judge_model: str | None = None,
               epochs: int | None = None, seed: int = 0, config: dict[str, Any] | None = None) -> Task:
    """The Inspect ``Task`` of one suite (what ``inspect eval paperworks/<suite>`` builds).

    Everything is checked here, when the task loads and before any sample runs: the model (``model``, else
    Inspect's ``--model``), the judge model, ``epochs``, ``seed`` and the workflow settings ``config``. A
    failure raises ``TaskLoadError``: one line, and ``inspect eval`` exits non-zero without running."""
    try:
        return _suite_task(suite_name, model, judge_model, epochs, seed, config)
    except TaskLoadError:
        raise
    except PaperworksError as exc:  # a bad argument, or a missing optional dependency the suite needs
        raise _load_error(f"paperworks/{suite_name}: {exc}") from None


def _suite_task(suite_name: str, model: str | None, judge_model: str | None, epochs: int | None, seed: int,
                config: dict[str, Any] | None) -> Task:
    from paperworks.eval.harness import JUDGED
    from paperworks.models.gateway import check_model

    suite = _load(suite_name)
    active = _active_model()
    name = resolve_model(str(active) if active is not None else NO_MODEL, model)
    if any(s.name in JUDGED for s in suite.spec.scorers) and not judge_model:
        raise UserError(f"suite '{suite_name}' is scored by a judge model: pass -T judge_model=...")
    if judge_model is not None:
        if not isinstance(judge_model, str):
            raise UserError(f"-T judge_model={judge_model!r}: expected a model string")
        check_model(judge_model)
    epochs = _whole("epochs", epochs, 1) if epochs is not None else suite.spec.epochs
    seed = _whole("seed", seed, 0)
    settings = _settings(suite, config)
    scorers = [_suite_scorer(suite_name, s.name, dict(s.args or {}), judge_model, seed) for s in suite.spec.scorers]
    task = SuiteTask(
        dataset=dataset(suite), solver=paperworks_workflow(suite_name, name, seed, settings), scorer=scorers,
        epochs=epochs, name=suite_name, version=suite.spec.version, model=inspect_model(name, active),
        config=_generate_config(suite),
        metadata={"paperworks_suite": suite_name, "workflow": suite.spec.workflow, "workflow_config": settings,
                  "limits": suite.spec.limits.model_dump(mode="json"), "generation": dict(suite.spec.generation)})
    task.workflow_settings = settings
    return task


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
