"""``paperworks train``: RL of the embedded model through real workflow runs.

One step: the step's generated problems run as an eval with ``N`` rollouts each on the llama.cpp engine
serving the current adapter (rollout; the suite's scorers judge each one) → the trajectories' recorded
tokens and the judge's rewards give advantages and one LoRA update of the torch copy (update) → the
adapter is saved, converted to a llama.cpp LoRA GGUF and swapped into the serving engine (swap) → a
checkpoint. Every ``eval_every`` steps the adapter answers held-out generated problems greedily.

``DIR``: ``train.json`` (settings, versions), ``adapter/`` (the current adapter: PEFT files and
``adapter.gguf``; ``-m local/<model>@DIR/adapter`` serves it anywhere), ``checkpoints/``, ``rollouts/``
and ``heldout/`` and ``eval/`` (eval run directories), ``log.jsonl`` (one line per step), ``tb/``
(TensorBoard) and ``results.json``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from paperworks.core.errors import UserError
from paperworks.core.runs import git_sha, now_iso, versions
from paperworks.train import checkpoint
from paperworks.train.evaluate import EvalOutcome, evaluate
from paperworks.train.memory import PhaseMemory
from paperworks.train.problems import ProblemSource
from paperworks.train.rollouts import RolloutRecord, run_rollouts
from paperworks.train.settings import TrainSettings

Progress = Callable[[dict[str, Any]], None]


class Trainer:
    """A training run in ``out``: started fresh or resumed from its latest checkpoint."""

    def __init__(self, out: Path, settings: TrainSettings, progress: Progress | None = None) -> None:
        self.out = out.resolve()
        self.s = settings
        self.progress = progress or (lambda info: None)
        self.source = ProblemSource(settings.suite, settings.eval_suite)
        self.base = settings.model.removeprefix("local/")
        self.adapter_dir = self.out / "adapter"
        self.serving = f"{settings.model}@{self.adapter_dir}"
        self.kept_dir = self.adapter_dir
        """The adapter the final eval and ``eval_model`` use (``keep``)."""
        self.state: dict[str, Any] = {"step": 0, "sft_done": settings.sft_from is None, "rollout_tokens": 0,
                                      "samples": 0, "phases": {"rollout": 0.0, "judge": 0.0, "update": 0.0,
                                                               "swap": 0.0, "sft": 0.0, "eval": 0.0},
                                      "history": [], "heldout": [], "base_eval": None, "swap_s": []}
        self.policy: Any = None
        self.mem = PhaseMemory()

    # ------------------------------------------------------------------ set-up

    def _load_policy(self) -> None:
        from paperworks.backends.otb.agent_rl import AgentPolicy, LoRASettings
        from paperworks.models.local.smollm import load_local_model

        local = load_local_model(self.base)
        lora = LoRASettings(rank=self.s.lora_rank, alpha=self.s.lora_alpha, targets=tuple(self.s.lora_targets))
        self.policy = AgentPolicy(local.model, lora, lr=self.s.lr, seed=self.s.seed)
        self.tokenizer = local.tokenizer
        kept = checkpoint.latest(self.out)
        if kept is not None:
            self.policy.load_adapter(kept / "adapter")
            self.state.update(self.policy.load_state(kept))
            self.mem = PhaseMemory(self.state.get("phase_peak_rss_mb"))
        elif self.s.sft_from and self.s.sft_from != "oracle":
            self.policy.load_adapter(Path(self.s.sft_from))
            self.state["sft_done"] = True

    def _serve(self) -> float:
        """Save the adapter, convert it for llama.cpp and swap it into the engine; returns seconds."""
        from paperworks.models.local.engines import get_engine
        from paperworks.models.local.smollm import adapter_stamp

        started = time.monotonic()
        with self.mem.phase("swap"):
            self.policy.save_adapter(self.adapter_dir)
            # the engine of "<model>@<adapter dir>" converts the changed adapter and swaps it in between its steps
            engine: Any = get_engine(self.serving.removeprefix("local/"))
        if getattr(engine, "adapter_stamp", None) != adapter_stamp(self.adapter_dir):
            raise UserError(f"the llama.cpp engine did not take the updated adapter in {self.adapter_dir}")
        took = time.monotonic() - started
        self.state["swap_s"].append(round(took, 3))
        return took

    def _checkpoint(self) -> None:
        self.state["phase_peak_rss_mb"] = dict(self.mem.peaks)

        def fill(folder: Path) -> None:
            self.policy.save_adapter(folder / "adapter")
            self.policy.save_state(folder, self.state)

        checkpoint.write(self.out, int(self.state["step"]), fill)

    # ------------------------------------------------------------------ phases

    def _eval(self, suite: str, where: str, model: str, limit: int | None = None) -> EvalOutcome:
        started = time.monotonic()
        with self.mem.phase(where.split("/")[0] if where.startswith("heldout") else where.replace("/", "_")):
            outcome = evaluate(suite, self.out / where, model, config=self.s.config, seed=self.s.seed,
                               concurrency=self.s.eval_concurrency or self.s.concurrency, limit=limit)
        self.state["phases"]["eval"] += time.monotonic() - started
        return outcome

    def _release_base_engine(self) -> None:
        """The base model's engine served only the base eval: free it (about 0.7 GB for SmolLM2-135M)."""
        from paperworks.models.local.engines import close_engine

        close_engine(self.base)

    def _heldout(self, step: int) -> None:
        if not self.s.heldout:
            return
        folder = self.out / "heldout" / "suite"
        self.source.write(self.source.heldout_rows(self.s.seed, self.s.heldout), folder)
        outcome = self._eval(str(folder), f"heldout/step-{step:06d}", self.serving)
        self.state["heldout"].append({"step": step, "rollout_tokens": self.state["rollout_tokens"],
                                      "accuracy": outcome.accuracy, "mean_reward": outcome.mean_reward,
                                      "run_dir": outcome.run_dir})
        self.progress({"event": "heldout", "step": step, "accuracy": outcome.accuracy})
        if self.s.keep == "best_heldout":
            self._keep_if_best(step, outcome.accuracy)

    def _best(self) -> dict[str, Any] | None:
        """``adapter_best/best.json``: the step and held-out accuracy of the adapter kept there (the folder is
        the only record, so it cannot disagree with a checkpoint after a kill)."""
        try:
            return dict(json.loads((self.out / "adapter_best" / "best.json").read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return None

    def _keep_if_best(self, step: int, accuracy: float | None) -> None:
        import shutil

        best = self._best()
        if accuracy is None or (best is not None and accuracy <= float(best["heldout_accuracy"])):
            return
        tmp = self.out / "adapter_best.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        for name in ("adapter_config.json", "adapter_model.safetensors"):
            shutil.copy2(self.adapter_dir / name, tmp / name)
        (tmp / "best.json").write_text(json.dumps({"step": step, "heldout_accuracy": accuracy}) + "\n",
                                       encoding="utf-8")
        shutil.rmtree(self.out / "adapter_best", ignore_errors=True)
        tmp.replace(self.out / "adapter_best")

    def _sft(self) -> None:
        with self.mem.phase("sft"):
            self._sft_run()

    def _sft_run(self) -> None:
        from paperworks.models.local.engines import get_engine
        from paperworks.train.sft import oracle_examples

        started = time.monotonic()
        rows = self.source.sft_rows(self.s.seed, self.s.sft_examples)
        self.source.check_disjoint([rows])
        suite = self.source.write(rows, self.out / "sft" / "suite")
        by_id = {str(r["id"]): r for r in rows}
        items = [(s.input, by_id[s.id]) for s in suite.samples]
        engine = get_engine(self.serving.removeprefix("local/"))
        examples = oracle_examples(items, self.source.oracle, self.s.workflow,
                                   {**(suite.spec.config or {}), **self.s.config}, engine)
        import random

        rng = random.Random(self.s.seed)
        per_traj = max(1, len(examples) // max(1, len(items)))
        batch = self.s.sft_batch * per_traj
        n = 0
        for epoch in range(self.s.sft_epochs):
            order = list(range(len(examples)))
            rng.shuffle(order)
            for at in range(0, len(order), batch):
                chunk = [examples[i] for i in order[at: at + batch]]
                stats = self.policy.sft_step(chunk, lr=self.s.sft_lr, max_grad_norm=self.s.max_grad_norm,
                                             micro_batch_tokens=self.s.micro_batch_tokens,
                                             checkpointing=self.s.checkpointing)
                n += 1
                self.tracker.record("sft/loss", stats["sft_loss"], n)
                self.progress({"event": "sft", "epoch": epoch + 1, "done": min(at + batch, len(order)),
                               "total": len(order), **stats})
        self.state["sft_done"] = True
        self.state["sft"] = {"examples": len(examples), "problems": len(items), "steps": n}
        self.state["phases"]["sft"] += time.monotonic() - started

    def _step(self, step: int) -> dict[str, Any]:
        from paperworks.backends.otb.agent_rl import Call, Trajectory, UpdateSettings

        rows = self.source.step_rows(self.s.seed, step, self.s.batch)
        self.source.check_disjoint([rows])
        folder = self.out / "rollouts" / f"step-{step:06d}"
        self.source.write(rows, folder / "suite")
        with self.mem.phase("rollout"):
            got = run_rollouts(folder / "suite", folder, model=self.serving, epochs=self.s.group_size,
                               seed=self.s.seed * 7919 + step * 1000, temperature=self.s.temperature,
                               concurrency=self.s.concurrency, config=self.s.config, gen=self.s.gen)
        groups = {sid: i for i, sid in enumerate(dict.fromkeys(r.sample_id for r in got.records))}
        trajs = [Trajectory(group=groups[r.sample_id], reward=self._reward(r),
                            calls=[Call(c.prompt_ids, c.completion_ids, c.logprobs, c.proxies) for c in r.calls])
                 for r in got.records]
        started = time.monotonic()
        upd = UpdateSettings(estimator=self.s.estimator, lr=self.s.lr, is_cap=self.s.is_cap,
                             max_grad_norm=self.s.max_grad_norm, temperature=self.s.temperature,
                             micro_batch_tokens=self.s.micro_batch_tokens, checkpointing=self.s.checkpointing)
        with self.mem.phase("update"):
            stats = self.policy.rl_step(trajs, upd)
        update_s = time.monotonic() - started
        with open(folder / "trained.jsonl", "w", encoding="utf-8") as fh:  # what the update used, for audits
            for prompt, completion in self.policy.last_items:
                fh.write(json.dumps({"prompt_ids": prompt, "completion_ids": completion}) + "\n")
        swap_s = self._serve()
        tokens = sum(r.tokens for r in got.records)
        sampled = sum(len(c.completion_ids) for r in got.records for c in r.calls)
        phases = self.state["phases"]
        phases["rollout"] += got.wall_s - got.judge_s
        phases["judge"] += got.judge_s
        phases["update"] += update_s
        phases["swap"] += swap_s
        self.state["rollout_tokens"] += tokens
        self.state["samples"] += len(got.records)
        n = max(1, len(got.records))
        line = {"step": step + 1, "reward": sum(r.reward for r in got.records) / n,
                "accuracy": sum(r.passed for r in got.records) / n,
                "tool_format": sum(r.shaping.get("tool_format", 0.0) for r in got.records) / n,
                "shaping": {k: sum(r.shaping.get(k, 0.0) for r in got.records) / n for k in self.s.shaping},
                "trained_reward": sum(self._reward(r) for r in got.records) / n,
                "rollout_tokens": tokens, "sampled_tokens": sampled, "rollout_s": round(got.wall_s, 2),
                "judge_s": round(got.judge_s, 3), "update_s": round(update_s, 2), "swap_s": round(swap_s, 3),
                "tokens_per_s": round(sampled / got.wall_s, 1) if got.wall_s > 0 else None,
                "samples_per_min": round(60 * len(got.records) / got.wall_s, 2) if got.wall_s > 0 else None,
                "missing_token_records": sum(1 for r in got.records if not r.calls),
                "cumulative_rollout_tokens": self.state["rollout_tokens"], "run_dir": str(got.run_dir), **stats}
        return line

    def _reward(self, record: RolloutRecord) -> float:
        """The judge's reward plus declared shaping terms (each weight from ``--shaping``; none by default)."""
        return record.reward + sum(w * record.shaping.get(k, 0.0) for k, w in self.s.shaping.items())

    # ------------------------------------------------------------------ the run

    def run(self) -> dict[str, Any]:
        from paperworks.core.tracking import Tracker

        self.out.mkdir(parents=True, exist_ok=True)
        self.tracker = Tracker(self.out / "tb")
        try:
            return self._run()
        finally:
            self.tracker.close()

    def _run(self) -> dict[str, Any]:
        started = time.monotonic()
        self._load_policy()
        # log.jsonl holds exactly the checkpointed steps (a step done after the last checkpoint runs again)
        (self.out / "log.jsonl").write_text("".join(json.dumps(h) + "\n" for h in self.state["history"]),
                                            encoding="utf-8")
        self._serve()
        if self.s.final_eval and self.state.get("base_eval") is None:
            base = self._eval(self.s.eval_suite, "eval/base", self.s.model, self.s.eval_limit)
            self.state["base_eval"] = asdict(base)
            self._release_base_engine()
            self._checkpoint()
        if not self.state["sft_done"]:
            self._sft()
            self._serve()
            self._checkpoint()
        if self.state["step"] == 0 and not self.state["heldout"]:
            self._heldout(0)
            self._checkpoint()
        try:
            while self.state["step"] < self.s.steps:
                if self.s.time_budget_s and time.monotonic() - started > self.s.time_budget_s:
                    self.state["stopped_by"] = "time_budget_s"
                    break
                step = int(self.state["step"])
                line = self._step(step)
                self.state["step"] = step + 1
                self.state["history"].append(line)
                with open(self.out / "log.jsonl", "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(line) + "\n")
                for key in ("reward", "accuracy", "loss", "grad_norm", "mismatch_abs", "mismatch_k3",
                            "truncated_share", "tokens_per_s", "tool_format"):
                    if isinstance(line.get(key), int | float):
                        self.tracker.record(f"train/{key}", line[key], step + 1)
                for key, value in line["shaping"].items():
                    self.tracker.record(f"train/shaping/{key}", value, step + 1)
                if self.s.eval_every and (step + 1) % self.s.eval_every == 0 and step + 1 < self.s.steps:
                    self._heldout(step + 1)
                self.progress({"event": "step", **line})
                if (step + 1) % self.s.checkpoint_every == 0:
                    self._checkpoint()
        except KeyboardInterrupt:
            self._checkpoint()
            raise
        if not self.state["heldout"] or self.state["heldout"][-1]["step"] != self.state["step"]:
            self._heldout(int(self.state["step"]))
        for h in self.state["heldout"]:
            if isinstance(h.get("accuracy"), float):
                self.tracker.record("heldout/accuracy", h["accuracy"], h["step"])
        if self.s.keep == "best_heldout" and self._best() is not None:
            from paperworks.models.local.engines import close_engine

            close_engine(self.serving.removeprefix("local/"))  # the kept adapter gets an engine of its own
            self.kept_dir = self.out / "adapter_best"
        final = (self._eval(self.s.eval_suite, "eval/final", f"{self.s.model}@{self.kept_dir}", self.s.eval_limit)
                 if self.s.final_eval else None)
        self.state["final_eval"] = asdict(final) if final else None
        self._checkpoint()
        return self._results(final)

    def _results(self, final: EvalOutcome | None) -> dict[str, Any]:
        phases = {k: round(v, 2) for k, v in self.state["phases"].items()}
        total = sum(phases.values()) or 1.0
        rollout_wall = phases["rollout"] + phases["judge"]
        results = {
            "command": "paperworks train", "settings": self.s.model_dump(), "finished_at": now_iso(),
            "eval_model": f"{self.s.model}@{self.kept_dir}", "eval_suite": self.s.eval_suite,
            "kept": self._best() if self.kept_dir != self.adapter_dir else {"step": self.state["step"],
                                                                            "adapter": "last"},
            "eval_limit": self.s.eval_limit,
            "base_eval": self.state.get("base_eval"), "final_eval": self.state.get("final_eval"),
            f"{Path(self.s.eval_suite).name}_accuracy": final.accuracy if final else None,
            "base_accuracy": (self.state.get("base_eval") or {}).get("accuracy"),
            "heldout": self.state["heldout"], "steps_done": self.state["step"],
            "stopped_by": self.state.get("stopped_by"), "sft": self.state.get("sft"),
            "rollout_tokens": self.state["rollout_tokens"], "rollout_samples": self.state["samples"],
            "samples_per_min": round(60 * self.state["samples"] / rollout_wall, 2) if rollout_wall else None,
            "phase_seconds": phases, "phase_share": {k: round(v / total, 3) for k, v in phases.items()},
            "swap_s_median": sorted(self.state["swap_s"])[len(self.state["swap_s"]) // 2]
            if self.state["swap_s"] else None,
            "peak_rss_mb": self.mem.peak(), "phase_peak_rss_mb": dict(self.mem.peaks), "history": self.state["history"],
            "scalars": self.tracker.scalars(), "versions": versions(), "git_sha": git_sha(),
        }
        tmp = self.out / "results.json.tmp"
        tmp.write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")
        tmp.replace(self.out / "results.json")
        return results


def prepare(out: Path, settings: TrainSettings, resume: bool) -> TrainSettings:
    """Check the run folder: a fresh run needs an empty or new one (``train.json`` is written); a resumed
    run reads its settings back. One-line errors otherwise."""
    record = out / "train.json"
    if resume:
        if not record.is_file():
            raise UserError(f"--resume {out}: no train.json there (not a training run)")
        try:
            return TrainSettings.model_validate(json.loads(record.read_text(encoding="utf-8"))["settings"])
        except (ValueError, KeyError, TypeError) as exc:
            raise UserError(f"--resume {out}: {record.name} is not a readable training record "
                            f"({type(exc).__name__})") from None
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file, not a folder")
    if out.exists() and any(out.iterdir()):
        raise UserError(f"--out {out} is not empty; pass --resume {out} to continue that run, or another --out")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"--out {out}: cannot create the folder ({exc.strerror or exc})") from None
    record.write_text(json.dumps({"settings": settings.model_dump(), "created": now_iso(), "versions": versions(),
                                  "git_sha": git_sha()}, indent=1) + "\n", encoding="utf-8")
    return settings
