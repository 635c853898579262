#!/usr/bin/env python
"""Generate the offline HistAgent benchmark suite ``evals/hist_offline/`` (issue 11).

    python scripts/make_hist_offline.py              # (re)write evals/hist_offline/
    python scripts/make_hist_offline.py --out DIR    # write a copy elsewhere
    python scripts/make_hist_offline.py --check      # regenerate into a temp dir and compare hashes

Needs the Debian packages fonts-dejavu-core, fonts-blankenburg, fonts-hosny-amiri, fonts-wqy-zenhei and
fortunes-zh (public-domain Tang poems for the archive), and Pillow built with raqm (Arabic, Hebrew).

Writes ``suite.yaml``, ``samples.jsonl`` (the questions), ``documents.jsonl`` and ``SOURCES.md`` (every
document's path, language, script, source and licence), ``attachments/`` (page scans, a photograph,
PDFs, XLSX/CSV tables, a DOCX), ``groundtruth/`` (the text drawn on each scan, for OCR error rates;
never given to an agent) and ``archive/`` (>= 200 Markdown documents).

Deterministic: everything comes from one seed, and re-running gives byte-identical files with the
same Pillow, numpy, fpdf2, openpyxl and python-docx versions and the same Debian fonts. Office files
get fixed ZIP timestamps and document dates; PDFs a fixed creation date. Font or library upgrades can
change the bytes of PNG/JPEG/PDF files (anti-aliasing, subsetting), never the text and JSON files.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hist_offline.archive import build_archive  # noqa: E402
from hist_offline.chains import chain_questions  # noqa: E402
from hist_offline.files import chronicle, crew_list, grain_prices, gravestone, harbour_register, inventory  # noqa: E402
from hist_offline.model import Doc, Question  # noqa: E402
from hist_offline.questions import SCAN, archive_questions, file_questions, scan_questions  # noqa: E402
from hist_offline.render import render_page  # noqa: E402
from hist_offline.scans import SCANS  # noqa: E402

SEED = 20260111
ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "evals" / "hist_offline"
OWNED = ["attachments", "archive", "groundtruth"]
OWNED_FILES = ["suite.yaml", "samples.jsonl", "documents.jsonl", "SOURCES.md"]

SUITE_YAML = """\
# HistAgent offline benchmark (issue 11). Generated: python scripts/make_hist_offline.py (fixed seed;
# --check verifies this folder). Every person, place and figure is invented for paperworks (CC0), so an
# answer needs the row's attachments (attachments/) or the archive (archive/), not general knowledge.
# Rows: id, question, answer, answer_type (exact | numeric | multiple_choice | open), level (1-3),
# tools (ocr, translate, archive_search, read_file, image_info, calculate), attachments (paths relative
# to this folder), choices, evidence ([{document, page, line, text}]: 1-based; a scan's lines are those of
# groundtruth/<stem>.txt, title first; a table's page is its sheet and its line the sheet row; a PDF's line
# is the entry's line in the transcription) for an oracle replay, languages, scripts, sources, licences.
# groundtruth/ holds the text drawn on each image (for OCR error rates); never give it to an agent.
# Scored by GAIA-style quasi-exact match, offline; pass@1 and pass@2 over the two epochs, overall and per
# level and per tool (group_by: results.json keys such as match/pass@2[level=3], match/accuracy[tools=ocr]).
# For the HistBench-style judge as well, list `- judge` under scorers in a copy of this file and pass
# --judge-model (local/smollm2-135m works offline).
name: hist_offline
version: "1.0"
description: History questions over invented scans, PDFs, tables and an archive (11 languages, 7 scripts).
workflow: histagent
data: [samples.jsonl]
id_field: id
input:
  question: "{question}"
  attachments: "{attachments}"
target: answer
metadata: [answer_type, level, tools, languages, scripts, evidence, choices]
group_by: [level, tools]
scorers:
  - match
answer_field: answer
metrics: [accuracy, stderr, pass@1, pass@2]
epochs: 2
limits: {working_time_s: 600, time_s: 1800, tokens: 60000, cost: null}
config:
  archive: archive
generation: {temperature: 0, max_tokens: 1024}
"""


def _write_scans(out: Path) -> list[Doc]:
    docs = []
    for i, scan in enumerate(SCANS):
        image, lines = render_page(scan.title, scan.body, scan.footer, scan.style, seed=SEED + i)
        path = SCAN.format(scan.stem)
        image.save(out / path, optimize=True)
        (out / "groundtruth" / f"{scan.stem}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        docs.append(Doc(path, scan.title, scan.language, scan.script, f"page scan ({scan.source})", [lines],
                        "written for paperworks (invented document)"))
    return docs


def generate(out: Path) -> dict[str, int]:
    """Write the whole suite into ``out`` (owned subfolders are replaced); returns counts."""
    out.mkdir(parents=True, exist_ok=True)
    for name in OWNED:
        shutil.rmtree(out / name, ignore_errors=True)
    for sub in ["attachments/scans", "attachments/pdf", "attachments/tables", "attachments/docs",
                "attachments/images", "groundtruth"]:
        (out / sub).mkdir(parents=True)
    rng = random.Random(SEED)
    fam = build_archive(SEED)
    docs = _write_scans(out)
    vessels = sorted({e[1] for d in fam["shipping"] for e in d.facts["entries"]})
    docs += [gravestone(out, SEED), harbour_register(out, random.Random(f"{SEED}-register"), vessels),
             chronicle(out), grain_prices(out, random.Random(f"{SEED}-prices")), crew_list(out), inventory(out)]
    archive_docs = [d for family in fam.values() for d in family]
    for doc in archive_docs:
        (out / doc.path).parent.mkdir(parents=True, exist_ok=True)
        (out / doc.path).write_text("\n".join(doc.pages[0]) + "\n", encoding="utf-8")
    by_path = {d.path: d for d in docs + archive_docs}
    if len(by_path) != len(docs) + len(archive_docs):
        raise RuntimeError("two generated documents share a path")
    questions: list[Question] = (scan_questions(by_path) + file_questions(by_path, rng)
                                 + archive_questions(fam, rng) + chain_questions(by_path, fam))
    with open(out / "samples.jsonl", "w", encoding="utf-8") as fh:
        for q in questions:
            fh.write(json.dumps(q.row(by_path), ensure_ascii=False) + "\n")
    with open(out / "documents.jsonl", "w", encoding="utf-8") as fh:
        for d in docs + archive_docs:
            fh.write(json.dumps({"path": d.path, "title": d.title, "language": d.language, "script": d.script,
                                 "kind": d.kind, "pages": len(d.pages), "source": d.source,
                                 "licence": d.licence}, ensure_ascii=False) + "\n")
    (out / "SOURCES.md").write_text(_sources(docs, archive_docs), encoding="utf-8")
    (out / "suite.yaml").write_text(SUITE_YAML, encoding="utf-8")
    return {"questions": len(questions), "attachments": len(docs), "archive": len(archive_docs)}


def _sources(docs: list[Doc], archive_docs: list[Doc]) -> str:
    lines = ["# Sources and licences of hist_offline", "",
             "Every document here except archive/tang/ was written for paperworks and is released under CC0-1.0:",
             "the people, places, dates and figures are invented (the towns Port Aldwen, Hohenwalde, Hervilla,",
             "Saint-Aubin-sur-Lère, Baisha county and the rest do not exist as described), so questions about them",
             "need the documents. archive/tang/ holds public-domain Tang poems (7th-10th century) taken from the",
             "Debian package fortunes-zh 2.98 (/usr/share/games/fortunes/tang300; packaging GPL-3.0+). Fonts used",
             "to render the scans: DejaVu (fonts-dejavu-core), Blankenburg (fonts-blankenburg, Fraktur), Amiri",
             "(fonts-hosny-amiri), WenQuanYi Zen Hei (fonts-wqy-zenhei); the rendered images are CC0 as well.", "",
             "| path | language | script | kind | source | licence |", "|---|---|---|---|---|---|"]
    for d in docs + archive_docs:
        lines.append(f"| {d.path} | {d.language} | {d.script} | {d.kind} | {d.source} | {d.licence} |")
    return "\n".join(lines) + "\n"


def tree_hashes(folder: Path) -> dict[str, str]:
    """sha256 of every generated file under ``folder``, by relative path."""
    paths = [p for name in OWNED for p in (folder / name).rglob("*") if p.is_file()]
    paths += [folder / name for name in OWNED_FILES if (folder / name).exists()]
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(paths)}


def main(argv: list[str] | None = None) -> int:
    """CLI entry: generate, or with --check compare a fresh generation to the committed folder."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder to write (default evals/hist_offline)")
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
    print(f"wrote {args.out}: {counts['questions']} questions, {counts['attachments']} attachments, "
          f"{counts['archive']} archive documents")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
