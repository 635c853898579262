"""Tables for ``paperworks list``."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

from paperworks.models import KNOWN_MODELS


def workflows() -> Table:
    """Registered workflows."""
    from paperworks.workflows.registry import list_workflows

    table = Table("workflow", "description", title="workflows", title_justify="left")
    for spec in list_workflows():
        table.add_row(spec.name, spec.description)
    return table


def models() -> Table:
    """Model strings paperworks knows about (any litellm string works)."""
    table = Table("model", "what", title="models", title_justify="left")
    for name, what in KNOWN_MODELS:
        table.add_row(name, what)
    return table


def suites() -> Table:
    """Benchmark suites under ``evals/`` with their sample counts; a malformed one shows its error."""
    from rich.text import Text

    from paperworks.eval.suite import list_suites

    table = Table("suite", "version", "samples", "workflow", "scorers", "description", title="suites",
                  title_justify="left")
    found = list_suites()
    for name, suite in found:
        if isinstance(suite, str):
            table.add_row(name, "", "", "", "", Text(f"error: {suite}", style="red"))
            continue
        spec = suite.spec
        table.add_row(name, spec.version, str(len(suite.samples)), spec.workflow,
                      ", ".join(s.name for s in spec.scorers), Text(spec.description))
    if not found:
        table.add_row("(none yet)", "", "", "", "", "add one under evals/<suite>/suite.yaml")
    return table


def backends() -> Table:
    """Compute backends (one folder per paper under paperworks/backends/)."""
    table = Table("backend", "description", title="backends", title_justify="left")
    root = Path(__file__).resolve().parents[1] / "backends"
    found = sorted(p for p in root.iterdir() if p.is_dir() and (p / "__init__.py").is_file()
                   and not p.name.startswith("_"))
    for folder in found:
        doc = (folder / "__init__.py").read_text(encoding="utf-8").strip().strip('"').splitlines()
        table.add_row(folder.name, doc[0].strip('"') if doc else "")
    if not found:
        table.add_row("(none yet)", "backends arrive with their issues (OTB, SpecMD, ...)")
    return table
