"""``paperworks repro NAME [--quick] [--out DIR] [--scale cpu|gpu]``: progress while it runs, then a table of
the measured figures beside the paper's claims."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

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


def figures_table(result: ReproResult, title: str) -> Table:
    """The figures as a rich table; every cell is markup-escaped (names such as ``hit_rate[lru, ...]`` would
    otherwise be read as rich markup tags and vanish)."""
    table = Table(title=escape(title), title_justify="left", show_lines=False)
    table.add_column("figure", overflow="fold")
    table.add_column("measured", justify="right", no_wrap=True)
    table.add_column("paper's claim", overflow="fold")
    table.add_column("how measured", overflow="fold")
    for key, fig in result.figures.items():
        table.add_row(escape(key), escape(format_value(fig.value, fig.unit)), escape(fig.paper or "—"),
                      escape(fig.note))
    return table


def repro_command(
    name: Annotated[str, typer.Argument(help="Experiment (a backend's name); 'paperworks list backends'.")],
    quick: Annotated[bool, typer.Option(help="A minute-long version (what tests run).")] = False,
    out: Annotated[Path | None, typer.Option(help="Output folder (default runs/repro-NAME).")] = None,
    scale: Annotated[str, typer.Option(help="cpu (default) or gpu, where the experiment offers it.")] = "cpu",
) -> None:
    """Reproduce a paper's headline effect at CPU scale: results.json + plots, the paper's claim beside each."""
    from paperworks.backends.repro import command_line, run_repro
    from paperworks.core.errors import UserError
    from paperworks.core.paths import runs_dir

    if scale not in ("cpu", "gpu"):
        raise UserError(f"--scale must be cpu or gpu, got '{scale}'")
    target = out or runs_dir() / f"repro-{name}{'-quick' if quick else ''}"
    start = time.monotonic()
    with console.status(escape(f"repro {name}: starting"), spinner="dots") as status:

        def progress(text: str) -> None:
            console.print(f"[dim]{time.monotonic() - start:7.1f} s[/dim]  {escape(text)}")
            status.update(escape(f"repro {name}: {text}"))

        result, path = run_repro(name, target, quick=quick, scale=scale, progress=progress,
                                 command=command_line(name, quick, scale, out))
    elapsed = time.monotonic() - start
    console.print(figures_table(result, f"repro {name}{' --quick' if quick else ''}: measured vs the paper's claim"))
    for plot in result.plots:
        console.print(f"plot: {escape(str(target / plot))}")
    console.print(f"results: {escape(str(path))}  ({elapsed:.0f} s)")
