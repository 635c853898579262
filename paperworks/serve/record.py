"""A served run's record under the runs directory, as ``paperworks run`` writes one.

Every run the server executes gets its own ``<runs dir>/<timestamp>_<workflow>_<id>/`` with ``run.json``
(kind ``run``, what was asked, versions, status, output, usage; ``served`` names the LangGraph thread,
run and assistant), ``events.jsonl`` (``run_start``, ``node_start``/``node_end``, ``model_call``,
``tool_call``, ``run_end``) and the prompts beside it, so ``paperworks runs``, ``view`` and ``export`` read it
like a CLI run. The run directory holds the run's writer lock while it runs (``paperworks runs`` shows
it running, and ``paperworks run --resume`` leaves it alone). Threads keep their artifacts in one folder
across their runs (``<runs dir>/serve/<workflow>/<thread id>/artifacts``); ``run.json`` names it. The
checkpoints stay in the server (``./.langgraph_api``), so a served run is continued through its thread,
not with ``paperworks run --resume``.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from paperworks.core.budget import Budget, Limits
from paperworks.core.errors import one_line
from paperworks.core.events import EventLog, current_events, to_jsonable
from paperworks.core.lock import RunLock
from paperworks.core.runs import RunDir, now_iso
from paperworks.workflows.context import RunContext


class ServedRecord:
    """One served run's directory, event log and budget (usage accounting; no limits)."""

    def __init__(self, run: RunDir, events: EventLog, budget: Budget, lock: RunLock, workflow: str,
                 thread_id: str | None) -> None:
        self.run, self.events, self.budget, self.lock = run, events, budget, lock
        self.workflow, self.thread_id = workflow, thread_id
        self._starts: dict[str, float] = {}

    @classmethod
    def create(cls, workflow: str, ctx: RunContext, config: Any, parsed_input: Any, served: dict[str, Any],
               recursion_limit: int | None, listeners: list[Any]) -> ServedRecord:
        from paperworks.core.budget import Usage
        from paperworks.models.local.smollm import local_weights

        run = RunDir.create(workflow, {
            "kind": "run",
            "workflow": workflow,
            "model": ctx.model,
            "input": parsed_input.model_dump(mode="json") if parsed_input is not None else None,
            "config": config.model_dump(mode="json") if config is not None else None,
            "limits": Limits().to_dict(),
            "seed": ctx.seed,
            "generation": dict(ctx.generation or {}),
            "cache": ctx.cache,
            "recursion_limit": recursion_limit,
            "max_retries": ctx.max_retries,
            "timeout": ctx.timeout_s,
            "local_weights": local_weights(ctx.model),
            "usage": Usage().to_dict(),
            "elapsed_s": 0.0,
            "served": served,
        })
        lock = RunLock(run.path).acquire()
        return cls(run, run.events(listeners), Budget(Limits()), lock, workflow, served.get("thread_id"))

    def node_event(self, chunk: dict[str, Any]) -> None:
        """A ``tasks`` stream chunk of the top graph: ``node_start`` / ``node_end``, as the runner records."""
        from paperworks.workflows.runner import _summarise

        if "input" in chunk:
            self._starts[chunk["id"]] = time.monotonic()
            self.events.emit("node_start", node=chunk["name"])
        else:
            took = time.monotonic() - self._starts.pop(chunk["id"], time.monotonic())
            err = chunk.get("error")
            self.events.emit("node_end", node=chunk["name"], seconds=round(took, 3),
                             error=one_line(err) if err else None, update=_summarise(chunk.get("result")))

    def finish(self, status: str, output: Any, error: str | None) -> None:
        budget = self.budget
        try:
            self.run.update_record(status=status, error=error, output=to_jsonable(output),
                                   usage=budget.usage.to_dict(), elapsed_s=round(budget.elapsed_s, 3),
                                   working_s=round(budget.working_s, 3), waiting_s=round(budget.waiting_s, 3),
                                   limit=None, finished_at=now_iso())
            self.events.emit("run_end", status=status, error=error, usage=budget.usage.to_dict(),
                             elapsed_s=round(budget.elapsed_s, 3), working_s=round(budget.working_s, 3),
                             waiting_s=round(budget.waiting_s, 3))
        finally:
            self.lock.release()
        print(f"paperworks: {self.workflow} run {self.run.id} {status}{': ' + error if error else ''} (thread "
              f"{self.thread_id or '-'}) · {self.run.path}", file=sys.stderr, flush=True)


def set_current(record: ServedRecord) -> None:
    """Make the record's event log and budget the current ones (the gateway and the tools emit into them);
    called in the context the run's graph task runs in."""
    from paperworks.core.budget import current_budget

    current_events.set(record.events)
    current_budget.set(record.budget)
