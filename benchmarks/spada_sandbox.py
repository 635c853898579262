"""Candidates checked per second by the SPADA sandbox: a warm WorkerPool (a build zygote and a judge
zygote that imported CadQuery once; per candidate a fresh forked build process, then a fresh judge
checks child and tests child on its geometry) against fresh sandboxes per candidate
(``check_program``), and peak memory. Writes benchmarks/results/spada_sandbox.json (flat object).

Goal (issue 4): warm pool >= 3x the fresh-process rate.
Usage: python benchmarks/spada_sandbox.py [--warm N] [--fresh N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from paperworks.tools.cad.sandbox import WorkerPool, check_program, sandbox_info  # noqa: E402

PROGRAM = '''
import cadquery as cq

PARAMS = {"w": 30.0, "t": 6.0, "hole_d": 6.4, "pin_d": 6.0}


def build(p):
    plate = (cq.Workplane().box(p["w"], p["w"], p["t"]).faces(">Z").workplane()
             .rect(p["w"] / 2, p["w"] / 2, forConstruction=True).vertices().hole(p["hole_d"]))
    a = cq.Assembly()
    a.add(plate, name="plate")
    for i, (x, y) in enumerate([(1, 1), (1, -1), (-1, 1), (-1, -1)]):
        pin = cq.Workplane().cylinder(p["t"] + 6, p["pin_d"] / 2).union(
            cq.Workplane().workplane(offset=p["t"] / 2 + 1).cylinder(2, p["pin_d"]))
        a.add(pin, name=f"pin{i}", loc=cq.Location((x * p["w"] / 4, y * p["w"] / 4, 0)))
    return a
'''
TESTS = '''
def test_width(ctx):
    b = ctx.bbox("plate")
    assert abs(b[3] - b[0] - ctx.params["w"]) < 1e-6


def test_fits(ctx):
    for i in range(4):
        ctx.fit(f"pin{i}", "plate", 0.1, 0.6)
'''


def _rss_mb(pid: int) -> float:
    """VmHWM (peak RSS) of a process and its descendants' largest, in MB (Linux /proc)."""
    peak = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            p, ppid = int(entry), int(stat.rsplit(")", 1)[1].split()[1])
            chain = {p, ppid}
            while ppid > 1 and pid not in chain:
                ppid = int(Path(f"/proc/{ppid}/stat").read_text().rsplit(")", 1)[1].split()[1])
                chain.add(ppid)
            if pid in chain:
                for line in Path(f"/proc/{entry}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except (OSError, ValueError, IndexError):
            continue
    return round(peak / 1024, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--warm", type=int, default=30)
    ap.add_argument("--fresh", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "spada_sandbox.json"))
    args = ap.parse_args()
    from importlib import metadata

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        pool = WorkerPool(1)
        first = pool.check(PROGRAM, TESTS)
        assert first.ok, first
        peaks = [first.peak_rss_mb]
        ready_s = time.perf_counter() - t0
        start = time.perf_counter()
        for i in range(args.warm):
            r = pool.check(PROGRAM, TESTS, params={"w": 30.0 + i % 5})
            assert r.ok, r.error
            peaks.append(r.peak_rss_mb)
        warm_s = (time.perf_counter() - start) / args.warm
        start = time.perf_counter()
        n_art = max(3, args.warm // 6)
        for i in range(n_art):
            r = pool.check(PROGRAM, TESTS, out_dir=Path(tmp) / f"a{i}")
            assert r.ok and len(r.artifacts) == 6, r
            peaks.append(r.peak_rss_mb)
        warm_art_s = (time.perf_counter() - start) / n_art
        zygote_peaks = {z.role: _rss_mb(z.proc.pid) for z in pool._all}
        pool.close()
        start = time.perf_counter()
        for _ in range(args.fresh):
            r = check_program(PROGRAM, TESTS)
            assert r.ok, r.error
        fresh_s = (time.perf_counter() - start) / args.fresh
    bwrap = subprocess.run(["bwrap", "--version"], capture_output=True, text=True).stdout.strip() \
        if sandbox_info()["bwrap"] else None
    result = {
        "warm_candidates_per_s": round(1 / warm_s, 2),
        "fresh_candidates_per_s": round(1 / fresh_s, 3),
        "speedup_warm_vs_fresh": round(fresh_s / warm_s, 1),
        "speedup_goal": 3,
        "speedup_ok": fresh_s / warm_s >= 3,
        "warm_s_per_candidate": round(warm_s, 3),
        "fresh_s_per_candidate": round(fresh_s, 3),
        "warm_s_per_candidate_with_step_stl_renders": round(warm_art_s, 3),
        "pool_first_result_s": round(ready_s, 2),
        "candidates_warm": args.warm,
        "candidates_fresh": args.fresh,
        "candidate": "plate + 4 pins (5 parts), 2 tests (5 fits), all checks; build then judge",
        "peak_rss_build_worker_mb": zygote_peaks.get("build"),
        "peak_rss_judge_worker_mb": zygote_peaks.get("judge"),
        "memory_cgroup": sandbox_info()["memory_cgroup"],
        "peak_rss_candidate_mb": max(peaks),
        "peak_rss_host_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "sandbox_mode": sandbox_info()["mode"],
        "bwrap": bwrap,
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "cadquery": metadata.version("cadquery"),
        "cadquery_ocp": metadata.version("cadquery-ocp"),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
