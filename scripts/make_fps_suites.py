#!/usr/bin/env python
"""Build the three FPS suites (issue 12) from the public FPS data in ``../shared/data/fps/``.

    python scripts/make_fps_suites.py                  # (re)write paperworks/suites/{formal_math500,...}/
    python scripts/make_fps_suites.py --src DIR        # the FPS data folder (default ../shared/data/fps)
    python scripts/make_fps_suites.py --check          # rebuild in memory and compare with what is there

Every row of each benchmark is kept with all its fields; the script adds ``id`` (the row's own id where
it has one, made unique; ``fm500_NNN`` for FormalMath500, which has none), flattens ``metainfo`` into
``level``/``subject``/``split``/``tags`` columns, and copies the licence (Apache-2.0) and a SOURCE.md.
The 10 in-context demonstrations go to ``paperworks/agents/dfps/demonstrations.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUITES = ROOT / "paperworks" / "suites"
DEMOS = ROOT / "paperworks" / "agents" / "dfps" / "demonstrations.jsonl"
DEFAULT_SRC = ROOT.parent / "shared" / "data" / "fps"

BENCHMARKS = {
    "formal_math500": ("FormalMath500", "MATH500 problems formalised for FPS", "fm500"),
    "minif2f_solving": ("MiniF2F-Solving", "miniF2F competition problems recast as FPS problems", None),
    "putnam_solving": ("PutnamBench-Solving", "PutnamBench problems with answers, recast as FPS problems", None),
}
PAPER = {"formal_math500": "15.50%", "minif2f_solving": "21.60%", "putnam_solving": "0%"}

SUITE_YAML = """\
# {title} (issue 12, D-FPS): {what}. {n} rows, all of them.
# Generated: python scripts/make_fps_suites.py (--check verifies this folder) from the public FPS data
# (Purewhite2019/formal_problem_solving_main, data/{name}.jsonl, Apache-2.0; see SOURCE.md, LICENSE).
# A problem is `forall intros, exists answer : formal_answer_type, outros`; the workflow gets the informal
# problem and the Lean binders, never formal_answer (the reference) or the informal answer/solution.
# Scorers: rpe (Lean-verified: `(answer = submission) <-> formal_answer` closed by rfl / norm_num / ring_nf /
# rw_search / aesop; skipped with one line where no Lean toolchain is found, see `paperworks lean info`) and
# symbolic_answer (SymPy equivalence, labelled "symbolic, not Lean-verified"; its figures are never mixed
# with Lean's). Per scorer: accuracy = Solved; <scorer>/ne_submitted = submitted but not equivalent;
# rpe/proven = the workflow's Lean proof of the problem with its own answer checked.
# Paper (DeepSeek-V3, D-FPS, hybrid CoT): Solved {paper}.
name: {name}
version: "1.0"
description: {title} - formal problem solving (find the answer and prove it in Lean 4).
workflow: dfps
data: [data.jsonl]
id_field: id
input:
  informal_problem: "{{informal_problem}}"
  formal_answer_type: "{{formal_answer_type}}"
  intros: "{{intros}}"
  outros: "{{outros}}"
  header: "{{header}}"
target: formal_answer
metadata: [informal_answer, formal_answer_type, intros, outros, header{extra}]
scorers: [rpe, symbolic_answer]
answer_field: submission
metrics: [accuracy, stderr]
epochs: 1
limits: {{working_time_s: 900, time_s: 3600, tokens: 120000, cost: null}}
generation: {{max_tokens: 2048}}
"""

SOURCE_MD = """\
# {title}

Source: the public repository Purewhite2019/formal_problem_solving_main, file `data/{name}.jsonl`
(commit 39489d1f0c32b521845429e1cb26c48639d8f823), the benchmark of "Beyond Theorem Proving:
Formulation, Framework and Benchmark for Formal Problem-Solving" (FPS / D-FPS). License: Apache-2.0
(LICENSE beside this file). Copied unchanged except for the added `id` column and the `metainfo`
fields flattened into columns ({extra_cols}) by `scripts/make_fps_suites.py`.
"""


def _rows(src: Path, name: str) -> list[dict]:
    path = src / f"{name}.jsonl"
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise SystemExit(f"{path}:{number}: not JSON ({exc.msg})") from exc
    return rows


def build(src: Path) -> dict[Path, str]:
    """Every file the suites consist of, path → text."""
    out: dict[Path, str] = {}
    licence = (src / "LICENSE").read_text(encoding="utf-8")
    for name, (title, what, prefix) in BENCHMARKS.items():
        rows = _rows(src, name)
        seen: dict[str, int] = {}
        lines, extra_cols = [], set()
        for index, row in enumerate(rows):
            meta = row.get("metainfo") or {}
            base = (f"{prefix}_{index:03d}" if prefix else str(meta.get("id") or meta.get("problem_name")
                                                            or f"{name}_{index:03d}"))
            seen[base] = seen.get(base, 0) + 1
            rid = base if seen[base] == 1 else f"{base}__{seen[base]}"
            flat = {k: meta[k] for k in ("level", "subject", "split", "tags") if k in meta}
            extra_cols.update(flat)
            lines.append(json.dumps({"id": rid, **row, **flat}, ensure_ascii=False))
        folder = SUITES / name
        extra = "".join(f", {c}" for c in sorted(extra_cols))
        out[folder / "data.jsonl"] = "\n".join(lines) + "\n"
        out[folder / "suite.yaml"] = SUITE_YAML.format(title=title, what=what, n=len(rows), name=name,
                                                       paper=PAPER[name], extra=extra)
        out[folder / "SOURCE.md"] = SOURCE_MD.format(title=title, name=name,
                                                     extra_cols=", ".join(sorted(extra_cols)) or "none")
        out[folder / "LICENSE"] = licence
    out[DEMOS] = (src / "prompt_hybrid_cot_final.jsonl").read_text(encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=DEFAULT_SRC, help="the FPS data folder")
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    if not (args.src / "minif2f_solving.jsonl").is_file():
        print(f"error: {args.src} has no minif2f_solving.jsonl (pass --src DIR)", file=sys.stderr)
        return 2
    files = build(args.src)
    if args.check:
        stale = [p for p, text in files.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
        for p in stale:
            print(f"differs: {p.relative_to(ROOT)}", file=sys.stderr)
        print("ok" if not stale else f"{len(stale)} file(s) differ")
        return 1 if stale else 0
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
