"""``--executor ray`` on a local Ray, started only inside a private network namespace (Ray probes
cloud-metadata addresses at start; nothing may leave this machine)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from paperworks.eval.samples_log import SamplesLog
from tests.conftest import ROOT
from tests.eval.test_harness import make_suite, script


def _can_unshare() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not _can_unshare(), reason="needs `unshare -n` (root) and iproute2 to isolate Ray")
def test_ray_executor_gives_the_same_records(tmp_path: Path) -> None:
    suite = make_suite(tmp_path)
    model = script(tmp_path, {"echo": True})
    cmd = [sys.executable, "-m", "paperworks", "eval", str(suite), "-m", model, "--executor", "ray",
           "--concurrency", "4", "--log-dir", str(tmp_path / "ray")]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
    shell = f"ip link set lo up && {shlex.join(cmd)}"
    out = subprocess.run(["unshare", "-n", "sh", "-c", shell], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    run_dir = next((tmp_path / "ray").iterdir())
    records = SamplesLog(run_dir / "samples.jsonl").read()
    assert len(records) == 12 and all(r.error is None for r in records)
    results = json.loads((run_dir / "results.json").read_text())
    assert results["metrics"]["numeric/accuracy"]["value"] == pytest.approx(0.75)
    assert len(list((run_dir / "checkpoints").glob("*.sqlite"))) == 12
