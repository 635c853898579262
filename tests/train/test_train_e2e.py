"""``paperworks train`` end to end on the embedded model (tiny settings): the tokens trained on are the
tokens sampled, rewards come from the judge, resume after kill -9 gives the same next step, and the CLI
refuses bad requests in one line before anything is created."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TINY = ["agent", "--suite", "gen:arith", "--eval-suite", "arith", "--batch", "2", "--group-size", "2",
        "--heldout", "0", "--no-final-eval", "--seed", "3", "--concurrency", "1", "-q"]


def _cli(*args: str, timeout: float = 600, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "paperworks", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, **kw)


@pytest.mark.parametrize("args, expected", [
    (["nosuch", "--suite", "gen:arith", "--eval-suite", "arith"], "unknown workflow"),
    (["agent", "--suite", "gen:nosuch", "--eval-suite", "arith"], "unknown generator"),
    (["agent", "--suite", "arith", "--eval-suite", "arith"], "never from an eval suite's items"),
    (["agent", "--suite", "gen:arith", "--eval-suite", "nosuch"], "nosuch"),
    (["agent", "--suite", "gen:arith", "--eval-suite", "arith", "-m", "openai/gpt-4o-mini"], "cannot be trained"),
    (["agent", "--suite", "gen:arith", "--eval-suite", "arith", "--estimator", "ppo"], "estimator"),
    (["agent", "--suite", "gen:arith", "--eval-suite", "arith", "--group-size", "1"], "group_size"),
    (["agent", "--suite", "gen:arith", "--eval-suite", "arith", "--gen", "temperature=hot"], "temperature"),
    (["agent", "--suite", "gen:arith", "--eval-suite", "arith", "-c", "max_stepz=3"], "max_stepz"),
    (["ogmar", "--suite", "gen:ogmar", "--eval-suite", "values_synth", "--sft-from", "oracle"], "no scripted oracle"),
    (["agent", "--suite", "gen:ogmar", "--eval-suite", "arith"], "makes problems for workflow 'ogmar'"),
    (["agent", "--suite", "gen:arith", "--eval-suite", "arith", "--eval-limit", "0"], "eval_limit"),
    (["agent", "--suite", "gen:arith", "--eval-suite", "arith", "--shaping", "compiled=0.2"],
     "unknown term(s) ['compiled'] for --suite gen:arith; known: tool_format ("),
    (["spada", "--suite", "gen:spada", "--eval-suite", "spada_bench", "--shaping", "reward=1"],
     "known: tool_format, invalid, constraint_pass, iterations, compiled, loaded"),
    (["agent", "--suite", "gen:arith", "--eval-suite", "arith", "--shaping", "tool_format=nan"], "finite"),
])
def test_refusals_are_one_line_and_create_nothing(tmp_path: Path, args: list[str], expected: str) -> None:
    out = tmp_path / "run"
    result = _cli("train", *args, "--out", str(out), "--steps", "1")
    assert result.returncode == 1, result.stderr
    lines = [x for x in result.stderr.strip().splitlines() if x.strip()]
    assert len(lines) == 1 and expected in lines[0], result.stderr
    assert not out.exists()


@pytest.mark.parametrize("config, expected", [
    (None, "does not exist"),
    ({"r": 8, "lora_alpha": 32, "target_modules": ["q_proj"]}, "its r is 8, this run's is 16"),
    ({"r": 16, "lora_alpha": 16, "target_modules": ["q_proj"]}, "its lora_alpha is 16, this run's is 32.0"),
    ({"r": 16, "lora_alpha": 32, "target_modules": ["q_proj"]}, "its target_modules is ['q_proj']"),
    ("[1, 2]", "not a JSON object"),
    ("{oops", "unreadable"),
])
def test_refuses_a_warm_start_that_is_not_an_adapter_of_this_shape(tmp_path: Path, config: Any,
                                                                      expected: str) -> None:
    """``--sft-from FOLDER``: a missing folder, or an adapter of another rank, alpha or set of layers, is
    refused in one line before the run folder is made (the trainer would fail after creating it)."""
    adapter = tmp_path / "adapter"
    if config is not None:
        adapter.mkdir()
        (adapter / "adapter_model.safetensors").write_bytes(b"")
        (adapter / "adapter_config.json").write_text(config if isinstance(config, str) else json.dumps(config))
    out = tmp_path / "run"
    result = _cli("train", "agent", "--suite", "gen:arith", "--eval-suite", "arith", "--sft-from", str(adapter),
                  "--out", str(out), "--steps", "1")
    lines = [x for x in result.stderr.strip().splitlines() if x.strip()]
    assert result.returncode == 1 and len(lines) == 1 and "--sft-from" in lines[0], result.stderr
    assert expected in lines[0], result.stderr
    assert not out.exists()


def test_refuses_a_nonempty_out_and_a_missing_resume(tmp_path: Path) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("x")
    result = _cli("train", *TINY, "--steps", "1", "--out", str(tmp_path / "busy"))
    assert result.returncode == 1 and "not empty" in result.stderr
    result = _cli("train", "--resume", str(tmp_path / "nothing"))
    assert result.returncode == 1 and "no train.json" in result.stderr


@pytest.mark.slow
def test_eval_limit_evaluates_the_first_items_in_suite_order(tmp_path: Path) -> None:
    """``--eval-limit 2``: the base and the final eval each score exactly the suite's first two items; with
    ``--keep best_heldout`` the final eval and ``eval_model`` use the adapter kept at the best held-out eval."""
    out = tmp_path / "run"
    args = [a for a in TINY if a not in ("--no-final-eval", "--heldout", "0")]
    done = _cli("train", *args, "--heldout", "2", "--steps", "0", "--eval-limit", "2", "--keep", "best_heldout",
                "--out", str(out))
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((out / "results.json").read_text())
    assert results["eval_limit"] == 2
    assert results["eval_model"].endswith(str(out / "adapter_best"))
    assert results["kept"]["step"] == 0 and results["kept"]["heldout_accuracy"] == results["heldout"][0]["accuracy"]
    final_run = json.loads((Path(results["final_eval"]["run_dir"]) / "run.json").read_text())
    assert "adapter_best" in json.dumps(final_run)
    from paperworks.eval.samples_log import SamplesLog
    from paperworks.eval.suite import load_suite

    first = [sample.id for sample in load_suite("arith").samples[:2]]
    for which in ("base_eval", "final_eval"):
        assert results[which]["samples"] == 2, which
        ids = [r.id for r in SamplesLog(Path(results[which]["run_dir"]) / "samples.jsonl").read()]
        assert sorted(ids) == sorted(first), (which, ids, first)


def _last_step(out: Path) -> dict[str, Any]:
    lines = (out / "log.jsonl").read_text().splitlines()
    return dict(json.loads(lines[-1]))


@pytest.mark.slow
def test_trained_tokens_are_sampled_tokens_and_resume_after_kill_matches(tmp_path: Path) -> None:
    """Run A: 2 steps uninterrupted. Run B: the same, killed with SIGKILL right after its first checkpoint,
    then resumed. Step 2 must be identical (same rollouts, same loss and gradient norm, same adapter)."""
    # the base model scores 0 on arith, so a declared shaping term (a parsed tool call) gives the groups
    # rewards that differ, and the updates something to train on
    shaped = [*TINY, "--shaping", "tool_format=1"]
    a = tmp_path / "a"
    done = _cli("train", *shaped, "--steps", "2", "--out", str(a))
    assert done.returncode == 0, done.stderr[-2000:]
    # every (prompt, completion) the update used was sampled: it appears as a model_tokens event of a rollout
    sampled = set()
    for events in (a / "rollouts").glob("step-*/*/events.jsonl"):
        for line in events.read_text().splitlines():
            ev = json.loads(line)
            if ev.get("type") == "model_tokens":
                sampled.add((tuple(ev["prompt_ids"]), tuple(ev["completion_ids"])))
    assert sampled
    trained = {(tuple(r["prompt_ids"]), tuple(r["completion_ids"]))
               for path in (a / "rollouts").glob("step-*/trained.jsonl")
               for r in map(json.loads, path.read_text().splitlines())}
    assert trained and trained <= sampled

    b = tmp_path / "b"
    proc = subprocess.Popen([sys.executable, "-m", "paperworks", "train", *shaped, "--steps", "2", "--out", str(b)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        latest = b / "checkpoints" / "latest"
        if latest.exists() and latest.read_text().strip() == "step-000001":
            break
        if proc.poll() is not None:
            pytest.fail(f"train exited early: {proc.stderr.read() if proc.stderr else ''}")
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    resumed = _cli("train", "--resume", str(b), "-q")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    sa, sb = _last_step(a), _last_step(b)
    assert sa["step"] == sb["step"] == 2
    for key in ("reward", "accuracy", "sampled_tokens", "calls_trained", "tokens_trained", "loss", "grad_norm"):
        assert sa[key] == pytest.approx(sb[key], rel=1e-5, abs=1e-7), key
    from safetensors.torch import load_file

    wa = load_file(str(a / "adapter" / "adapter_model.safetensors"))
    wb = load_file(str(b / "adapter" / "adapter_model.safetensors"))
    assert wa.keys() == wb.keys()
    assert all(float((wa[k] - wb[k]).abs().max()) < 1e-6 for k in wa)
