"""The Lean layer of D-FPS: FPS problems rendered as Lean text, a Lean REPL interface with a real
driver (leanprover-community/repl in a subprocess) and a scripted stand-in, step-by-step forward /
backward sessions, and RPE answer checks. Nothing here imports anything heavy; Lean itself is optional
(``lean_available()``)."""

from paperworks.tools.lean.goals import Goal, Hyp, visible_goals
from paperworks.tools.lean.problem import (
    DEFAULT_IMPORTS,
    DEFAULT_OPENS,
    H_ANSWER,
    H_SUBMISSION,
    Binder,
    FpsProblem,
    load_problems,
)
from paperworks.tools.lean.project import LeanSetup, find_lean, lean_available, open_repl
from paperworks.tools.lean.repl import CommandResult, LeanError, LeanMessage, LeanRepl, ProofState, TacticResult
from paperworks.tools.lean.rpe import (
    RPE_LABEL,
    RPE_TACTICS,
    RpeAttempt,
    RpeVerdict,
    check_backward,
    check_certificate,
    rpe_check,
)
from paperworks.tools.lean.scripted import Rule, ScriptedLean
from paperworks.tools.lean.session import DfpsSession, StepRecord
from paperworks.tools.lean.submission import Submission, extract_submission, submission_from_goal, submitted_name
from paperworks.tools.lean.subprocess_repl import SubprocessRepl
from paperworks.tools.lean.text import DEFAULT_BANNED, UNSAFE_TOKENS, find_banned, split_steps, strip_comments

__all__ = [
    "DEFAULT_BANNED", "DEFAULT_IMPORTS", "DEFAULT_OPENS", "H_ANSWER", "H_SUBMISSION", "RPE_LABEL", "RPE_TACTICS",
    "UNSAFE_TOKENS", "Binder", "CommandResult", "DfpsSession", "FpsProblem", "Goal", "Hyp", "LeanError",
    "LeanMessage", "LeanRepl", "LeanSetup", "ProofState", "RpeAttempt", "RpeVerdict", "Rule", "ScriptedLean",
    "StepRecord", "Submission", "SubprocessRepl", "TacticResult", "check_backward", "check_certificate",
    "extract_submission", "find_banned", "find_lean", "lean_available", "load_problems", "open_repl",
    "rpe_check", "split_steps", "strip_comments", "submission_from_goal", "submitted_name", "visible_goals",
]
