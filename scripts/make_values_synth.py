#!/usr/bin/env python
"""Generate the synthetic OG-MAR suite ``evals/values_synth/`` (issue 13).

    python scripts/make_values_synth.py              # (re)write evals/values_synth/
    python scripts/make_values_synth.py --out DIR    # write a copy elsewhere
    python scripts/make_values_synth.py --check      # regenerate into a temp dir and compare hashes

A population of 220 respondents per region (6 regions) is drawn by paperworks.tools.values.synth (fixed
seed); 20 per region are held out with 3 questions each from 3 different domains (360 questions), their
answers to every item of those questions' classes hidden. Writes suite.yaml, questions.jsonl,
population/ (train.csv, heldout.csv, mapping.yaml), taxonomy.yaml, oracle/ (the generator's ground
truth: ontology.ttl, the held-out respondents' latents, item curves, generator.json; for oracle replays
only, never for a method under test), README.md and SOURCE.md.

Deterministic: the generator draws only from Python's random.random() streams and writes rounded text,
so re-running gives byte-identical files with the same Python, PyYAML and rdflib versions.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from values_synth.texts import readme, source  # noqa: E402

from paperworks.tools.values.suite_builder import split_heldout, write_suite  # noqa: E402
from paperworks.tools.values.synth.generate import Population, generate_population  # noqa: E402
from paperworks.tools.values.synth.model import ITEMS_FILE, MODEL_FILE  # noqa: E402
from paperworks.tools.values.taxonomy import TAXONOMY_FILE, load_taxonomy  # noqa: E402

SEED = 20260213
PER_REGION = 220
HELDOUT_PER_REGION = 20
QUESTIONS_PER_RESPONDENT = 3
ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "evals" / "values_synth"
OWNED = ["population", "oracle"]
OWNED_FILES = ["suite.yaml", "questions.jsonl", "taxonomy.yaml", "README.md", "SOURCE.md"]


def _oracle(out: Path, pop: Population, heldout_ids: list[str]) -> None:
    """The generator's hidden state, for oracle replays only."""
    folder = out / "oracle"
    folder.mkdir(parents=True, exist_ok=True)
    taxonomy = pop.model.taxonomy
    pop.relations.to_turtle(folder / "ontology.ttl", taxonomy=taxonomy)
    classes = pop.model.taxonomy_order()
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["respondent_id", "axis_t", "axis_s", *classes])
    for rid in heldout_ids:
        m = pop.member(rid)
        writer.writerow([rid, f"{m.axes[0]:.4f}", f"{m.axes[1]:.4f}", *(f"{m.latents[c]:.4f}" for c in classes)])
    (folder / "heldout_latents.csv").write_text(text.getvalue(), encoding="utf-8")
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["code", "class", "key", "threshold", "discrimination"])
    for code, item in pop.items.items():
        p = pop.item_params[code]
        writer.writerow([code, item.class_id, item.key, f"{p.threshold:.4f}", f"{p.discrimination:.4f}"])
    (folder / "items.csv").write_text(text.getvalue(), encoding="utf-8")
    files = {str(f.relative_to(ROOT)): hashlib.sha256(f.read_bytes()).hexdigest()
             for f in (MODEL_FILE, ITEMS_FILE, TAXONOMY_FILE)}
    meta = {"seed": SEED, "per_region": PER_REGION, "heldout_per_region": HELDOUT_PER_REGION,
            "questions_per_respondent": QUESTIONS_PER_RESPONDENT, "relations": len(pop.relations),
            "relation_counts": dict(sorted(pop.relations.counts().items())), "model_files_sha256": files,
            "regenerate": "paperworks.tools.values.synth.generate_population(220, seed=20260213)"}
    (folder / "generator.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def generate(out: Path) -> dict[str, int]:
    """Write the whole suite into ``out`` (owned subfolders are replaced); returns counts."""
    out.mkdir(parents=True, exist_ok=True)
    for name in OWNED:
        shutil.rmtree(out / name, ignore_errors=True)
    taxonomy = load_taxonomy()
    pop = generate_population(PER_REGION, SEED)
    split = split_heldout(pop.survey(), taxonomy, HELDOUT_PER_REGION, QUESTIONS_PER_RESPONDENT, SEED)
    oracle_note = ("\n# oracle/ holds the generator's ground truth (ontology.ttl, latents, item curves) for ORACLE "
                   "REPLAYS\n# ONLY: a method under test must not read it (-c ontology=oracle/ontology.ttl makes an "
                   "oracle run).")
    counts = write_suite(out, split, taxonomy, name="values_synth", version="1.0",
                         description="Held-out binary answers of a synthetic population with a known cultural "
                         "ontology (6 regions, 12 domains).",
                         title="OG-MAR synthetic survey-prediction suite (issue 13)",
                         generator="python scripts/make_values_synth.py",
                         note="fixed seed; --check verifies this folder; CC0, see SOURCE.md",
                         oracle_note=oracle_note)
    _oracle(out, pop, [r.id for r in split.heldout])
    (out / "README.md").write_text(readme(counts, len(pop.relations)), encoding="utf-8")
    (out / "SOURCE.md").write_text(source(), encoding="utf-8")
    return counts


def tree_hashes(folder: Path) -> dict[str, str]:
    """sha256 of every generated file under ``folder``, by relative path."""
    paths = [p for name in OWNED for p in (folder / name).rglob("*") if p.is_file()]
    paths += [folder / name for name in OWNED_FILES if (folder / name).exists()]
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(paths)}


def main(argv: list[str] | None = None) -> int:
    """CLI entry: generate, or with --check compare a fresh generation to the folder."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder to write (default evals/values_synth)")
    parser.add_argument("--check", action="store_true", help="verify --out matches a fresh generation")
    args = parser.parse_args(argv)
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            generate(Path(tmp))
            fresh, have = tree_hashes(Path(tmp)), tree_hashes(args.out)
        diff = sorted(k for k in fresh.keys() | have.keys() if fresh.get(k) != have.get(k))
        if diff:
            print(f"{args.out}: {len(diff)} file(s) differ from a fresh generation, e.g. {diff[:5]}")
            return 1
        print(f"{args.out}: matches a fresh generation ({len(fresh)} files)")
        return 0
    counts = generate(args.out)
    print(f"wrote {args.out}: {counts['questions']} questions, {counts['train']} training and "
          f"{counts['heldout']} held-out respondents")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
