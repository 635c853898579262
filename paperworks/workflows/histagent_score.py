"""HistAgent's own scorer: did the answer cite the documents its evidence is in?"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paperworks.core.scoring import Score


def _names(items: Any) -> set[str]:
    """File names of the documents in an evidence list (paths differ: relative in a suite, absolute in a run)."""
    return {Path(str(e.get("document", ""))).name for e in items or [] if isinstance(e, dict) and e.get("document")}


async def evidence(sample: Any, output: Any, answer: str, ctx: Any) -> Score:
    """Evidence recall: the share of the row's evidence documents (``metadata.evidence``) that the output's
    ``evidence`` cites; passed when all are cited. A row without evidence scores 1.0."""
    wanted = _names((getattr(sample, "metadata", None) or {}).get("evidence"))
    cited = _names(output.get("evidence") if isinstance(output, dict) else None)
    if not wanted:
        return Score(value=1.0, passed=True, explanation="the row names no evidence")
    found = wanted & cited
    missing = sorted(wanted - cited)
    return Score(value=len(found) / len(wanted), passed=not missing,
                 explanation="cited every evidence document" if not missing else f"not cited: {', '.join(missing)}",
                 details={"cited": sorted(cited)})
