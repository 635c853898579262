"""Generated parametric CAD assembly problems for training SPADA on the ``spada_bench`` task, never its items.

Five families (``FAMILIES``; in ``spada_fits``, ``spada_stacks`` and ``spada_bolts``): a headed pin in a
plate's clearance hole (``pin_plate``), a collared shaft in a housing's bore (``shaft_bore``), a plug lid on
an open box (``box_lid``), two boards on four standoffs (``standoff_stack``) and two discs clamped by bolts on
a bolt circle (``bolt_circle``). A draw picks dimensions, positions and part names from the seed; from the
same parameters come the detailed request, a one-sentence abstract request, the hidden tests (the contract:
part names, dimensions, positions, holes, no interference, contact; in the suite's style), the constraints
(envelope, interference and contact tolerances, minimum parts), a reference program and 3-4 mutants (one
edit of the reference each, every one failing a hidden test or check).

``generate(n, seed)`` draws round-robin over the families; ``phrasing="train"`` words each request one of
two ways per family, ``"heldout"`` a third way that training never sees. A draw that ``overlap`` finds in the
shipped suite (the same normalised request, or the same family numbers as a suite item of the category) is
dropped and drawn again, as is a repeat. Deterministic for a seed.

Each row: the suite's keys (``id``, ``request``, ``request_abstract``, ``hidden_tests``, ``reference``,
``mutants`` (paths under ``tasks/<id>/``), ``constraints``, ``category``, ``parts``) plus ``family``,
``params``, ``phrasing`` and ``wording``; ``task_files(row)`` gives the task's files (written by
``write_suite``), rebuilt from the family and parameters.

``oracle_calls(row)`` scripts the model calls of a SPADA run that passes first time (``--sft-from oracle``):
the spec (``oracle_spec``: parts, parameters, constraints), the reference program and the hidden tests as the
oracle's own tests; ``paperworks.train.sft`` turns them into one example per call.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from paperworks.core.errors import UserError
from paperworks.eval.suite_paths import package_suites_dir
from paperworks.train.generators.spada_bolts import BOLT_CIRCLE
from paperworks.train.generators.spada_fits import PIN_PLATE, SHAFT_BORE
from paperworks.train.generators.spada_stacks import BOX_LID, STANDOFF_STACK
from paperworks.train.generators.spada_templates import CONSTRAINTS, Family, envelope, hidden_tests, mutant_text, num

LIKE = "spada_bench"
PHRASINGS = ("train", "heldout")
FAMILIES: dict[str, Family] = {f.name: f for f in (PIN_PLATE, SHAFT_BORE, BOX_LID, STANDOFF_STACK, BOLT_CIRCLE)}
ROW_KEYS = ("id", "request", "request_abstract", "hidden_tests", "reference", "mutants", "constraints", "category",
            "parts", "family", "params", "phrasing", "wording")
ORACLE_TESTS_DOC = '"""Tests of the assembly against the request: part names, sizes, positions, holes and fits."""\n'
MAX_TRIES = 50
"""Draws per wanted row before ``generate`` gives up (a collision with the suite or a repeat is redrawn)."""


def suite_folder(like: str = LIKE) -> Path:
    """The shipped suite's folder (``paperworks/suites/<like>``, or ``evals/<like>`` in a checkout)."""
    folder = package_suites_dir() / like
    if not (folder / "suite.yaml").is_file():
        raise UserError(f"generator 'spada': no suite '{like}' in {package_suites_dir()}")
    return folder


def suite_rows(like: str = LIKE) -> list[dict[str, Any]]:
    """The shipped suite's rows (what generated problems must never repeat)."""
    path = suite_folder(like) / "data.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _norm(text: Any) -> str:
    return re.sub(r"[^a-z0-9]+", " ", str(text).lower()).strip()


def _numbers(text: str) -> set[str]:
    """The magnitudes written in a text, normalised (``80``, ``80.0`` and ``-80`` are all ``80``)."""
    return {num(abs(float(x))) for x in re.findall(r"\d+(?:\.\d+)?", text)}


def _signature(row: dict[str, Any]) -> tuple[str, ...] | None:
    family = FAMILIES.get(str(row.get("family")))
    if family is None or not isinstance(row.get("params"), dict):
        return None
    try:
        return tuple(num(abs(float(v))) for v in family.signature(row["params"]))
    except (KeyError, TypeError, ValueError):
        return None


def _index(suite: list[dict[str, Any]]) -> tuple[set[str], set[tuple[str, tuple[str, ...]]], dict[str, list[set[str]]]]:
    """What ``overlap`` compares with: normalised texts, (family, key numbers), numbers written per category."""
    texts = {_norm(r.get(k)) for r in suite for k in ("request", "request_abstract") if r.get(k)}
    shapes: set[tuple[str, tuple[str, ...]]] = set()
    written: dict[str, list[set[str]]] = {}
    for r in suite:
        sig = _signature(r)
        if sig is not None:
            shapes.add((str(r.get("family")), sig))
        elif r.get("request"):
            written.setdefault(str(r.get("category")), []).append(_numbers(str(r["request"])))
    return texts, shapes, written


def _hits(rows: list[dict[str, Any]], index: tuple[set[str], set[tuple[str, tuple[str, ...]]],
                                                     dict[str, list[set[str]]]]) -> list[str]:
    texts, shapes, written = index
    hits = []
    for row in rows:
        sig = _signature(row)
        same_text = bool({_norm(row.get(k)) for k in ("request", "request_abstract") if row.get(k)} & texts)
        same_shape = sig is not None and (
            (str(row.get("family")), sig) in shapes
            or any(set(sig) <= numbers for numbers in written.get(str(row.get("category")), [])))
        if same_text or same_shape:
            hits.append(str(row.get("id")))
    return hits


def overlap(rows: list[dict[str, Any]], suite: list[dict[str, Any]]) -> list[str]:
    """Ids of ``rows`` that repeat an item of ``suite``: the same normalised request (detailed or abstract),
    the same family and key numbers as a generated suite row, or — for a hand-written suite row — a row of the
    same category whose request writes every key number of the generated problem (a reworded copy)."""
    return _hits(rows, _index(suite))


def make_row(family: str, params: dict[str, Any], task_id: str, *, phrasing: str = "train",
             wording: int = 0) -> dict[str, Any]:
    """The row of one problem of ``family`` with these parameters (``wording``: which of the phrasing's
    request wordings)."""
    if phrasing not in PHRASINGS:
        raise ValueError(f"phrasing must be one of {PHRASINGS}, got {phrasing!r}")
    fam = FAMILIES[family]
    parts = fam.parts(params)
    base = f"tasks/{task_id}"
    return {"id": task_id, "request": fam.requests[phrasing][wording](params),
            "request_abstract": fam.abstract(params), "hidden_tests": f"{base}/hidden_tests.py",
            "reference": f"{base}/reference.py", "mutants": [f"{base}/mutants/{m.name}.py" for m in fam.mutations],
            "constraints": {"envelope": envelope(fam.size(params)), **CONSTRAINTS, "min_parts": len(parts)},
            "category": fam.category, "parts": len(parts), "family": family, "params": dict(params),
            "phrasing": phrasing, "wording": wording}


def task_files(row: dict[str, Any]) -> dict[str, str]:
    """The task's files, by their path in the row (``tasks/<id>/hidden_tests.py``, ``reference.py``,
    ``mutants/<name>.py``), rebuilt from the row's family and parameters."""
    fam, params, task_id = FAMILIES[row["family"]], row["params"], str(row["id"])
    reference = fam.code(params)
    files = {row["hidden_tests"]: hidden_tests(task_id, fam.tests(params)), row["reference"]: reference}
    for m, path in zip(fam.mutations, row["mutants"], strict=True):
        files[path] = mutant_text(task_id, reference, m.name, m.what, *m.edit(params))
    return files


def generate(n: int, seed: int, *, phrasing: str = "train") -> list[dict[str, Any]]:
    """``n`` problems from ``seed`` (round-robin over the families, a random wording of the phrasing each)."""
    if phrasing not in PHRASINGS:
        raise ValueError(f"phrasing must be one of {PHRASINGS}, got {phrasing!r}")
    rng = random.Random(f"spada-{phrasing}-{seed}")
    banned = _index(suite_rows())
    names = sorted(FAMILIES)
    start = rng.randrange(len(names))
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, tuple[str, ...] | None]] = set()
    k = 0
    while len(rows) < n:
        if k >= MAX_TRIES * (n + 1):
            raise ValueError(f"generator 'spada': only {len(rows)} of {n} new problems after {k} draws")
        fam = FAMILIES[names[(start + len(rows)) % len(names)]]
        params = fam.draw(rng)
        wording = rng.randrange(len(fam.requests[phrasing]))
        row = make_row(fam.name, params, f"gen-spada-{phrasing}-{seed}-{k}", phrasing=phrasing, wording=wording)
        k += 1
        key = (fam.name, _signature(row))
        if key in seen or _hits([row], banned):
            continue
        seen.add(key)
        rows.append(row)
    return rows


def oracle_spec(row: dict[str, Any]) -> dict[str, Any]:
    """The design spec an oracle writes for a row (the keys SPADA's ``write_spec`` asks for): the parts, the
    family's parameters (mm; counts and angles without a unit) and the contract's constraints."""
    fam = FAMILIES[row["family"]]
    parts = fam.parts(row["params"])
    units = {"n": "", "angle": "deg"}
    parameters = [{"name": k, "value": v, "unit": units.get(k, "mm")} for k, v in row["params"].items()
                  if isinstance(v, int | float)]
    envelope_mm = " x ".join(num(v) for v in row["constraints"]["envelope"])
    return {"parts": [{"name": p, "description": f"part of the {fam.name.replace('_', ' ')} assembly"} for p in parts],
            "parameters": parameters, "interfaces": [],
            "constraints": ["parts are named exactly as in the request", "no two parts overlap",
                            "every part touches another part", f"the assembly fits in {envelope_mm} mm"]}


def oracle_calls(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The scripted oracle trajectory of SPADA's model calls on a generated row, one reply per node of a run
    that passes first time: ``write_spec`` (``oracle_spec`` as JSON), ``write_code`` (the reference program)
    and ``write_tests`` (the row's hidden tests: for a generated problem the contract is the oracle's own
    test file). No ``repair`` call: the reference passes its checks."""
    files = task_files(row)
    fence = "```python\n{}```"
    tests = ORACLE_TESTS_DOC + files[row["hidden_tests"]].split("\n", 1)[1]  # its own docstring, not "hidden"
    return [{"node": "write_spec", "reply": json.dumps(oracle_spec(row))},
            {"node": "write_code", "reply": fence.format(files[row["reference"]])},
            {"node": "write_tests", "reply": fence.format(tests)}]


def _suite_yaml(source: str, name: str, like: str) -> str:
    lines = source.splitlines(keepends=True)
    start = next((k for k, line in enumerate(lines) if line.strip() and not line.startswith("#")), len(lines))
    text = "".join(lines[start:])
    text = re.sub(r"(?m)^name: .*$", f"name: {name}", text, count=1)
    text = re.sub(r"(?m)^data: .*$", "data: [data.jsonl]", text, count=1)
    head = (f"# Generated training problems (paperworks.train.generators.spada), shaped like suite '{like}':\n"
            "# parametric assemblies from the generator's families, never the suite's items; each task's hidden\n"
            "# tests, reference and mutants are in tasks/<id>/ (built from the row's family and params).\n")
    return head + text


def write_suite(rows: list[dict[str, Any]], folder: Path, like: str = LIKE) -> Path:
    """``rows`` (from ``generate``) as a suite folder that ``paperworks eval`` runs: the ``like`` suite's
    suite.yaml (same workflow, scorer, limits and config), data.jsonl and tasks/<id>/."""
    folder = Path(folder)
    source = (suite_folder(like) / "suite.yaml").read_text(encoding="utf-8")
    for row in rows:
        if row.get("family") not in FAMILIES:
            raise ValueError(f"row {row.get('id')!r}: unknown family {row.get('family')!r}")
        for rel, text in task_files(row).items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "data.jsonl", "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps({k: row[k] for k in ROW_KEYS}) + "\n")
    (folder / "suite.yaml").write_text(_suite_yaml(source, folder.name, like), encoding="utf-8")
    return folder
