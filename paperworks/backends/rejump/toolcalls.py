"""A deterministic ReJump extractor for tool-call traces (no language model), for the real-trace diagnostic.

The ``agent`` workflow on the ``arith`` suite solves a word problem with ``calculate`` calls. Its trace is
turned into a ReJump by a fixed rule instead of by an extractor model (the embedded one gives no valid tree):

- the root (``node1``) is the problem;
- each calculator call is a node whose Problem is the expression and whose Result is the tool's reply;
- a call *refines* an earlier one when its expression contains that call's result (a number the tool
  returned, exact or approximate form): it becomes that call's child (the latest such call); any other call
  is a new top-level attempt, a child of the root;
- a call that repeats an earlier expression under the same parent is no new node: the walk re-visits it as
  a ``verification`` step (re-doing that node's work, as the authors' walk prompt defines verification);
- the walk starts at the root; reaching a new node from where it stands is ``calculation/derivation`` when
  the node is a child of the current one, else ``backtracking`` to the node's parent followed by a
  ``calculation/derivation`` step down to it (the authors' rule for abandoning a line of thought).

:func:`calls_from_run` reads a recorded eval's calls and scores from ``events.jsonl`` / ``samples.jsonl``
(plain JSON lines); :func:`rejump_from_calls` builds the ReJump of one sample.

Run ``python -m paperworks.backends.rejump.toolcalls RUN_DIR OUT.json`` to save a run's calls for the repro.
"""

from __future__ import annotations

import json
import re
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

from paperworks.backends.rejump.tree import BACK, CALC, VERIFY, Node, ReJump, Step
from paperworks.core.errors import UserError

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:/\d+)?")


def _numbers(text: str) -> set[Fraction]:
    """Every number written in ``text`` (``133/2 ≈ 66.5`` gives 133/2 and 66.5), as exact fractions."""
    out = set()
    for tok in _NUMBER.findall(text.replace(",", "")):
        try:
            out.add(Fraction(tok))
        except (ValueError, ZeroDivisionError):
            continue
    return out


def _operands(expression: str) -> set[Fraction]:
    """The numbers an expression uses (a minus sign is an operator here, not part of the number)."""
    return {abs(x) for x in _numbers(expression)}


def rejump_from_calls(problem: str, calls: list[dict[str, str]]) -> ReJump:
    """The ReJump of one trace: ``calls`` are ``{"expression", "result"}`` in the order they were made."""
    nodes: dict[str, Node] = {"node1": Node("node1", problem, None)}
    results: list[tuple[str, set[Fraction]]] = []  # (node id, numbers of its result), oldest first
    walk: list[Step] = []
    cur = "node1"
    for call in calls:
        expr, result = str(call.get("expression", "")).strip(), str(call.get("result", "")).strip()
        used = _operands(expr)
        parent = next((nid for nid, vals in reversed(results) if vals and {abs(v) for v in vals} & used),
                      "node1")
        same = next((n.id for n in nodes.values() if n.parent == parent and n.problem == expr), None)
        if same is not None:
            walk.append(Step(cur, same, VERIFY))  # an immediate repeat is a self-visit: still a verification
            cur = same
            continue
        nid = f"node{len(nodes) + 1}"
        nodes[nid] = Node(nid, expr, parent, result or None)
        results.append((nid, _numbers(result)))
        if parent != cur:
            walk.append(Step(cur, parent, BACK))
        walk.append(Step(parent, nid, CALC))
        cur = nid
    rj = ReJump(nodes, walk)
    rj.validate()
    return rj


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise UserError(f"{path}: not found (expected a recorded eval run directory)")
    rows = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except ValueError as exc:
            raise UserError(f"{path}:{i + 1}: not JSON ({exc})") from exc
    return rows


def _observation(run_path: Path, event: dict[str, Any]) -> str:
    ref = event.get("observation_ref")
    if isinstance(ref, str):
        try:
            return str(json.loads((run_path / ref).read_text(encoding="utf-8"))["observation"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
    return str(event.get("observation") or "")


def calls_from_run(run_path: Path) -> list[dict[str, Any]]:
    """Each sample of a recorded eval: key, problem, target, whether it passed, and its calculator calls."""
    events = _read_jsonl(run_path / "events.jsonl")
    calls: dict[str, list[dict[str, str]]] = {}
    for ev in events:
        if ev.get("type") == "tool_call" and ev.get("ok") is not False:
            raw = ev.get("arguments")
            args: dict[str, Any] = raw if isinstance(raw, dict) else {}
            calls.setdefault(str(ev.get("sample") or ""), []).append(
                {"expression": str(args.get("expression", "")), "result": _observation(run_path, ev)})
    out = []
    for rec in _read_jsonl(run_path / "samples.jsonl"):
        key = f"{rec.get('id')}#{rec.get('epoch', 1)}"
        scores = rec.get("scores") or {}
        passed = any(bool(s.get("passed")) for s in scores.values() if isinstance(s, dict))
        task = (rec.get("input") or {}).get("task", "") if isinstance(rec.get("input"), dict) else ""
        out.append({"key": key, "problem": str(task), "target": rec.get("target"), "passed": passed,
                    "status": rec.get("status"), "calls": calls.get(key, [])})
    return out


def main(argv: list[str]) -> int:
    """``RUN_DIR OUT.json [COMMAND]``: save a recorded eval's calls (and the command that made the run)."""
    if len(argv) not in (2, 3):
        print("usage: python -m paperworks.backends.rejump.toolcalls RUN_DIR OUT.json [COMMAND]", file=sys.stderr)
        return 2
    run_path, out = Path(argv[0]), Path(argv[1])
    samples = calls_from_run(run_path)
    doc = {"run": run_path.name, "command": argv[2] if len(argv) == 3 else None,
           "extractor": "paperworks.backends.rejump.toolcalls (deterministic, see its docstring)",
           "samples": samples}
    out.write_text(json.dumps(doc, indent=1, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    print(f"wrote {len(samples)} samples to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
