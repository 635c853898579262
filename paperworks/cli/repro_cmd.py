"""``paperworks repro NAME [--quick] [--out DIR] [--scale cpu|gpu] [--tensorboard DIR]``: progress while it
runs, then a table of the measured figures beside the paper's claims. ``--tensorboard DIR`` writes the
run's training curves and figures as TensorBoard event files to ``DIR/NAME/`` (``DIR/NAME-<timestamp>/``
when that exists); the same scalars are in results.json under ``"scalars"`` either way."""

from __future__ import annotations

import os
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from paperworks.cli.tables import Column, Listing, show

if TYPE_CHECKING:
    from paperworks.backends.repro import ReproResult

console = Console()


def format_value(value: object, unit: str) -> str:
    """A figure's value for the table: floats to 4 significant digits, ``None`` as "n/a", the unit after."""
    if value is None:
        text = "n/a"
    elif isinstance(value, float):
        text = f"{value:.4g}"
    else:
        text = str(value)
    return f"{text} {unit}".strip()


def figures_listing(result: ReproResult, title: str) -> Listing:
    """The figures as a listing: a table fitted to the terminal (names never cut; the note column left out
    first when it is narrow), tab-separated text in a pipe."""
    return Listing(title=title, columns=[Column("figure"), Column("measured", justify="right"),
                                         Column("paper's claim", kind="text"),
                                         Column("how measured", kind="text", optional=1)],
                   rows=[[key, format_value(fig.value, fig.unit), fig.paper or "—", fig.note]
                         for key, fig in result.figures.items()])


def tensorboard_run_dir(root: Path, name: str) -> Path:
    """The folder for this run's event files: ``root/name``, or ``root/name-<timestamp>`` when that exists;
    created here, so a bad ``root`` (a file, not writable) fails as one-line UserError before the run."""
    import importlib.util

    from paperworks.core.errors import UserError

    if importlib.util.find_spec("tensorboard") is None:
        raise UserError("--tensorboard needs the tensorboard package (the ecosystem extra): "
                        "pip install -e '.[ecosystem]'")
    if root.exists() and not root.is_dir():
        raise UserError(f"--tensorboard {root}: not a folder (a file is there)")
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=root, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise UserError(f"--tensorboard {root}: cannot write there ({exc.strerror or exc})") from None
    target = root / name
    if target.exists():
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        target = root / f"{name}-{stamp}"
        n = 1
        while target.exists():
            n += 1
            target = root / f"{name}-{stamp}-{n}"
    try:
        target.mkdir(parents=True)
    except OSError as exc:
        raise UserError(f"--tensorboard {target}: cannot create it ({exc.strerror or exc})") from None
    if not os.access(target, os.W_OK):
        raise UserError(f"--tensorboard {target}: not writable")
    return target


def repro_command(
    name: Annotated[str, typer.Argument(help="Experiment (a backend's name); 'paperworks list backends'.")],
    quick: Annotated[bool, typer.Option(help="A minute-long version (what tests run).")] = False,
    out: Annotated[Path | None, typer.Option(help="Output folder (default runs/repro-NAME).")] = None,
    scale: Annotated[str, typer.Option(help="cpu (default) or gpu, where the experiment offers it.")] = "cpu",
    tensorboard: Annotated[Path | None, typer.Option(
        help="Also write training curves and figures as TensorBoard event files to DIR/NAME/.",
        metavar="DIR")] = None,
) -> None:
    """Reproduce a paper's headline effect at CPU scale: results.json + plots, the paper's claim beside each."""
    from paperworks.backends.repro import command_line, repro_names, run_repro
    from paperworks.core.errors import UserError
    from paperworks.core.paths import runs_dir

    if scale not in ("cpu", "gpu"):
        raise UserError(f"--scale must be cpu or gpu, got '{scale}'")
    target = out or runs_dir() / f"repro-{name}{'-quick' if quick else ''}"
    tb_dir = None
    if tensorboard is not None:
        if name not in repro_names():
            raise UserError(f"unknown experiment '{name}'; known: {', '.join(repro_names()) or 'none yet'}")
        tb_dir = tensorboard_run_dir(tensorboard, name)
    start = time.monotonic()
    with console.status(escape(f"repro {name}: starting"), spinner="dots") as status:

        def progress(text: str) -> None:
            console.print(f"[dim]{time.monotonic() - start:7.1f} s[/dim]  {escape(text)}")
            status.update(escape(f"repro {name}: {text}"))

        result, path = run_repro(name, target, quick=quick, scale=scale, progress=progress,
                                 command=command_line(name, quick, scale, out, tensorboard),
                                 tensorboard=tb_dir)
    elapsed = time.monotonic() - start
    title = f"repro {name}{' --quick' if quick else ''}: measured vs the paper's claim"
    show(console, [figures_listing(result, title)], None)
    for plot in result.plots:
        console.print(f"plot: {escape(str(target / plot))}")
    console.print(f"results: {escape(str(path))}  ({elapsed:.0f} s)")
    if tb_dir is not None:
        console.print(f"tensorboard: {escape(str(tb_dir))}  (tensorboard --logdir {escape(str(tensorboard))})")
