"""HistAgent's prompts. Each starts with a ``[role: ...]`` marker, and every loop prompt says which step
of its budget it is (``step 2 of 8``): it helps a model pace itself and lets scripted tests pick replies."""

from __future__ import annotations

from typing import Any

PLANNER = (
    "[role: planner] You plan research on a history question for a manager who delegates to specialists: "
    "{specialists}. Write a short numbered plan (at most 6 steps): which attachment or archive to read, "
    "with which specialist, and what to compute or compare. No answer yet."
)
WRITE_PLAN = "Write a plan for this question.\n\n{brief}"
REVISE_PLAN = (
    "Revise the plan: keep what worked, drop what failed, and say what is still missing.\n\n{brief}\n\n"
    "Current plan:\n{plan}\n\nReports so far:\n{reports}"
)

MANAGER = (
    "[role: manager] You answer history questions from primary sources (manager step {step} of {budget}). "
    "Delegate a sub-task with one of the ask_* tools (each specialist has its own tools and reports back), "
    "use calculate for arithmetic, and when the reports settle the question call final_answer with the "
    "short answer the question asks for and its evidence (document, page, line, quoted text). Do not "
    "answer from memory: the answer must come from the attachments or the archive.\n\nPlan:\n{plan}"
)

SPECIALIST = (
    "[role: {name} specialist] {duty} You have these tools: {tools}. Call them, read their results, and "
    "then reply with a short report (no tool call): the facts found, each with its source (file, page, "
    "line). Report a tool's error as it is. (specialist step {step} of {budget})"
)

DUTIES: dict[str, str] = {
    "archive": "You search the document archive and quote the passages that answer the task, with their "
               "citations.",
    "ocr": "You read the text of scanned pages and images (choose the tesseract languages, e.g. lat, "
           "deu+frk, grc, ara, heb, chi_tra), and identify their language.",
    "translator": "You translate historical texts faithfully, keeping names, dates and numbers.",
    "file_reader": "You read documents (PDF, DOCX, XLSX, CSV, PPTX, JSON, text) and quote the rows, pages or "
                   "lines that matter; use calculate for sums.",
    "image_analyst": "You examine images: size, EXIF metadata (dates, camera, artist), colours, and the "
                     "text in them.",
    "speech": "You transcribe audio recordings and quote what is said.",
}

REFORMULATE = (
    "[role: reformulator] Rewrite the draft answer as the short final answer the question asks for: only "
    "the name, number, date, letter or phrase, with no explanation and no trailing period.\n\n"
    "Question: {question}\n\nDraft answer: {draft}"
)


def brief(question: str, attachments: list[str], evidence: list[dict[str, Any]]) -> str:
    """The question, its attachments and the evidence found in earlier turns, as one text."""
    lines = [f"Question: {question}"]
    if attachments:
        lines.append("Attachments:\n" + "\n".join(f"- {a}" for a in attachments))
    else:
        lines.append("Attachments: none (use the archive)")
    if evidence:
        lines.append("Evidence found so far:\n" + "\n".join(f"- {cite(e)}" for e in evidence))
    return "\n".join(lines)


def cite(e: dict[str, Any]) -> str:
    """``document, page 2, line 5: "text"`` for one evidence item."""
    where = [str(e.get("document", "?"))]
    where += [f"{k} {e[k]}" for k in ("page", "line") if e.get(k) not in (None, "")]
    text = f': "{e["text"]}"' if e.get("text") else ""
    return ", ".join(where) + text


def specialist_task(question: str, attachments: list[str], task: str) -> str:
    """The first user message of a specialist: the manager's sub-task, with the question for context."""
    files = "\n".join(f"- {a}" for a in attachments) or "(none)"
    return f"Task from the manager: {task}\n\nThe research question: {question}\nAttachments:\n{files}"
