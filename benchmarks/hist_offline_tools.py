"""HistAgent's tools on the hist_offline suite's own data (issue 11's "done when"): the OCR character error
rate of every aged page scan against the text drawn on it (``groundtruth/``; the goal of ≤ 2% is for clean
renders, measured by histagent_tools.py), and the archive's recall@5 on the suite's archive questions (the
question as the query; a hit when an evidence document is among the top 5; goal ≥ 0.9). Writes
benchmarks/results/hist_offline_tools.json.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SUITE = ROOT / "evals" / "hist_offline"
# The page's language (and script, where a script model reads it better) → tesseract languages.
PACKS = {("de", "Fraktur"): "frk", ("lzh", "Han (traditional)"): "chi_tra"}


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions)."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def cer(reference: str, hypothesis: str, ignore_spaces: bool = False) -> float:
    """Character error rate after NFKC with whitespace runs as one space (removed for CJK)."""
    ref, hyp = (" ".join(unicodedata.normalize("NFKC", t).split()) for t in (reference, hypothesis))
    if ignore_spaces:
        ref, hyp = ref.replace(" ", ""), hyp.replace(" ", "")
    return levenshtein(ref, hyp) / max(1, len(ref))


def ocr_pages() -> dict[str, dict[str, object]]:
    from paperworks.tools.ocr.engine import ocr_image

    docs = [json.loads(line) for line in (SUITE / "documents.jsonl").read_text().splitlines()]
    out: dict[str, dict[str, object]] = {}
    for doc in docs:
        path = SUITE / doc["path"]
        truth = SUITE / "groundtruth" / (path.stem + ".txt")
        if "scans/" not in doc["path"] or not truth.is_file():
            continue
        langs = PACKS.get((doc["language"], doc["script"]), doc["language"])
        start = time.monotonic()
        text = ocr_image(path, languages=langs).text
        out[path.stem] = {"language": doc["language"], "script": doc["script"], "tesseract": langs,
                          "cer": round(cer(truth.read_text(encoding="utf-8"), text, doc["language"] == "lzh"), 4),
                          "seconds": round(time.monotonic() - start, 2)}
        print(f"ocr {path.stem:24s} {langs:8s} CER {out[path.stem]['cer']:.3f}", flush=True)
    return out


def archive_recall(k: int = 5) -> dict[str, object]:
    from paperworks.tools.archive.store import Archive

    rows = [json.loads(line) for line in (SUITE / "samples.jsonl").read_text().splitlines()]
    asked = [r for r in rows if "archive_search" in r["tools"]]
    with tempfile.TemporaryDirectory() as tmp:
        archive = Archive(tmp)
        start = time.monotonic()
        archive.add([SUITE / "archive"])
        ingest_s = time.monotonic() - start
        found, misses = 0, []
        for row in asked:
            wanted = {str((SUITE / e["document"]).resolve()) for e in row["evidence"]
                      if str(e.get("document", "")).startswith("archive/")}
            hits = {h.document for h in archive.search(row["question"], k)}
            if wanted & hits:
                found += 1
            else:
                misses.append(row["id"])
        archive.close()
    return {"questions": len(asked), f"recall_at_{k}": round(found / max(1, len(asked)), 3), "misses": misses,
            "documents": len(list((SUITE / "archive").rglob("*.md"))), "ingest_s": round(ingest_s, 1)}


def main() -> None:
    out: dict[str, object] = {"cpu_count": os.cpu_count(), "python": platform.python_version(),
                              "command": "python benchmarks/hist_offline_tools.py"}
    pages = ocr_pages()
    out["ocr"] = pages
    # These are the suite's aged scans (noise, blur, rotation, sepia), harder than the goal of
    # <= 2% on *clean* renders (measured in histagent_tools.json); reported per page, no goal flag.
    out["ocr_cer_mean"] = round(sum(float(str(p["cer"])) for p in pages.values()) / max(1, len(pages)), 4)
    out["archive"] = archive_recall()
    out["archive_goal_met"] = out["archive"]["recall_at_5"] >= 0.9  # type: ignore[index]
    path = ROOT / "benchmarks" / "results" / "hist_offline_tools.json"
    path.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
