"""Generated SPADA training problems (``gen:spada``) checked through the CAD sandbox and the judge, as
``scripts/verify_spada_bench.py`` checks the suite: every reference must pass its hidden tests and checks,
every mutant must fail one. Per phrasing (train, heldout) and per family.

    python benchmarks/spada_gen_verify.py [N_PER_PHRASING] [SEED] [OUT]    # defaults: 10 7 results/...
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))


def main() -> None:
    import verify_spada_bench as v

    from paperworks.train.generators import spada

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    out = Path(sys.argv[3]) if len(sys.argv) > 3 else ROOT / "benchmarks" / "results" / "spada_gen_verify.json"
    report: dict[str, Any] = {"benchmark": "spada_gen_verify",
                              "command": "python benchmarks/spada_gen_verify.py " + " ".join(sys.argv[1:]),
                              "n_per_phrasing": n, "seed": seed, "harness": "sandbox"}
    pool = v._pool()
    start = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as work:
            for phrasing in spada.PHRASINGS:
                rows = spada.generate(n, seed, phrasing=phrasing)
                folder = spada.write_suite(rows, Path(work) / f"suite-{phrasing}")
                tasks = [v.verify_task(r, v.sandbox_checker(pool), suite=folder) for r in rows]
                fams: dict[str, dict[str, int]] = {}
                for t, r in zip(tasks, rows, strict=True):
                    f = fams.setdefault(r["family"], {"tasks": 0, "references_passing": 0, "mutants": 0,
                                                      "mutants_killed": 0})
                    f["tasks"] += 1
                    f["references_passing"] += int(t["reference_passes"])
                    f["mutants"] += t["mutants"]
                    f["mutants_killed"] += t["mutants_killed"]
                    print(phrasing, t["id"], r["family"], t["reference_passes"],
                          f"{t['mutants_killed']}/{t['mutants']}", flush=True)
                report[phrasing] = {**v.summarize(tasks), "per_family": fams,
                                    "failures": [p for t in tasks for p in t["programs"]
                                                 if p["program"].endswith("reference.py") != p["passed"]]}
    finally:
        pool.close()
    report["seconds"] = round(time.perf_counter() - start, 1)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k not in ("train", "heldout")}, indent=1))


if __name__ == "__main__":
    main()
