"""HistAgent's settings, input and graph state."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, field_validator

from paperworks.models.types import Message

SPECIALIST_NAMES = ["archive", "ocr", "translator", "file_reader", "image_analyst", "speech"]


class HistInput(BaseModel):
    """Input of the ``histagent`` workflow."""

    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not silently dropped

    question: str = Field(min_length=1, description="The history question.")
    attachments: list[str] = Field(default_factory=list, description="Files the question is about: images, "
                                   "PDF, DOCX, XLSX, PPTX, CSV, audio, video (relative to the suite in an eval).")


class HistConfig(BaseModel):
    """Settings of the ``histagent`` workflow (``-c key=value``)."""

    max_steps: int = Field(10, ge=1, le=100, description="Manager turns per question before stopping.")
    specialist_steps: int = Field(4, ge=1, le=50, description="Model turns of one specialist per sub-task.")
    replan_every: int = Field(3, ge=0, le=100, description="Revise the plan after every k manager turns "
                              "(0: never).")
    specialists: list[str] = Field(default_factory=lambda: list(SPECIALIST_NAMES),
                                   description="Specialists the manager may delegate to (speech only where a "
                                               "transcription tool exists).")
    archive: str = Field("", description="Archive for the archive specialist: an index folder or a folder of "
                         "documents (ingested once, cached); relative to the suite in an eval; '' = the "
                         "default archive (PAPERWORKS_ARCHIVE).")
    reformulate: Literal["auto", "always", "never"] = Field(
        "auto", description="Rewrite the final answer with the model: auto = only when it is long.")
    max_answer_words: int = Field(12, ge=1, description="auto: a draft longer than this is reformulated.")
    observation_chars: int = Field(4000, ge=200, description="A tool observation is cut to this many characters "
                                   "in the specialist's prompt (the trace keeps it whole).")
    report_chars: int = Field(2000, ge=200, description="A specialist's report is cut to this many characters "
                              "in the manager's prompt.")
    vision: Literal["auto", "always", "never"] = Field(
        "auto", description="Show the image analyst its image attachments and video frames as images: auto = "
        "when the gateway knows the model takes images (litellm's supports_vision); always = also for a vision "
        "model litellm does not know (a local server); never = text tools only (size, EXIF, OCR, colours).")
    vision_images: int = Field(8, ge=1, le=32, description="Most images in one request to a vision model (the "
                               "attachments first, then video frames, evenly spaced).")
    vision_side: int = Field(1024, ge=64, le=4096, description="Images sent to a vision model are downscaled so "
                             "their longer side is at most this many pixels (and re-encoded as JPEG, at most 1 MB).")

    @field_validator("specialists")
    @classmethod
    def _known(cls, names: list[str]) -> list[str]:
        unknown = [n for n in names if n not in SPECIALIST_NAMES]
        if unknown:
            raise ValueError(f"unknown specialist(s) {unknown}; known: {', '.join(SPECIALIST_NAMES)}")
        return names


class HistState(TypedDict, total=False):
    """State of one question (and, in chat, of the conversation: messages and evidence persist)."""

    question: str
    attachments: list[str]
    plan: str
    messages: list[Message]
    """The manager's conversation (without its system prompt)."""
    steps: int
    since_plan: int
    revisions: int
    queue: list[dict[str, Any]]
    """Tool calls of the manager's last turn still to serve (OpenAI form)."""
    active: dict[str, Any] | None
    """The delegation being served: {id, specialist, task}."""
    sub_messages: list[Message]
    sub_steps: int
    sub_report: str
    reports: list[dict[str, Any]]
    tools_used: list[dict[str, Any]]
    evidence: list[dict[str, Any]]
    draft: str
    answer: str
    status: str


def turn_state(question: str, attachments: list[str]) -> dict[str, Any]:
    """State update for a new question: fresh budgets and tool record; the manager's messages and the
    evidence carry over."""
    return {"question": question, "attachments": list(attachments), "steps": 0, "since_plan": 0,
            "revisions": 0, "queue": [], "active": None, "sub_messages": [], "sub_steps": 0, "sub_report": "",
            "reports": [], "tools_used": [], "draft": "", "answer": "", "status": "running"}
