"""``paperworks repro fcgraft --quick`` end to end on the embedded SmolLM2-135M: every skeleton validated in
the sandbox before it enters the library, every method's policy judged, figures consistent with the rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")


@pytest.mark.slow
def test_repro_fcgraft_quick(tmp_path: Path) -> None:
    from paperworks.backends.repro import run_repro
    from paperworks.models.local import get_local_model
    from paperworks.models.local.smollm import LocalModelError

    try:
        get_local_model("smollm2-135m-torch")
    except LocalModelError as exc:
        pytest.skip(str(exc))
    _, path = run_repro("fcgraft", tmp_path, quick=True)
    data = json.loads(path.read_text())
    figs, extra = data["figures"], data["extra"]
    assert all(v["episodes"] >= 1 and v["passed"] == v["episodes"] for v in extra["validation"].values())
    for m, rows in extra["per_task"].items():
        assert figs[f"success[{m}]"]["value"] == pytest.approx(sum(r["passed"] for r in rows) / len(rows), abs=1e-3)
        assert all(r["reason"] for r in rows)  # every policy was judged, with a reason
    assert len(extra["per_task"]["fcgraft"]) == 6 and len(extra["per_task"]["free"]) == 2
    kl = extra["kl"]
    assert kl["re-positioned"] < kl["no re-positioning"]
    assert "2.3x" in figs["synthesis_speedup_vs_ragcache"]["paper"]
    assert (tmp_path / "fcgraft.png").stat().st_size > 1000
