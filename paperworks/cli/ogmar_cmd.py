"""``paperworks ogmar build`` (OG-MAR's offline phase: summaries and the elicited ontology, resumable) and
``paperworks ogmar suite`` (a survey-prediction suite from your own survey file). Every flag and input
file is checked before anything is written; a problem is one line naming the flag, file and row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from paperworks.core.errors import UserError

ogmar_app = typer.Typer(name="ogmar", help="OG-MAR: build the ontology and respondent summaries; build suites.",
                        no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)


def _data_path(data: str) -> Path:
    """A suite name (values_synth), a suite folder or a survey file."""
    path = Path(data).expanduser()
    if path.exists():
        return path
    if "/" not in data and not path.suffix:
        from paperworks.eval.suite_paths import find_suite

        return find_suite(data)
    raise UserError(f"--data: no such file or folder {data}")


def _file(path: Path | None, flag: str) -> Path | None:
    if path is not None and not path.is_file():
        raise UserError(f"{flag}: no such file {path}")
    return path


@ogmar_app.command("build")
def build_cmd(
    data: Annotated[str, typer.Option("--data", help="A suite (name or folder, e.g. values_synth) or a survey "
                                      "file (with --mapping).")],
    out: Annotated[Path, typer.Option("--out", help="Output folder (a rerun resumes it).")],
    model: Annotated[str | None, typer.Option("--model", "-m", help="litellm model string "
                                              "(default local/smollm2-135m).")] = None,
    mapping: Annotated[Path | None, typer.Option("--mapping", help="Mapping file of a survey file.")] = None,
    taxonomy: Annotated[Path | None, typer.Option("--taxonomy", help="Taxonomy file (default: the packaged "
                                                  "76-class one).")] = None,
    personas_per_region: Annotated[int, typer.Option(help="Personas per region (paper: 20).")] = 1,
    pairs: Annotated[int, typer.Option(help="Class pairs asked about (0: all selected).")] = 24,
    pair_selection: Annotated[str, typer.Option(help="partial (screened by partial correlation) or all.")] = "partial",
    directions: Annotated[str, typer.Option(help="both (A→B and B→A) or one.")] = "both",
    summaries: Annotated[int, typer.Option(help="Respondents summarised (-1: all, 0: none).")] = 12,
    min_agreement: Annotated[float, typer.Option(help="Share of personas that must agree on a relation's "
                                                 "sign.")] = 0.5,
    concurrency: Annotated[int, typer.Option(help="Model calls in flight.")] = 4,
    seed: Annotated[int, typer.Option(help="Seed of the persona draw and the calls.")] = 0,
    max_tokens: Annotated[int, typer.Option(help="Reply budget of a competency answer.")] = 16,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the report.")] = False,
) -> None:
    """Run OG-MAR's offline phase into OUT: summaries.sqlite, answers.jsonl, ontology.ttl, report.json."""
    from paperworks.core.aio import run_sync
    from paperworks.models import DEFAULT_MODEL
    from paperworks.models.gateway import check_model
    from paperworks.workflows.ogmar.build import BuildSettings, build, load_build_data

    model = DEFAULT_MODEL if model is None else model  # an empty -m is refused, not the default
    settings = BuildSettings(model=model, personas_per_region=personas_per_region, pairs=pairs,
                             pair_selection=pair_selection, directions=directions, summaries=summaries,
                             min_agreement=min_agreement, concurrency=concurrency, seed=seed, max_tokens=max_tokens)
    settings.check()
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: exists and is not a folder")
    source = _data_path(data)
    loaded = load_build_data(source, _file(mapping, "--mapping"), _file(taxonomy, "--taxonomy"))
    check_model(settings.model)

    def progress(phase: str, done: int, total: int) -> None:
        if not quiet and (done == total or done % 10 == 0):
            console.print(f"[dim]{phase} {done}/{total}[/dim]")

    report = run_sync(build(loaded, settings, out, progress))
    console.print(f"{report.relations} relations from {report.answers} answers ({report.asked_now} asked now), "
                  f"{report.summaries} summaries ({report.summarised_now} now), {report.seconds:.1f} s -> "
                  f"{out / 'ontology.ttl'}", markup=False, highlight=False)
    for level, score in report.scores.items():
        console.print(f"  vs reference, {level}: precision {score['precision']:.3f} recall {score['recall']:.3f}",
                      markup=False, highlight=False)


@ogmar_app.command("suite")
def suite_cmd(
    data: Annotated[Path, typer.Option("--data", help="Your survey file (.csv/.tsv/.dta/.sav).")],
    mapping: Annotated[Path, typer.Option("--mapping", help="Its mapping file (columns -> taxonomy classes).")],
    out: Annotated[Path, typer.Option("--out", help="New suite folder (its name is the suite's name).")],
    taxonomy: Annotated[Path | None, typer.Option("--taxonomy", help="Taxonomy file (default: packaged).")] = None,
    per_group: Annotated[int, typer.Option(help="Held-out respondents per group.")] = 20,
    questions: Annotated[int, typer.Option(help="Questions per held-out respondent.")] = 3,
    group_field: Annotated[str, typer.Option(help="Demographic that forms the groups.")] = "region",
    hide: Annotated[str, typer.Option(help="class: hide every item of a question's class; item: only it.")] = "class",
    seed: Annotated[int, typer.Option(help="Seed of the split.")] = 0,
) -> None:
    """Build a survey-prediction suite (workflow ogmar) from your own survey file."""
    from paperworks.tools.values.loader import load_survey
    from paperworks.tools.values.suite_builder import split_heldout, write_suite
    from paperworks.tools.values.taxonomy import load_taxonomy

    if per_group < 1:
        raise UserError(f"--per-group must be at least 1, got {per_group}")
    if questions < 1:
        raise UserError(f"--questions must be at least 1, got {questions}")
    if hide not in ("class", "item"):
        raise UserError(f"--hide must be 'class' or 'item', got '{hide}'")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UserError(f"--out {out}: exists and is not an empty folder")
    _file(data, "--data")
    _file(mapping, "--mapping")
    tax = load_taxonomy(_file(taxonomy, "--taxonomy"))
    survey = load_survey(data, mapping, tax)
    if not any(group_field in r.demographics for r in survey):
        fields = sorted({k for r in survey for k in r.demographics})
        raise UserError(f"--group-field: no respondent has the demographic '{group_field}' (have "
                        f"{', '.join(fields) or 'none'})")
    split = split_heldout(survey, tax, per_group=per_group, questions_per_respondent=questions, seed=seed,
                          group_field=group_field, hide=hide)
    if not split.questions:
        raise UserError(f"{data}: no respondent has answers in {questions} different domains; nothing to hold out")
    counts = write_suite(out, split, tax, name=out.name, description=f"Held-out answers from {data.name}.",
                         title=f"OG-MAR suite built from {data.name}", generator="paperworks ogmar suite",
                         note=f"seed {seed}, {per_group} per {group_field}, hide={hide}")
    console.print(json.dumps({"suite": str(out), **counts}), markup=False, highlight=False)
    console.print(f"evaluate with: paperworks eval {out} --model MODEL", markup=False, highlight=False)
