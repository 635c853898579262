"""``paperworks eval --gen``: generation settings over the suite's own reach every sample's model calls."""

from __future__ import annotations

from pathlib import Path

from paperworks.eval import harness
from paperworks.eval.sample_runner import EvalSetup


def test_gen_overrides_the_suites_generation(tmp_path: Path) -> None:
    run = harness.create_eval(harness.EvalArgs(suite="arith", model="scripted/echo", limit=1, log_dir=str(tmp_path),
                                               generation={"temperature": 0.7, "logprobs": True}))
    record = run.read_record()
    assert record["args"]["generation"] == {"temperature": 0.7, "logprobs": True}
    setup = EvalSetup.from_record(run.path, record)
    # the suite's own max_tokens stays; its temperature 0 is overridden
    assert setup.generation == {"temperature": 0.7, "max_tokens": 192, "logprobs": True}


def test_without_gen_the_suites_generation_holds(tmp_path: Path) -> None:
    run = harness.create_eval(harness.EvalArgs(suite="arith", model="scripted/echo", limit=1, log_dir=str(tmp_path)))
    setup = EvalSetup.from_record(run.path, run.read_record())
    assert setup.generation == {"temperature": 0, "max_tokens": 192}
