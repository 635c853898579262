"""Host side of build → judge: read what a build left (geometry and a manifest: data, never a
verdict), validate it and hand it to the judge, and turn the judge's reply into a ``SandboxResult``.

The only verdicts are the judge zygote's stdout reply: its checks child's checks and its tests
child's outcomes, checked against the test names the checks child enumerated from the tests file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from paperworks.tools.cad import procs
from paperworks.tools.cad.results import CheckResult, SandboxLimits, SandboxResult, TestResult

SIGNALS = {4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV", 24: "SIGXCPU",
           25: "SIGXFSZ"}
BUILD_STAGES = {"compile", "build", "export"}
PART_FILE = re.compile(r"part_(\d{1,3})\.brep")


def read_capped(path: Path, cap: int) -> bytes | None:
    """A regular file's bytes (no links, FIFOs, devices), None when missing or larger than ``cap``."""
    return procs.read_capped(str(path), cap)


def _text(value: Any, cap: int = 400) -> str:
    return str(value)[:cap]


def ended(reply: dict[str, Any], limits: SandboxLimits, during: str) -> tuple[str, str] | None:
    """(stage, error) when a child was stopped (time, CPU, memory, a crash), else None."""
    if reply.get("timed_out"):
        return "timeout", f"timed out after {limits.wall_s:g} s (wall clock) during {during}"
    sig = reply.get("signal")
    if sig:
        if reply.get("oom") or (sig == 9 and reply.get("cgroup_peak_mb", 0) >= limits.memory_mb * 0.95):
            what = f"memory limit ({limits.memory_mb} MB) exceeded (killed by the memory cgroup)"
        else:
            what = {24: f"CPU time limit ({limits.cpu_s} s) exceeded",
                    25: f"file size limit ({limits.files_mb} MB) exceeded"}.get(int(sig), "the program crashed")
        return "killed", f"{what} (signal {SIGNALS.get(int(sig), sig)}) during {during}"
    return None


def build_outcome(reply: dict[str, Any], folder: Path, limits: SandboxLimits) -> tuple[SandboxResult, dict[str, Any]]:
    """The build's result so far and the validated manifest ({} when there is no usable geometry)."""
    tail = (read_capped(folder / "stdout.txt", (limits.output_kb << 10) + 1) or b"").decode("utf-8", "replace")
    stage_txt = (read_capped(folder / "stage.txt", 64) or b"build").decode("ascii", "replace").strip()
    raw = read_capped(folder / "manifest.json", 1 << 20)
    malformed = False
    try:
        data = procs.loads(raw) if raw else None
    except ValueError:  # not JSON or nested too deeply (a candidate may write the file itself)
        data, malformed = None, True
    res = SandboxResult(False, "build", None, None, stdout_tail=tail)
    if isinstance(data, dict) and isinstance(data.get("params"), dict):
        params = data["params"]
        res.params = params if len(json.dumps(params, default=str)) <= 65536 else {}
    stopped = ended(reply, limits, stage_txt if stage_txt in BUILD_STAGES else "build")
    if stopped:
        res.stage, res.error = stopped
        return res, {}
    if malformed:
        res.error = (f"the build's manifest.json is malformed (not JSON, or nested deeper than {procs.JSON_DEPTH} "
                     "levels: are PARAMS nested that deeply?)")
        return res, {}
    if not isinstance(data, dict):
        res.stage, res.error = "killed", (f"the program exited (code {reply.get('exit')}) during {stage_txt}, "
                                          "before its geometry was written")
        return res, {}
    if data.get("error") or data.get("stage") != "built":
        res.stage = _text(data.get("stage")) if data.get("stage") in BUILD_STAGES else "build"
        res.error = _text(data.get("error") or "the build did not finish")
        line = data.get("error_line")
        res.error_line = line if isinstance(line, int) and not isinstance(line, bool) else None
        return res, {}
    parts, names = [], set()
    for entry in data.get("parts") or []:
        name, file = (entry.get("name"), entry.get("file")) if isinstance(entry, dict) else (None, None)
        ok_name = isinstance(name, str) and 0 < len(name) <= 200 and name.isprintable() and name not in names
        if not ok_name or not isinstance(file, str) or not PART_FILE.fullmatch(file):
            res.error = f"the build's part list is malformed at {_text(entry, 80)!r}"
            return res, {}
        if read_capped(folder / file, limits.files_mb << 20) is None:
            res.error = f"part {name!r}: no geometry file (missing, not a regular file, or over {limits.files_mb} MB)"
            return res, {}
        names.add(name)
        parts.append({"name": name, "file": file})
    if not parts:
        res.error = "the build wrote no parts"
        return res, {}
    res.stage, res.source = "built", _text(data.get("source") or "", 80)
    return res, {"parts": parts, "params": res.params}


def stage_geometry(manifest: dict[str, Any], src: Path, dst: Path) -> None:
    """Copy the manifest's part files into the judge's read-only input folder ``dst``."""
    dst.mkdir(mode=0o755)
    for entry in manifest["parts"]:
        shutil.copyfile(src / entry["file"], dst / entry["file"], follow_symlinks=False)
        os.chmod(dst / entry["file"], 0o644)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _items(answer: Any, key: str) -> list[dict[str, Any]]:
    value = answer.get(key) if isinstance(answer, dict) else None
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def judged(res: SandboxResult, reply: dict[str, Any] | None, has_tests: bool, limits: SandboxLimits,
           judge_out: Path, out_dir: Path | None) -> SandboxResult:
    """Fill ``res`` (a finished build) from the judge's reply; ``ok`` only when the judge says so."""
    if reply is None:
        res.stage, res.error = "sandbox", "the judge stopped answering"
        return res
    checks_r, tests_r = reply.get("checks") or {}, reply.get("tests") or {}
    a = checks_r.get("answer") if isinstance(checks_r.get("answer"), dict) else None
    stopped = ended(checks_r, limits, "the judge's checks")
    if a is None:
        res.stage, res.error = "checks", (stopped[1] if stopped else "the judge's checks gave no answer")
        return res
    res.checks = [CheckResult(_text(c.get("name"), 200), c.get("passed") is True, _text(c.get("message"), 500),
                              _dict(c.get("details")))
                  for c in _items(a, "checks")]
    res.parts = _items(a, "parts")
    for key, name in (a.get("artifacts") or {}).items():
        src = judge_out / Path(str(name)).name
        if out_dir is not None and read_capped(src, 1 << 30) is not None:
            shutil.copyfile(src, out_dir / src.name)
            res.artifacts[str(key)] = str(out_dir / src.name)
    if a.get("error") or a.get("stage") != "done":
        res.stage = "load" if a.get("stage") == "load" else "checks"
        res.error = _text(a.get("error") or "the judge's checks did not finish")
        return res
    res.stage = "done"
    if has_tests:
        _tests(res, a, tests_r, limits)
    res.ok = res.stage == "done" and not res.error and bool(res.checks) and \
        all(t.passed for t in res.tests) and all(c.passed for c in res.checks)
    return res


def _tests(res: SandboxResult, a: dict[str, Any], tests_r: dict[str, Any], limits: SandboxLimits) -> None:
    """The tests child's outcomes, accepted only for exactly the names enumerated from the file."""
    if a.get("tests_error"):
        res.stage, res.error = "tests", _text(a["tests_error"])
        return
    names = [str(n) for n in a.get("test_names") or []]
    b = tests_r.get("answer") if isinstance(tests_r.get("answer"), dict) else None
    stopped = ended(tests_r, limits, "the tests")
    if b is None or b.get("error"):
        why = _text(b.get("error")) if b else (stopped[1] if stopped else "the tests gave no answer")
        res.tests = [TestResult(n, False, why) for n in names]
        res.stage, res.error = "tests", why
        return
    got = [t for t in _items(b, "tests")]
    reported = [str(t.get("name")) for t in got]
    if sorted(reported) != sorted(names) or len(set(reported)) != len(reported):
        missing = sorted(set(names) - set(reported))
        extra = sorted(set(reported) - set(names)) or sorted({n for n in reported if reported.count(n) > 1})
        res.tests = [TestResult(n, False, "no valid outcome") for n in names]
        res.stage, res.error = "tests", (f"tests.py: the test run reported {len(reported)} outcomes for "
                                         f"{len(names)} tests (missing: {', '.join(missing) or 'none'}; "
                                         f"extra or repeated: {', '.join(extra[:5]) or 'none'})")
        return
    vacuous = {str(n) for n in a.get("vacuous_tests") or []}
    res.tests = [TestResult(str(t.get("name")), False, f"{t.get('name')} asserts nothing: it would pass whatever the "
                            "geometry; check something with assert") if str(t.get("name")) in vacuous else
                 TestResult(str(t.get("name")), t.get("passed") is True, _text(t.get("message"), 500)) for t in got]
