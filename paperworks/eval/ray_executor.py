"""``--executor ray``: each (sample, epoch) is a Ray task, for evaluations bigger than one machine.

Records, events and resume are the same as with the local executor. Each task keeps its LangGraph
checkpoints in its own SQLite file (``checkpoints/<id>#<epoch>.sqlite``) so workers on several
processes never contend for one database; the run directory must be on storage every worker sees
(a shared file system on a multi-machine cluster).

Ray probes cloud-metadata addresses whenever it starts. Started here for a local cluster it binds to
127.0.0.1; tests only start it inside a private network namespace (``unshare -n``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from paperworks.core.errors import MissingDependencyError, one_line
from paperworks.core.runs import RunDir, now_iso
from paperworks.eval.records import Sample, SampleRecord
from paperworks.eval.sample_runner import EvalSetup, run_bounded


def _sample_task(run_dir: str, sample: dict[str, Any], epoch: int) -> dict[str, Any]:
    """Body of one Ray task (runs in a worker process)."""
    from paperworks.core.paths import set_offline_env

    set_offline_env()
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from paperworks.eval.records import folder_name
    from paperworks.eval.sample_runner import run_sample

    run = RunDir(Path(run_dir))
    setup = EvalSetup.from_record(run.path, run.read_record())
    smp = Sample(**sample)
    folder = run.path / "checkpoints"
    folder.mkdir(exist_ok=True)

    async def go() -> SampleRecord:
        db = folder / f"{folder_name(f'{smp.id}#{epoch}')}.sqlite"  # a sample id is never a path
        async with AsyncSqliteSaver.from_conn_string(str(db)) as saver:
            graph = setup.spec.build_graph(setup.workflow_config).compile(checkpointer=saver)
            return await run_sample(setup, graph, smp, epoch, run.events())

    return asyncio.run(go()).to_dict()


def _init_ray(address: str | None) -> Any:
    try:
        import ray
    except ImportError as exc:
        raise MissingDependencyError("--executor ray needs Ray: pip install 'ray==2.60.0'") from exc
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            os.environ.setdefault("RAY_AUTH_MODE", "disabled")
            ray.init(_node_ip_address="127.0.0.1", include_dashboard=False, log_to_driver=False)
    return ray


async def run_with_ray(run: RunDir, setup: EvalSetup, todo: list[tuple[Any, int]],
                       finished: Callable[[SampleRecord], None], address: str | None, concurrency: int) -> None:
    """Submit every (sample, epoch) as a Ray task, ``concurrency`` in flight; record each as it returns."""
    ray = _init_ray(address)
    task = ray.remote(_sample_task)
    async def one(sample: Any, epoch: int) -> None:
        started = now_iso()
        try:
            record = SampleRecord.from_dict(await task.remote(str(run.path), asdict(sample), epoch))
        except Exception as exc:  # the worker died or raised: record it, go on
            record = SampleRecord(id=sample.id, epoch=epoch, input=sample.input, target=sample.target,
                                  status="failed", error=f"ray task failed: {one_line(exc, 250)}",
                                  error_kind="workflow_error", started_at=started, finished_at=now_iso())
        finished(record)

    await run_bounded(todo, one, concurrency)
