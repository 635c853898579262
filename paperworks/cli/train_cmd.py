"""``paperworks train``: RL of the embedded model through real workflow runs (see ``paperworks/train``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

console = Console()
err_console = Console(stderr=True, soft_wrap=True)


class _TrainView:
    """A progress bar over steps with reward, accuracy, sampled tokens/s and held-out accuracy."""

    def __init__(self, steps: int, quiet: bool) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.quiet = quiet
        self.bar = Progress(TextColumn("[bold]{task.fields[phase]}[/bold]"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[stats]}"), TimeElapsedColumn(), console=console,
                            disable=quiet)
        self.task = self.bar.add_task("train", total=max(steps, 1), phase="train", stats="")
        self.heldout = "-"

    def __call__(self, info: dict[str, Any]) -> None:
        kind = info.get("event")
        if kind == "heldout":
            acc = info.get("accuracy")
            self.heldout = f"{acc:.3f}" if isinstance(acc, float) else "-"
            self.bar.update(self.task, stats=f"held-out acc {self.heldout}")
        elif kind == "sft":
            self.bar.update(self.task, phase="sft", stats=f"epoch {info['epoch']} · {info['done']}/{info['total']} "
                                                          f"examples · loss {info['sft_loss']:.3f}")
        elif kind == "step":
            tps = info.get("tokens_per_s")
            shaped = info.get("trained_reward")
            extra = (f" (shaped {shaped:.3f})" if info.get("shaping") and isinstance(shaped, float) else "")
            self.bar.update(self.task, completed=info["step"], phase="train",
                            stats=f"reward {info['reward']:.3f}{extra} · acc {info['accuracy']:.3f} · "
                                  f"{tps if tps is not None else '-'} tok/s · held-out {self.heldout}")


def train_command(
    workflow: Annotated[str | None, typer.Argument(help="The workflow to train through (e.g. agent).")] = None,
    suite: Annotated[str | None, typer.Option("--suite", help="Training problems: gen:NAME (e.g. gen:arith).")] = None,
    eval_suite: Annotated[str | None, typer.Option("--eval-suite", help="Suite the adapter is evaluated on.")] = None,
    model: Annotated[str | None, typer.Option("--model", "-m", help="Embedded model to train.")] = None,
    estimator: Annotated[str | None, typer.Option(help="otb, grpo, dr_grpo or rloo.")] = None,
    group_size: Annotated[int | None, typer.Option("--group-size", "-N", help="Rollouts per problem.")] = None,
    batch: Annotated[int | None, typer.Option(help="Problems per step.")] = None,
    steps: Annotated[int | None, typer.Option(help="RL steps.")] = None,
    out: Annotated[str | None, typer.Option("--out", help="Run folder (adapter, checkpoints, results).")] = None,
    resume: Annotated[str | None, typer.Option("--resume", help="Continue the training run in this folder.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed.")] = None,
    config: Annotated[list[str] | None, typer.Option("--config", "-c", help="Workflow setting key=value.")] = None,
    gen: Annotated[list[str] | None, typer.Option("--gen", help="Generation setting key=value.")] = None,
    config_file: Annotated[str | None, typer.Option("--config-file", help="YAML file of these settings.")] = None,
    lr: Annotated[float | None, typer.Option(help="Learning rate (RL).")] = None,
    sft_from: Annotated[str | None, typer.Option("--sft-from", help="'oracle' or an adapter folder.")] = None,
    sft_examples: Annotated[int | None, typer.Option("--sft-examples", help="Warm-start problems.")] = None,
    heldout: Annotated[int | None, typer.Option(help="Held-out generated problems.")] = None,
    eval_every: Annotated[int | None, typer.Option("--eval-every", help="Steps between held-out evals.")] = None,
    time_budget: Annotated[float | None, typer.Option("--time-budget", help="Seconds of training at most.")] = None,
    concurrency: Annotated[int | None, typer.Option(help="Rollouts in flight at once (default 8; 1 makes "
                                                    "rollouts independent of scheduling).")] = None,
    eval_concurrency: Annotated[int | None, typer.Option("--eval-concurrency", help="Samples in flight in the "
                                                         "held-out and final evals (default: --concurrency; 1 "
                                                         "makes greedy evals bit-reproducible).")] = None,
    shaping: Annotated[list[str] | None, typer.Option("--shaping", help="Declared shaping term=weight: "
                                                      "tool_format, or a sub-metric of the suite's scorer "
                                                      "(SPADA: compiled, loaded, constraint_pass); off by "
                                                      "default, reported apart.")] = None,
    keep: Annotated[str | None, typer.Option("--keep", help="Adapter of the final eval: last, or best_heldout "
                                             "(best generated held-out accuracy).")] = None,
    eval_limit: Annotated[int | None, typer.Option("--eval-limit", help="Base/final eval on the eval suite's first "
                                                   "N items only.")] = None,
    no_final_eval: Annotated[bool, typer.Option("--no-final-eval", help="Skip the base/final eval.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Train an embedded model with RL through real runs of a workflow (rewards from the suite's judge)."""
    from paperworks.cli.inputs import parse_settings
    from paperworks.core.errors import UserError
    from paperworks.train.settings import read_yaml, settings_from

    if resume:
        from paperworks.train.loop import prepare

        given = [k for k, v in {"WORKFLOW": workflow, "--suite": suite, "--steps": steps, "--estimator": estimator,
                                "--config-file": config_file}.items() if v is not None]
        if given:
            raise UserError(f"--resume continues a run with its own settings; drop {', '.join(given)}")
        folder = Path(resume)
        settings = prepare(folder, settings_from({"workflow": "agent", "suite": "gen:arith", "eval_suite": "arith"}),
                           resume=True)
    else:
        values: dict[str, Any] = read_yaml(config_file) if config_file else {}
        flags = {"workflow": workflow, "suite": suite, "eval_suite": eval_suite, "model": model,
                 "estimator": estimator, "group_size": group_size, "batch": batch, "steps": steps, "seed": seed,
                 "lr": lr, "sft_from": sft_from, "sft_examples": sft_examples, "heldout": heldout,
                 "eval_every": eval_every, "time_budget_s": time_budget, "concurrency": concurrency,
                 "eval_concurrency": eval_concurrency,
                 "eval_limit": eval_limit, "keep": keep}
        values.update({k: v for k, v in flags.items() if v is not None})
        if config:
            values["config"] = {**values.get("config", {}), **parse_settings(config, "setting")}
        if gen:
            values["gen"] = {**values.get("gen", {}), **parse_settings(gen, "generation setting")}
        if shaping:
            values["shaping"] = {**values.get("shaping", {}), **parse_settings(shaping, "shaping term")}
        if no_final_eval:
            values["final_eval"] = False
        for needed, flag in (("workflow", "WORKFLOW"), ("suite", "--suite"), ("eval_suite", "--eval-suite")):
            if not values.get(needed):
                raise UserError(f"give {flag} (or set {needed} in --config-file)")
        settings = settings_from(values, "paperworks train")
        _check(settings)
        if not out:
            raise UserError("give --out DIR (where the adapter, checkpoints and results go)")
        folder = Path(out)
        from paperworks.train.loop import prepare

        settings = prepare(folder, settings, resume=False)
    from paperworks.train.loop import Trainer

    view = _TrainView(settings.steps, quiet)
    try:
        with view.bar:
            results = Trainer(folder, settings, view).run()
    except KeyboardInterrupt:
        err_console.print(f"cancelled; a checkpoint was saved. Continue with: paperworks train --resume {folder}")
        from paperworks.cli.exits import hard_exit

        hard_exit(130)
        return
    acc = results.get(f"{Path(settings.eval_suite).name}_accuracy")
    base = results.get("base_accuracy")
    console.print(f"adapter: {results['eval_model']}")
    if acc is not None:
        console.print(f"{settings.eval_suite}: {base if base is not None else '-'} (base) -> {acc:.3f} (trained)")
    console.print(f"results: {folder / 'results.json'}")


def _check(settings: Any) -> None:
    """Refuse in one line, before anything is created: an unknown workflow or suite, a suite without a
    scorer, a workflow that does not match the eval suite's, bad -c/--gen settings, an unknown model."""
    from paperworks.core.errors import UserError
    from paperworks.eval.suite import load_suite
    from paperworks.models.gateway import check_model
    from paperworks.models.types import validate_generation
    from paperworks.train.problems import ProblemSource
    from paperworks.workflows.registry import get_workflow

    spec = get_workflow(settings.workflow)
    target = load_suite(settings.eval_suite)
    if not target.spec.scorers:
        raise UserError(f"suite '{target.spec.name}' has no scorer: nothing can judge a rollout")
    if target.spec.workflow != spec.name:
        raise UserError(f"suite '{target.spec.name}' is solved by workflow '{target.spec.workflow}', not "
                        f"'{spec.name}'")
    spec.parse_config({**(target.spec.config or {}), **settings.config})
    validate_generation(settings.gen, "--gen")
    check_model(settings.model)
    source = ProblemSource(settings.suite, settings.eval_suite)
    shaped = load_suite(source.like)
    if shaped.spec.workflow != spec.name:
        raise UserError(f"--suite {settings.suite} makes problems for workflow '{shaped.spec.workflow}' (like suite "
                        f"'{shaped.spec.name}'), not '{spec.name}'")
    if settings.sft_from == "oracle" and (spec.name, source.name) not in {("agent", "arith"), ("agent", "arith_wide"),
                                                                          ("spada", "spada")}:
        raise UserError(f"--sft-from oracle: no scripted oracle trajectories for workflow '{spec.name}' with "
                        f"--suite {settings.suite} (only agent with gen:arith or gen:arith_wide, spada with "
                        "gen:spada); pass an adapter folder instead")
    if settings.sft_from and settings.sft_from != "oracle":
        _check_warm_start(Path(settings.sft_from), settings)
    if settings.shaping:
        from paperworks.eval.scorers import get_scorer

        judge = shaped.spec.scorers[0] if shaped.spec.scorers else None
        known = ["tool_format", *(get_scorer(judge.name, spec.scorers).metrics if judge else ())]
        unknown = sorted(set(settings.shaping) - set(known))
        if unknown:
            raise UserError(f"--shaping: unknown term(s) {unknown} for --suite {settings.suite}; known: "
                            f"{', '.join(known)} (tool_format, and the sub-metrics the suite's scorer "
                            f"'{judge.name if judge else '-'}' reports)")


def _check_warm_start(folder: Path, settings: Any) -> None:
    """Refuse in one line a ``--sft-from`` folder that is not a saved adapter of this run's shape (rank,
    alpha and adapted layers must match: the trainer copies its tensors into the run's own LoRA)."""
    from paperworks.core.errors import UserError
    from paperworks.models.local.smollm import LocalModelError, check_adapter_dir

    try:
        check_adapter_dir(folder.expanduser().resolve())
        config = json.loads((folder / "adapter_config.json").read_text(encoding="utf-8"))
    except LocalModelError as exc:
        raise UserError(f"--sft-from: {exc}") from None
    except (OSError, ValueError) as exc:
        raise UserError(f"--sft-from: {folder / 'adapter_config.json'} is unreadable ({exc})") from None
    if not isinstance(config, dict):
        raise UserError(f"--sft-from: {folder / 'adapter_config.json'} is not a JSON object")
    theirs = {"r": config.get("r"), "lora_alpha": config.get("lora_alpha"),
              "target_modules": sorted(config.get("target_modules") or [])}
    ours = {"r": settings.lora_rank, "lora_alpha": settings.lora_alpha, "target_modules": sorted(settings.lora_targets)}
    for key, value in ours.items():
        mine = theirs[key]
        if key == "lora_alpha" and isinstance(mine, int | float) and float(mine) == float(value):
            continue
        if mine != value:
            raise UserError(f"--sft-from {folder}: its {key} is {mine!r}, this run's is {value!r} "
                            "(set lora_rank / lora_alpha / lora_targets to the adapter's)")
