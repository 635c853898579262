"""``paperworks repro NAME``: each backend's experiment that reproduces its paper's headline effect at
CPU scale, writing ``results.json`` (named figures, the paper's claim beside each) and PNG plots.

A backend registers its experiment in ``REPROS`` as ``"module:function"``; the function is
``run(out: Path, quick: bool, scale: str, progress: Progress) -> ReproResult`` and calls ``progress(text)``
as each stage starts. ``--quick`` finishes in about a minute and is what tests run; ``--scale gpu``
(where offered) sizes the experiment for an accelerator. ``results.json`` records the command that made
it and the measured wall time, so every figure quoted from it can be traced and re-made.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from paperworks.core.errors import UserError

Progress = Callable[[str], None]
"""Called with a short description as each stage of an experiment starts."""


def no_progress(text: str) -> None:
    """A :data:`Progress` that shows nothing."""


REPROS: dict[str, str] = {}
"""Experiment name → ``"module:function"``. Backends add themselves here (see their issue)."""


@dataclass
class Figure:
    """One measured figure with the paper's claim beside it."""

    value: float | int | str | None
    paper: str | None = None
    """The paper's claim, as text (e.g. ">88% hit rate at 5% capacity")."""
    unit: str = ""
    note: str = ""
    """How it was measured, and where it falls short of the claim."""


@dataclass
class ReproResult:
    """What an experiment returns; ``write`` turns it into ``results.json``."""

    name: str
    figures: dict[str, Figure] = field(default_factory=dict)
    plots: list[str] = field(default_factory=list)
    """PNG files written into the output folder (names relative to it)."""
    config: dict[str, Any] = field(default_factory=dict)
    """The experiment's settings (seed, sizes, steps), so the run can be repeated."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Raw series (per-step curves, per-capacity tables) for anyone who wants to re-plot."""
    scalars: dict[str, list[list[float]]] = field(default_factory=dict)
    """Tracked scalars, ``{tag: [[step, value], ...]}``: the training curves the experiment's loops
    recorded with :func:`paperworks.core.tracking.track` and each numeric figure as ``figures/<key>``
    (filled by :func:`run_repro`; the same values go to TensorBoard with ``--tensorboard``)."""
    scalars_skipped: dict[str, int] = field(default_factory=dict)
    """Tag → values skipped as non-numeric or non-finite while tracking (empty when none)."""

    def write(self, out: Path, quick: bool, scale: str, elapsed_s: float, command: str | None = None) -> Path:
        """``<out>/results.json`` with the command, versions, measured wall time and everything above."""
        from importlib import metadata

        versions = {"python": platform.python_version()}
        for dist in ("torch", "transformers", "numpy"):
            try:
                versions[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                pass
        data = {"name": self.name, "command": command, "quick": quick, "scale": scale,
                "elapsed_s": round(elapsed_s, 2),
                "cpu_count": os.cpu_count(), "versions": versions,
                "figures": {k: asdict(v) for k, v in self.figures.items()}, "plots": self.plots,
                "config": self.config, "extra": self.extra}
        if self.scalars_skipped:
            data["scalars_skipped"] = self.scalars_skipped
        out.mkdir(parents=True, exist_ok=True)
        path = out / "results.json"
        text = json.dumps(data, indent=2, default=str)
        # "scalars" last, one line per tag: indent=2 would put every number of every curve on its own line
        series = ",\n".join(f"    {json.dumps(tag)}: {json.dumps(points)}" for tag, points in self.scalars.items())
        text = text[:-2] + (f',\n  "scalars": {{\n{series}\n  }}\n}}' if series else ',\n  "scalars": {}\n}')
        path.write_text(text + "\n", encoding="utf-8")
        return path


def with_torch_threads(threads: int, fn: Callable[[], ReproResult]) -> ReproResult:
    """``fn()`` with torch limited to ``threads`` (restored after): on shared cores more threads than the
    experiment needs slow small ops down by an order of magnitude."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return fn()
    finally:
        torch.set_num_threads(before)


def repro_names() -> list[str]:
    """Registered experiments."""
    _load_backends()
    return sorted(REPROS)


def _load_backends() -> None:
    """Import each backend package so that it can register its experiment."""
    root = Path(__file__).resolve().parent
    for folder in sorted(p for p in root.iterdir() if (p / "__init__.py").is_file() and not p.name.startswith("_")):
        importlib.import_module(f"paperworks.backends.{folder.name}")


def command_line(name: str, quick: bool = False, scale: str = "cpu", out: Path | None = None,
                 tensorboard: Path | None = None) -> str:
    """The ``paperworks repro`` command line that runs ``name`` with these options."""
    parts = ["paperworks", "repro", name] + (["--quick"] if quick else []) + \
        ([f"--scale {scale}"] if scale != "cpu" else []) + ([f"--out {out}"] if out is not None else []) + \
        ([f"--tensorboard {tensorboard}"] if tensorboard is not None else [])
    return " ".join(parts)


def run_repro(name: str, out: Path, quick: bool = False, scale: str = "cpu", progress: Progress = no_progress,
              command: str | None = None, tensorboard: Path | None = None) -> tuple[ReproResult, Path]:
    """Run one experiment and write its results; returns the result and the results.json path.

    ``command`` is recorded in results.json (default: the equivalent ``paperworks repro`` command line).
    Every scalar the experiment tracks (its training curves) and each numeric figure (``figures/<key>``,
    step 0) lands in results.json under ``"scalars"``; with ``tensorboard`` (a folder) also as TensorBoard
    event files there."""
    from paperworks.core.tracking import recording

    _load_backends()
    if name not in REPROS:
        known = ", ".join(sorted(REPROS)) or "none yet"
        raise UserError(f"unknown experiment '{name}'; known: {known}")
    module_name, _, func = REPROS[name].partition(":")
    fn = getattr(importlib.import_module(module_name), func or "run")
    start = time.monotonic()
    with recording(tensorboard) as tracker:
        result: ReproResult = fn(out=out, quick=quick, scale=scale, progress=progress)
        for key, fig in result.figures.items():
            if isinstance(fig.value, int | float) and not isinstance(fig.value, bool) \
                    and math.isfinite(fig.value):
                tracker.record(f"figures/{key}", fig.value, 0)
    result.scalars = {**tracker.scalars(), **result.scalars}
    result.scalars_skipped = {**tracker.skipped, **result.scalars_skipped}
    cmd = command or command_line(name, quick, scale, out)
    path = result.write(out, quick, scale, time.monotonic() - start, cmd)
    return result, path
