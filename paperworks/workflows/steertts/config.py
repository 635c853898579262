"""Input and settings of the ``steertts`` workflow (``paperworks.workflows.steertts``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from paperworks.core.errors import UserError

MAX_INSTRUCTION_CHARS = 1000
"""Longest speaking instruction: it goes into every parser and supervisor prompt."""


class SteerInput(BaseModel):
    """What to say, how, and in which voice."""

    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not silently dropped

    text: str = Field(description="The text to speak.")
    instruction: str = Field(description="How to say it, e.g. 'angry but restrained, 60%'.")
    voice: str = Field("en-us", description="An espeak-ng voice (`paperworks tts voices`).")

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        from paperworks.tools.speech.espeak import check_text

        try:
            return check_text(value)
        except UserError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("instruction")
    @classmethod
    def _instruction(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the instruction is empty (say how to speak, e.g. 'sad yet hopeful, 60%')")
        value = " ".join(value.split())
        if len(value) > MAX_INSTRUCTION_CHARS:
            raise ValueError(f"the instruction has {len(value)} characters; at most {MAX_INSTRUCTION_CHARS} "
                             "(say how to speak in a sentence)")
        return value

    @field_validator("voice")
    @classmethod
    def _voice(cls, value: str) -> str:
        from paperworks.tools.speech.espeak import resolve_voice

        try:
            return resolve_voice(value)
        except UserError as exc:
            raise ValueError(str(exc)) from None


class SteerConfig(BaseModel):
    """Settings of ``steertts``."""

    library: str = Field("small", pattern="^(tiny|quick|small|full)$",
                         description="Prototype library preset (small: 432 renders, built once in about a minute).")
    parser: str = Field("model", pattern="^(model|keyword)$", description="Intent parser: the model, or the "
                        "keyword table only.")
    supervisor: str = Field("model", pattern="^(model|rules)$", description="Supervisor: the model (rules "
                            "when its reply cannot be read), or the rules only.")
    fast_budget: int = Field(4, ge=1, le=20, description="Renders per plan in the fast loop.")
    max_replans: int = Field(1, ge=0, le=5, description="Supervisor re-plans (the slow loop).")
    tolerance_jnd: float = Field(0.3, gt=0, allow_inf_nan=False,
                                 description="Control-error tolerance (JND, targeted features).")
    intensity_tolerance: float = Field(0.15, gt=0, allow_inf_nan=False,
                                       description="Allowed |measured / intended strength - 1|.")
    anchors: int = Field(4, ge=1, le=16, description="Anchors per intent component.")
    ladder: bool = Field(False, description="Also render the intent at 30/60/100% (intensity_monotonicity).")
    ladder_budget: int = Field(2, ge=1, le=10, description="Renders per ladder level.")
    max_tokens: int = Field(160, ge=16, description="Reply length of the model calls (unless the run sets one).")
