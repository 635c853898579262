"""``paperworks repro gradmem``: (1) a tiny Llama meta-trained on key–value retrieval on this CPU — exact
match against the number of pairs for GradMem with K ∈ {1, 2, 5} and for the forward writer of the same
memory size, mean ± standard error over the reported seeds; (2) the capacity diagnostic — the K = 2 writer's
exact match against the memory size ``m`` and the number of meta-training steps (:mod:`.capacity`; the grid is
set by ``PAPERWORKS_GRADMEM_GRID``); (3) frozen SmolLM2-135M — exact match against write steps on generated
stories.

Protocol (1). Per reported seed, one randomly initialised tiny Llama and one ``M0``; each writer gets its own
copy and is meta-trained for the same number of outer steps with the same recipe: AdamW on the target
cross-entropy plus 0.5 × the write's reconstruction loss (the authors' preset), a gated curriculum over pairs
(the next size unlocks once the newest reaches 60% training exact match), the model's weights and ``M0`` both
trained (GradMem: second-order MAML through its ``K`` inner SGD steps at the authors' inner lr 0.04 with the
authors' write head, each sample's inner gradient clipped to norm 1). Evaluation on held-out contexts of each
size, every pair queried; then the K = 2 writer is read after more (or fewer) write steps than it was trained
with, and the forward writer after more passes. Seeds: the reported seeds were fixed before any run; the
hyperparameters that trial runs chose (outer lr, inner clipping, gate) were looked at on the validation seed
only, which is not reported. How this differs from the authors' code: :mod:`.differences`. Protocol (3) is in
:mod:`.lm_stories`.

Sizes for a busy CPU, as environment variables (all recorded in ``results.json``'s ``config``):
``PAPERWORKS_GRADMEM_GRID`` (the grid), ``PAPERWORKS_GRADMEM_GRID_SEEDS`` (seeds of the grid cells beyond
``m = n_mem``), ``PAPERWORKS_GRADMEM_WORKERS`` (processes side by side; the same numbers) and
``PAPERWORKS_GRADMEM_STORY`` (``run``, ``reuse`` the previous part (3) unchanged, ``off``).
"""

from __future__ import annotations

import copy
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import torch

from paperworks.backends._validate import BackendInputError
from paperworks.backends.gradmem.capacity import grid_spec, parse_grid, train_with_checkpoints
from paperworks.backends.gradmem.data import ALPHABET, CharTokenizer, KVTaskConfig
from paperworks.backends.gradmem.forward import ForwardWriter, ForwardWriterConfig
from paperworks.backends.gradmem.kv_report import KVAcc, kv_report
from paperworks.backends.gradmem.lm_stories import StoryExpConfig, run_story_experiment
from paperworks.backends.gradmem.maml import MetaTrainConfig, kv_exact_match, meta_train
from paperworks.backends.gradmem.memory import GradMem, GradMemConfig
from paperworks.backends.gradmem.plots import plot_story_steps
from paperworks.backends.gradmem.tiny import tiny_llama
from paperworks.backends.repro import Figure, Progress, ReproResult, no_progress, with_torch_threads
from paperworks.core.tracking import scope

STORY_ENV = "PAPERWORKS_GRADMEM_STORY"
"""Environment variable: ``run`` (default), ``reuse`` or ``off`` for part (3) (see ``story_mode``)."""
GRID_SEEDS_ENV = "PAPERWORKS_GRADMEM_GRID_SEEDS"
"""Environment variable: comma-separated reported seeds for the grid cells beyond ``m = n_mem``."""
WORKERS_ENV = "PAPERWORKS_GRADMEM_WORKERS"
"""Environment variable: processes that run the seeds and grid cells side by side (default 1: in this process)."""

@dataclass
class GradMemReproConfig:
    """Sizes of the experiment (``quick`` preset in :func:`preset`)."""

    layers: int = 4
    """Tiny Llama depth (the authors' KV preset: 4)."""
    heads: int = 4
    """Attention heads (preset: 4)."""
    hidden: int = 128
    """Width (preset: 128)."""
    key_len: int = 1
    """Characters per key (the authors': 2; 1 keeps contexts short on a CPU)."""
    value_len: int = 1
    """Characters per value."""
    alphabet: str = ALPHABET
    """Key and value characters (36: chance exact match is 1/36 per value)."""
    n_mem: int = 8
    """Memory vectors m, the same for every writer (preset: 8)."""
    inner_lr: float = 0.04
    """GradMem's inner SGD learning rate, the same for every K (the authors' preset: 0.04)."""
    inner_clip_norm: float | None = 1.0
    """Clip each sample's inner memory gradient to this 2-norm (the authors' code has the option, off in
    their preset). Unclipped, K = 5 learned one pair and then collapsed after an inner-gradient spike (norm
    ~40) in a trial run on the validation seed; clipped, it trained stably. Applied to every K alike."""
    write_head: bool = True
    """GradMem's write loss through a separate, meta-learned vocabulary head (the authors' KV preset)."""
    gradmem_steps: tuple[int, ...] = (1, 2, 5)
    """One GradMem writer meta-trained per K."""
    forward_passes: int = 1
    """Forward passes of the baseline writer."""
    test_steps: tuple[int, ...] = (1, 2, 5, 10)
    """Write steps tried at test time on the K = 2 writer (and passes on the forward writer)."""
    train_steps: int = 300
    """Outer steps per writer."""
    batch: int = 16
    """Contexts per outer step."""
    lr: float = 1e-3
    """Outer AdamW learning rate (3e-3 stalled in a trial run on the validation seed)."""
    recon_weight: float = 0.5
    """Weight of the write's reconstruction loss in the outer loss, for every writer (the authors' GradMem
    preset: 0.5; the forward writer computes it from its written memory)."""
    curriculum: str = "gated"
    """Curriculum over ``train_pairs`` (see :class:`MetaTrainConfig`)."""
    train_pairs: tuple[int, ...] = (1, 2, 4, 8)
    """Pairs of the training curriculum."""
    eval_pairs: tuple[int, ...] = (1, 2, 4, 8, 16)
    """Pairs evaluated (16 is beyond training)."""
    eval_contexts: int = 64
    """Held-out contexts per size (every pair of each queried)."""
    reported_seeds: tuple[int, ...] = (1, 2, 3)
    """Seeds whose results are reported (mean ± standard error), fixed before any run. A seed sets the model,
    ``M0`` and the training data; evaluation contexts come from ``seed + 1000``."""
    validation_seeds: tuple[int, ...] = (0,)
    """Seeds that trial runs looked at to choose hyperparameters; never reported."""
    grid: str = "m=4,8,16,32;steps=100,300"
    """The capacity diagnostic: memory sizes and meta-training steps (checkpoints of one K = 2 run per m and
    seed), as parsed by :func:`.capacity.parse_grid`; ``PAPERWORKS_GRADMEM_GRID`` replaces it."""
    workers: int = 1
    """Processes that run the seeds and grid cells side by side (``PAPERWORKS_GRADMEM_WORKERS``); curves
    recorded by ``track`` in other processes reach ``results.json`` through ``extra`` only."""
    threads: int = 1
    """torch CPU threads during the run (1: the cores are shared; more threads oversubscribe them)."""
    story: StoryExpConfig = field(default_factory=StoryExpConfig)
    """The frozen-LM experiment."""
    run_story: bool = True
    """Run part (3) (needs the embedded SmolLM2-135M)."""
    story_mode: str = "run"
    """``run`` part (3); ``reuse``: copy part (3)'s figures, plot and data unchanged from the ``results.json``
    already in the output folder, each note saying so (``PAPERWORKS_GRADMEM_STORY``; for a CPU too busy to
    re-run it); ``off``: skip it."""
    grid_seeds: tuple[int, ...] | None = None
    """Seeds of the grid cells that the main comparison does not cover (None: the reported seeds;
    ``PAPERWORKS_GRADMEM_GRID_SEEDS``, a subset of the reported seeds, when time is short)."""


def preset(quick: bool) -> GradMemReproConfig:
    """Default (tens of minutes on a shared 2-core CPU) or ``quick`` (about a minute)."""
    if quick:
        return GradMemReproConfig(layers=2, hidden=64, train_steps=40, batch=8, train_pairs=(1, 2),
                                  eval_pairs=(1, 2, 4), eval_contexts=16, test_steps=(1, 2, 5),
                                  reported_seeds=(1,), grid="m=4,8;steps=20,40",
                                  story=StoryExpConfig(candidates=4, keep=2, steps=(0, 1, 2)))
    return GradMemReproConfig()


def _base(cfg: GradMemReproConfig, vocab: int, seed: int, n_mem: int) -> tuple[Any, torch.Tensor]:
    base = tiny_llama(vocab, layers=cfg.layers, heads=cfg.heads, hidden=cfg.hidden, seed=seed)
    torch.manual_seed(seed + 1)
    return base, torch.randn(n_mem, cfg.hidden) * 0.02  # the same M0 for every writer of a seed


def _gradmem(cfg: GradMemReproConfig, base: Any, init: torch.Tensor, k: int) -> GradMem:
    gcfg = GradMemConfig(n_mem=init.shape[0], steps=k, inner_lr=cfg.inner_lr, clip_norm=cfg.inner_clip_norm,
                         write_head=cfg.write_head)
    return GradMem(copy.deepcopy(base), gcfg, init=init)


def _writers(cfg: GradMemReproConfig, vocab: int, seed: int) -> dict[str, Any]:
    base, init = _base(cfg, vocab, seed, cfg.n_mem)
    out: dict[str, Any] = {f"GradMem K={k}": _gradmem(cfg, base, init, k) for k in cfg.gradmem_steps}
    fcfg = ForwardWriterConfig(n_mem=cfg.n_mem, passes=cfg.forward_passes, recon_loss=cfg.recon_weight > 0)
    out[f"Forward writer ({cfg.forward_passes} pass)"] = ForwardWriter(copy.deepcopy(base), fcfg, init=init)
    return out


def run(out: Path, quick: bool = False, scale: str = "cpu", progress: Progress = no_progress) -> ReproResult:
    """Run the experiment into ``out``; see the module docstring."""
    cfg = preset(quick)
    spec = grid_spec()
    workers = os.environ.get(WORKERS_ENV)
    if workers is not None and not (workers.isdigit() and int(workers) >= 1):
        raise BackendInputError(f"{WORKERS_ENV} must be an integer >= 1, got {workers!r}")
    cfg = replace(cfg, grid=cfg.grid if spec is None else spec,
                  workers=cfg.workers if workers is None else int(workers))
    story = os.environ.get(STORY_ENV, cfg.story_mode)
    if story not in ("run", "reuse", "off"):
        raise BackendInputError(f"{STORY_ENV} must be run, reuse or off, got {story!r}")
    cfg = replace(cfg, story_mode=story, run_story=cfg.run_story and story != "off")
    seeds = os.environ.get(GRID_SEEDS_ENV)
    if seeds is not None:
        try:
            chosen = tuple(int(x) for x in seeds.split(",") if x.strip())
        except ValueError:
            chosen = ()
        if not chosen or not set(chosen) <= set(cfg.reported_seeds):
            raise BackendInputError(f"{GRID_SEEDS_ENV} must list reported seeds {list(cfg.reported_seeds)}, "
                                    f"got {seeds!r}")
        cfg = replace(cfg, grid_seeds=chosen)
    parse_grid(cfg.grid)  # one-line error for a bad spec before anything runs
    return with_torch_threads(cfg.threads, lambda: _run(out, cfg, progress))


def _task_data(cfg: GradMemReproConfig) -> tuple[KVTaskConfig, CharTokenizer]:
    task = KVTaskConfig(key_len=cfg.key_len, value_len=cfg.value_len, alphabet=cfg.alphabet)
    return task, CharTokenizer(cfg.alphabet)


def _train_cfg(cfg: GradMemReproConfig, seed: int, steps: int) -> MetaTrainConfig:
    return MetaTrainConfig(steps=steps, batch=cfg.batch, lr=cfg.lr, pairs=cfg.train_pairs, seed=seed,
                           recon_weight=cfg.recon_weight, curriculum=cfg.curriculum)


def _test_em(cfg: GradMemReproConfig, writer: Any, tok: CharTokenizer, task: KVTaskConfig, seed: int,
             name: str, option: str) -> dict[str, dict[int, float]]:
    opts: dict[str, Any] = {}
    table: dict[str, dict[int, float]] = {}
    for s in cfg.test_steps:
        opts[option] = s
        table[name.format(s)] = {n: kv_exact_match(writer, tok, task, n, cfg.eval_contexts, seed + 1000, **opts)
                                 for n in cfg.eval_pairs}
    return table


def kv_task(cfg: GradMemReproConfig, kind: str, seed: int, m: int = 0, only: str | None = None) -> dict[str, Any]:
    """One independent piece of the key–value part (run here or in a worker process), as plain data.

    ``kind="main"``: every writer of the comparison for ``seed`` (the K = 2 writer also gives the grid's cells
    of ``m = n_mem``: it is evaluated at its checkpoints and, at ``train_steps``, read with other step counts);
    ``only``: just the writer of that label (the same numbers as within the whole task).
    ``kind="grid"``: the K = 2 writer with ``m`` memory vectors, evaluated at the grid's checkpoints for ``m``."""
    torch.set_num_threads(cfg.threads)
    task, tok = _task_data(cfg)
    grid = parse_grid(cfg.grid)
    out: dict[str, Any] = {"seed": seed, "em": {}, "test_em": {}, "curves": {}, "times": {}, "reached": {},
                           "grid": {}}
    if kind == "grid":
        base, init = _base(cfg, tok.vocab_size, seed, m)
        with scope(f"grid/m{m}/seed{seed}"):
            _, em, _ = train_with_checkpoints(_gradmem(cfg, base, init, 2), tok, task, _train_cfg(cfg, seed, 0),
                                              grid[m], cfg.eval_pairs, cfg.eval_contexts, seed + 1000)
        out["grid"][m] = em
        return out
    writers = _writers(cfg, tok.vocab_size, seed)
    out["memory_parameters"] = {k: w.memory_parameters() for k, w in writers.items()}
    k2 = "GradMem K=2" if "GradMem K=2" in writers else next(iter(writers))
    k2_name = "GradMem K=2, {} steps at test"
    for label, writer in writers.items():
        if only is not None and label != only:
            continue
        with scope(f"kv/seed{seed}/{label}"):
            if label == "GradMem K=2" and cfg.n_mem in grid:
                def at_ckpt(step: int, w: Any = writer) -> None:
                    if step == cfg.train_steps:
                        out["test_em"].update(_test_em(cfg, w, tok, task, seed, k2_name, "steps"))
                marks = tuple(grid[cfg.n_mem]) + (cfg.train_steps,)
                hist, em, cpu = train_with_checkpoints(writer, tok, task, _train_cfg(cfg, seed, 0), marks,
                                                       cfg.eval_pairs, cfg.eval_contexts, seed + 1000, at_ckpt)
                out["grid"][cfg.n_mem] = {s: em[s] for s in grid[cfg.n_mem]}
                out["em"][label], out["times"][label] = em[cfg.train_steps], cpu[cfg.train_steps]
                hist = hist[:cfg.train_steps]
            else:
                start = time.process_time()
                hist = meta_train(writer, tok, task, _train_cfg(cfg, seed, cfg.train_steps))
                out["times"][label] = time.process_time() - start
                out["em"][label] = {n: kv_exact_match(writer, tok, task, n, cfg.eval_contexts, seed + 1000)
                                    for n in cfg.eval_pairs}
                if label == k2:
                    out["test_em"].update(_test_em(cfg, writer, tok, task, seed, k2_name, "steps"))
        out["curves"][label] = [h["loss"] for h in hist]
        out["reached"][label] = int(hist[-1]["unlocked"])
    fw_label, fw = next((label, w) for label, w in writers.items() if label.startswith("Forward"))
    if only is None or only == fw_label:
        out["test_em"].update(_test_em(cfg, fw, tok, task, seed, "Forward writer, {} passes at test", "passes"))
    return out


def _tasks(cfg: GradMemReproConfig) -> list[tuple[str, int, int, str | None]]:
    """One task per (seed, writer) of the main comparison and per grid cell it does not cover, the most
    expensive first (more memory, more write steps) so that parallel workers finish together."""
    grid = parse_grid(cfg.grid)
    labels = [f"GradMem K={k}" for k in cfg.gradmem_steps] + [f"Forward writer ({cfg.forward_passes} pass)"]
    covered = cfg.n_mem if "GradMem K=2" in labels else None
    seeds = cfg.grid_seeds if cfg.grid_seeds is not None else cfg.reported_seeds
    tasks: list[tuple[float, tuple[str, int, int, str | None]]] = []
    for s in cfg.reported_seeds:
        for label in labels:
            k = int(label.split("=")[1]) if label.startswith("GradMem") else 1
            cost = cfg.n_mem * k * (max(grid.get(cfg.n_mem, (0,)) + (cfg.train_steps,)) if k == 2 else cfg.train_steps)
            tasks.append((cost, ("main", s, 0, label)))
    for m in grid:
        if m != covered:
            tasks += [(m * 2 * max(grid[m]), ("grid", s, m, None)) for s in seeds]
    return [t for _, t in sorted(tasks, key=lambda x: -x[0])]


def _run(out: Path, cfg: GradMemReproConfig, progress: Progress) -> ReproResult:
    out.mkdir(parents=True, exist_ok=True)
    res = ReproResult(name="gradmem", config=asdict(cfg))
    acc = KVAcc()
    tasks = _tasks(cfg)
    name = lambda kind, seed, m, only: f"{kind} seed {seed}" + (f", m={m}" if kind == "grid" else f", {only}")  # noqa: E731
    if cfg.workers <= 1:
        for task in tasks:
            progress(f"kv: {name(*task)}")
            acc.merge(kv_task(cfg, *task))
        _story_part(res, cfg, out, progress)
    else:
        progress(f"kv: {len(tasks)} tasks in {cfg.workers} processes")
        with ProcessPoolExecutor(max_workers=cfg.workers, mp_context=get_context("spawn")) as pool:
            futures = [pool.submit(kv_task, cfg, *task) for task in tasks]
            _story_part(res, cfg, out, progress)  # meanwhile, in this process
            for task, fut in zip(tasks, futures, strict=True):
                acc.merge(fut.result())
                progress(f"kv: done {name(*task)}")
    kv_report(res, cfg, acc, out)
    return res


def _story_part(res: ReproResult, cfg: GradMemReproConfig, out: Path, progress: Progress) -> None:
    if cfg.story_mode == "reuse":
        _reuse_story(res, out)
    elif cfg.run_story:
        _story(res, cfg, out, progress)


def _reuse_story(res: ReproResult, out: Path) -> None:
    """Part (3) copied from the previous ``results.json`` in ``out`` (its code is unchanged), each note saying so."""
    import json

    old = out / "results.json"
    if not old.is_file():
        raise BackendInputError(f"{STORY_ENV}=reuse needs a previous {old}")
    data = json.loads(old.read_text())
    origin = f"carried over unchanged from the previous run ({data.get('command')}, {data.get('elapsed_s')} s); "
    for key, fig in data.get("figures", {}).items():
        if key.startswith("story"):
            res.figures[key] = Figure(fig["value"], paper=fig.get("paper"), unit=fig.get("unit", ""),
                                      note=origin + "not re-run: " + fig.get("note", ""))
    if "story" in data.get("extra", {}):
        res.extra["story"] = data["extra"]["story"]
        res.extra["story_source"] = origin.rstrip("; ")
    if "story_em_vs_steps.png" in data.get("plots", []) and (out / "story_em_vs_steps.png").is_file():
        res.plots.append("story_em_vs_steps.png")


def _story(res: ReproResult, cfg: GradMemReproConfig, out: Path, progress: Progress) -> None:
    from paperworks.models.local import get_local_model
    from paperworks.models.local.smollm import LocalModelError

    progress("stories: loading SmolLM2-135M (torch engine)")
    try:
        local = get_local_model("smollm2-135m-torch")
    except LocalModelError as exc:
        res.figures["story_em"] = Figure(None, note=f"skipped: {exc}")
        return
    progress("stories: the ceiling (story in the prompt) and the floor (no story)")
    s = run_story_experiment(local, cfg.story, progress)
    sc = cfg.story
    f = res.figures
    f["story_ceiling_all"] = Figure(round(s["ceiling_all"], 4), note=f"{s['tried']} generated stories, story in the "
                                    f"prompt; {s['kept']} answered correctly are kept (ceiling on them: 100%)")
    f["story_floor"] = Figure(round(s["floor"], 4), note="kept stories, question without the story")
    for k, v in s["em_by_steps"].items():
        f[f"story_em[K={k}]"] = Figure(round(v, 4), paper="competitive on bAbI from memory alone (with "
                                       "meta-trained pretrained LMs)" if k == max(sc.steps) else None,
                                       note=f"{s['kept']} kept stories, m={sc.n_mem}, {sc.optimiser} "
                                            f"lr {sc.inner_lr}, frozen model, no meta-training; reconstruction "
                                            f"loss {s['recon_by_steps'][k]:.3f}")
    top = max(sc.steps)
    f[f"story_em_other_memory[K={top}]"] = Figure(
        round(s["em_other_memory_by_steps"][top], 4),
        note="control: each question read from the next kept story's memory (bias toward room words, not facts)")
    f[f"story_room_answers[K={top}]"] = Figure(round(s["room_answer_by_steps"][top], 4),
                                               note="share of memory answers that name one of the six rooms")
    plot_story_steps(s["em_by_steps"], s["recon_by_steps"], s["ceiling_kept"], s["floor"],
                     out / "story_em_vs_steps.png",
                     f"Frozen SmolLM2-135M: answers from {sc.n_mem} memory vectors ({s['kept']} stories)",
                     other=s["em_other_memory_by_steps"])
    res.plots.append("story_em_vs_steps.png")
    res.extra["story"] = {k: ({str(n): x for n, x in v.items()} if k.endswith("_by_steps") else v)
                          for k, v in s.items()}
