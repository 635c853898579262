"""``paperworks repro NAME [--quick] [--out DIR] [--scale cpu|gpu]``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

console = Console()


def repro_command(
    name: Annotated[str, typer.Argument(help="Experiment (a backend's name); 'paperworks list backends'.")],
    quick: Annotated[bool, typer.Option(help="A minute-long version (what tests run).")] = False,
    out: Annotated[Path | None, typer.Option(help="Output folder (default runs/repro-NAME).")] = None,
    scale: Annotated[str, typer.Option(help="cpu (default) or gpu, where the experiment offers it.")] = "cpu",
) -> None:
    """Reproduce a paper's headline effect at CPU scale: results.json + plots, the paper's claim beside each."""
    from paperworks.backends.repro import run_repro
    from paperworks.core.errors import UserError
    from paperworks.core.paths import runs_dir

    if scale not in ("cpu", "gpu"):
        raise UserError(f"--scale must be cpu or gpu, got '{scale}'")
    target = out or runs_dir() / f"repro-{name}{'-quick' if quick else ''}"
    result, path = run_repro(name, target, quick=quick, scale=scale)
    table = Table("figure", "measured", "paper", "note", title=f"repro {name}", title_justify="left")
    for key, fig in result.figures.items():
        value = f"{fig.value:.4g}" if isinstance(fig.value, float) else str(fig.value)
        table.add_row(key, f"{value} {fig.unit}".strip(), fig.paper or "", fig.note)
    console.print(table)
    for plot in result.plots:
        console.print(f"plot: {target / plot}")
    console.print(f"results: {path}")
