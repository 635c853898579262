"""OG-MAR on the values_synth suite (issue 13), each figure from a ``paperworks`` command run as a user runs
it, with its measured wall time. Writes benchmarks/results/ogmar_evals.json (variants not run this time
keep their last record, each with its command and date).

1. ``build``: the offline phase with the embedded model (``paperworks ogmar build --data values_synth
   --model local/smollm2-135m --out WORK/built``; resumable, so a finished build is reused) and with a
   scripted oracle (the generator's relations stated, ``scripted/...json``): the recovered ontology's
   precision/recall against ``oracle/ontology.ttl`` at every level, beside the pair screen alone.
2. Model-free and scripted variants on all 360 questions (``paperworks eval <variant suite>``; the eval
   takes a suite's settings from its suite.yaml, so each variant is a suite.yaml written by
   ``ogmar_replay.variant_suite``): ``knn`` (the floor), and the *neighbour replay* — OG-MAR whose persona
   agents repeat their own respondent's answer and whose judge rates evidence from the triples
   (``evidence=triples``) — with no ontology, the embedded model's built ontology, the screen ontology,
   the oracle ontology and the oracle's relations with shuffled signs (control). This isolates what the
   ontology does inside the OG-MAR decision, independent of the model.
3. The embedded model on ``--limit 20`` (the suite's first 20 questions): zero_shot, persona, valuesrag,
   ogmar as shipped (strict JSON, no ontology), and ogmar with ``persona_format=lenient`` (free-text
   persona answers accepted) with no / built / oracle ontology. (With strict JSON the 135M model abstains
   on 90% of the questions, so an ontology cannot change its figure; that variant is not run.)

Usage: python benchmarks/ogmar_evals.py [--work DIR] [--only NAME ...] [--skip-build]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from paperworks.core.paths import set_offline_env  # noqa: E402

set_offline_env()

from paperworks.tools.values import Ontology, load_taxonomy  # noqa: E402
from paperworks.workflows.ogmar.data import packaged_suite  # noqa: E402
from paperworks.workflows.ogmar.replay import build_replies, neighbour_replies, variant_suite  # noqa: E402

CLI = str(Path(sys.executable).parent / "paperworks")
SUITE = packaged_suite()
OUT = ROOT / "benchmarks" / "results" / "ogmar_evals.json"
LOCAL = "local/smollm2-135m"


def sh(cmd: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    return proc, round(time.monotonic() - start, 1)


def show(cmd: list[str]) -> str:
    return "paperworks " + " ".join(str(c).replace(str(ROOT) + "/", "") for c in cmd[1:])


def build_records(work: Path, env: dict[str, str], skip: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    built = work / "built"
    cmd = [CLI, "ogmar", "build", "--data", "values_synth", "--model", LOCAL, "--out", str(built), "-q"]
    if not skip or not (built / "report.json").is_file():
        proc, wall = sh(cmd, env)
        if proc.returncode != 0:
            raise SystemExit(f"build failed: {proc.stderr.strip()[-400:]}")
        out["build_smollm_last_wall_s"] = wall
    report = json.loads((built / "report.json").read_text())
    meta = json.loads((built / "build.json").read_text())
    out["build_smollm"] = {"command": show(cmd), "settings": meta["settings"], "elapsed_s_all_runs": meta.get(
        "elapsed_s"), "questions": report["questions"], "understood_replies": report["understood_replies"],
        "relations": report["relations"], "predicates": report["predicates"], "summaries": report["summaries"],
        "scores": report["scores"], "screen_scores": report["screen_scores"]}
    truth = Ontology.from_turtle(SUITE / "oracle" / "ontology.ttl")
    script = work / "oracle_build.json"
    script.write_text(json.dumps({"replies": build_replies(truth, load_taxonomy(SUITE / "taxonomy.yaml"))}))
    for pairs in (24, 132):
        dest = work / f"oracle_built_{pairs}"
        cmd = [CLI, "ogmar", "build", "--data", "values_synth", "--model", f"scripted/{script}", "--out", str(dest),
               "--pairs", str(pairs), "--summaries", "0", "--concurrency", "8", "-q"]
        proc, wall = sh(cmd, env)
        if proc.returncode != 0:
            raise SystemExit(f"oracle build failed: {proc.stderr.strip()[-400:]}")
        rep = json.loads((dest / "report.json").read_text())
        out[f"build_oracle_{pairs}_pairs"] = {"command": show(cmd), "wall_s": wall, "relations": rep["relations"],
                                              "scores": rep["scores"], "screen_scores": rep["screen_scores"]}
    return out


def variants(work: Path) -> dict[str, tuple[dict[str, Any], str, int | None]]:
    """name → (settings, model, limit)."""
    built, oracle = work / "built", SUITE / "oracle" / "ontology.ttl"
    rng = random.Random(7)
    shuffled = Ontology(replace(r, sign=rng.choice((1, -1))) for r in Ontology.from_turtle(oracle))
    shuffled.to_turtle(work / "oracle_shuffled_signs.ttl")
    choices = {c for line in (SUITE / "questions.jsonl").read_text().splitlines() for c in json.loads(line)["choices"]}
    echo = work / "neighbour_replay.json"
    echo.write_text(json.dumps({"replies": neighbour_replies(choices), "repeat_last": True}))
    replay = {"evidence": "triples"}
    lenient = {"persona_format": "lenient"}
    return {
        "knn": ({"mode": "knn"}, LOCAL, None),
        "replay_no_ontology": (replay, f"scripted/{echo}", None),
        "replay_built_ontology": ({**replay, "ontology": str(built / "ontology.ttl")}, f"scripted/{echo}", None),
        "replay_screen_ontology": ({**replay, "ontology": str(built / "screen.ttl")}, f"scripted/{echo}", None),
        "replay_oracle_ontology": ({**replay, "ontology": str(oracle)}, f"scripted/{echo}", None),
        "replay_oracle_shuffled_signs": ({**replay, "ontology": str(work / "oracle_shuffled_signs.ttl")},
                                         f"scripted/{echo}", None),
        "knn_20": ({"mode": "knn"}, LOCAL, 20),
        "zero_shot_20": ({"mode": "zero_shot"}, LOCAL, 20),
        "persona_20": ({"mode": "persona"}, LOCAL, 20),
        "valuesrag_20": ({"mode": "valuesrag"}, LOCAL, 20),
        "ogmar_20": ({}, LOCAL, 20),
        "ogmar_lenient_no_ontology_20": (lenient, LOCAL, 20),
        "ogmar_lenient_built_20": ({**lenient, "ontology": str(built / "ontology.ttl")}, LOCAL, 20),
        "ogmar_lenient_oracle_20": ({**lenient, "ontology": str(oracle)}, LOCAL, 20),
    }


def run_variant(name: str, settings: dict[str, Any], model: str, limit: int | None, work: Path,
                env: dict[str, str]) -> dict[str, Any]:
    suite = variant_suite(SUITE, work / "suites" / f"values_synth_{name}", settings)
    runs = work / "runs" / name
    runs.mkdir(parents=True, exist_ok=True)
    before = set(runs.iterdir())
    cmd = [CLI, "eval", str(suite), "--model", model, "--log-dir", str(runs), "-q"]
    cmd += ["--limit", str(limit)] if limit else []
    proc, wall = sh(cmd, env)
    rec: dict[str, Any] = {"command": show(cmd), "settings": settings, "rc": proc.returncode, "wall_s": wall,
                           "date": dt.date.today().isoformat(), "load_1min_after": round(os.getloadavg()[0], 2)}
    new = [d for d in set(runs.iterdir()) - before if (d / "results.json").is_file()]
    if not new:
        rec["error"] = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
        return rec
    results = json.loads((new[0] / "results.json").read_text())
    metrics = results["metrics"]
    pick = {k: metrics[k]["value"] for k in ("match/accuracy", "match/abstained", "match/consistency",
                                             "tokens/mean", "time_s/mean") if k in metrics}
    rec.update(n=results.get("n_samples"), accuracy=round(pick.get("match/accuracy", 0.0), 4),
               stderr=round(metrics["match/accuracy"].get("stderr") or 0.0, 4),
               abstained=pick.get("match/abstained"), consistency=pick.get("match/consistency"),
               tokens_mean=pick.get("tokens/mean"), errors=results.get("errors", {}),
               by_region={k.split("=")[1].rstrip("]"): round(v["value"], 4) for k, v in metrics.items()
                          if k.startswith("match/accuracy[region=")})
    samples = [json.loads(line) for line in (new[0] / "samples.jsonl").read_text().splitlines()]
    decided: dict[str, int] = {}
    for s in samples:
        how = str((s.get("output") or {}).get("decided_by", "failed"))
        decided[how] = decided.get(how, 0) + 1
    rec["decided_by"] = decided
    rec["persona_errors"] = sum(len((s.get("output") or {}).get("errors") or []) for s in samples)
    rec["run_dir"] = str(new[0])
    return rec


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=ROOT / "runs" / "ogmar_evals", help="builds, suites, runs")
    parser.add_argument("--only", nargs="*", default=None, help="variant names (default: all)")
    parser.add_argument("--skip-build", action="store_true", help="reuse WORK/built without running the build")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200")
    record: dict[str, Any] = json.loads(args.out.read_text()) if args.out.is_file() else {}
    record.update({"cpu_count": os.cpu_count(), "python": platform.python_version(), "suite": "values_synth",
                   "model": LOCAL, "script": "python benchmarks/ogmar_evals.py"})
    if args.only is None or "build" in args.only:
        record.update(build_records(work, env, args.skip_build))
        args.out.write_text(json.dumps(record, indent=2) + "\n")
    details = record.setdefault("variants", {})
    for name, (settings, model, limit) in variants(work).items():
        if args.only is not None and name not in args.only:
            continue
        rec = run_variant(name, settings, model, limit, work, env)
        details[name] = rec
        record[f"{name}_accuracy"] = rec.get("accuracy")
        print(f"{name:34s} acc {rec.get('accuracy')} ± {rec.get('stderr')}  abstained {rec.get('abstained')}  "
              f"consistency {rec.get('consistency')}  {rec['wall_s']} s", flush=True)
        args.out.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
