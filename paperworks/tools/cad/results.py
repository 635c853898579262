"""The result and option types of the CAD sandbox (host side, plain dataclasses)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class SandboxLimits:
    """Resource limits of one candidate."""

    wall_s: float = 60
    """Wall-clock seconds for the build, and again for the judgement (tests, checks, exports)."""
    cpu_s: int = 60
    """CPU seconds (RLIMIT_CPU)."""
    memory_mb: int = 2048
    """Memory the candidate may allocate on top of the warm worker: its memory cgroup's limit (all pages,
    shared ones too) where cgroups are available, and RLIMIT_DATA (private memory) always. The judge's
    children get the same limits."""
    output_kb: int = 256
    """Tail of stdout/stderr kept."""
    files_mb: int = 64
    """Largest file it may write (RLIMIT_FSIZE) and most geometry copied out; its private /tmp holds 4x."""


@dataclass
class CheckOptions:
    """Which assembly checks and artifacts to produce."""

    interference_tol_mm3: float = 1e-3
    """Intersection volume above which two parts interfere."""
    contact_tol_mm: float = 0.05
    """Parts closer than this touch; a part touching none is floating."""
    envelope: tuple[float, float, float] | None = None
    """Largest allowed overall size (x, y, z) in mm."""
    renders: bool = True
    """PNG renders (iso, front, top, side); only when an out_dir is given."""
    exports: bool = True
    """STEP and STL; only when an out_dir is given."""
    clearances: list[tuple[str, str, float | None, float | None]] = field(default_factory=list)
    """(part a, part b, min mm, max mm): minimum-distance checks between mating parts."""
    density: float | dict[str, float] | None = None
    """g/cm³ (one number, or per part) for masses in ``parts``."""


@dataclass
class TestResult:
    """One ``test_*`` function's outcome."""

    name: str
    passed: bool
    message: str


@dataclass
class CheckResult:
    """One geometry check (``valid_solids``, ``interference:a/b``, ``floating:x``, ``envelope``, ...)."""

    name: str
    passed: bool
    message: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class SandboxResult:
    """Everything about one candidate. ``ok``: it compiled, built, and all tests and checks passed."""

    ok: bool
    stage: str
    error: str | None
    error_line: int | None
    tests: list[TestResult] = field(default_factory=list)
    checks: list[CheckResult] = field(default_factory=list)
    parts: list[dict[str, Any]] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    artifacts: dict[str, str] = field(default_factory=dict)
    stdout_tail: str = ""
    time_s: float = 0.0
    peak_rss_mb: float = 0.0
    """Peak resident memory of the candidate process (MB; 0 when unknown)."""
    source: str = ""
    """Where the program's shapes came from (``build(params)``, ```result```, ```final_result```, ...)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict."""
        return asdict(self)
