"""The skeleton library: validated function-level code skeletons, each with its validation record and
its prompt-level KV cache on disk.

Layout of a library folder::

    skeletons.json           name -> code, doc, params, validation record
    kv/<key>.pt              one cached segment per skeleton (and the header), keyed by a hash of the
                             model, the header and the code, so a changed skeleton or model re-prefills

Each skeleton's segment is prefilled after the shared header (so it saw the API description, as it
will in every prompt) and stored at the positions it was prefilled at; grafting moves it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from paperworks.backends.fcgraft import kv
from paperworks.backends.fcgraft.prompts import HEADER, skeleton_segment
from paperworks.core.errors import UserError


@dataclass
class Skeleton:
    """One library entry."""

    name: str
    code: str
    doc: str
    params: list[str]
    validation: dict[str, Any] = field(default_factory=dict)
    """``{"episodes": n, "passed": k, "failures": [...]}`` from the sandbox + judge."""


def _key(model_name: str, *texts: str) -> str:
    h = hashlib.sha256(model_name.encode())
    for t in texts:
        h.update(b"\0" + t.encode())
    return h.hexdigest()[:20]


class SkeletonLibrary:
    """Skeletons plus their cached KV segments for one model."""

    def __init__(self, root: Path, model: torch.nn.Module, tokenizer: Any, model_name: str) -> None:
        self.root, self.model, self.tok, self.model_name = root, model, tokenizer, model_name
        self.skeletons: dict[str, Skeleton] = {}
        self._segments: dict[str, kv.Segment] = {}
        path = root / "skeletons.json"
        if path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                self.skeletons = {n: Skeleton(**d) for n, d in data.items()}
            except (ValueError, TypeError) as exc:
                raise UserError(f"{path}: not a skeleton library ({exc})") from exc

    def encode(self, text: str) -> list[int]:
        return list(self.tok(text, add_special_tokens=False)["input_ids"])

    def add(self, sk: Skeleton) -> None:
        """Add (or replace) a skeleton; only validated ones (every episode passed) are accepted."""
        v = sk.validation
        if not v or v.get("episodes", 0) < 1 or v.get("passed") != v.get("episodes"):
            raise UserError(f"skeleton {sk.name}: not validated ({v or 'no validation record'})")
        self.skeletons[sk.name] = sk
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "skeletons.json").write_text(
            json.dumps({n: asdict(s) for n, s in self.skeletons.items()}, indent=1) + "\n", encoding="utf-8")

    def _load_or_prefill(self, key: str, ids: list[int], after: kv.Segment | None) -> kv.Segment:
        path = self.root / "kv" / f"{key}.pt"
        if path.is_file():
            seg = kv.Segment.from_dict(torch.load(path, weights_only=True))
            if seg.ids == ids:
                return seg
        cache = None if after is None else kv.new_cache(self.model, [after])
        seg = kv.prefill(self.model, ids, cache)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        torch.save(seg.to_dict(), tmp)
        tmp.replace(path)
        return seg

    def header(self) -> kv.Segment:
        """The header's segment (positions from 0)."""
        if "\0header" not in self._segments:
            self._segments["\0header"] = self._load_or_prefill(_key(self.model_name, HEADER), self.encode(HEADER), None)
        return self._segments["\0header"]

    def segment(self, name: str) -> kv.Segment:
        """The skeleton's cached segment (prefilled after the header; from disk when present)."""
        if name not in self._segments:
            if name not in self.skeletons:
                raise UserError(f"no skeleton {name!r} in {self.root}")
            text = skeleton_segment(self.skeletons[name].code)
            self._segments[name] = self._load_or_prefill(_key(self.model_name, HEADER, text), self.encode(text),
                                                         self.header())
        return self._segments[name]

    def warm(self) -> None:
        """Prefill (or load) every segment now."""
        for n in self.skeletons:
            self.segment(n)

    def forget_memory(self) -> None:
        """Drop the in-memory copies (the next use loads from disk)."""
        self._segments.clear()


def validate_skeleton(name: str, tasks: list[Any]) -> dict[str, Any]:
    """Run every single-subtask task whose reference plan uses ``name`` in the sandbox and judge it."""
    from paperworks.tools.robot.judge import judge
    from paperworks.tools.robot.sandbox import run_policy
    from paperworks.tools.robot.skeletons import program

    episodes = [t for t in tasks if "single" in t.tags and any(n == name for n, _ in t.plan)]
    failures = []
    for t in episodes:
        r = run_policy(program(t.plan), t.state)
        v = judge(r.calls, t.goals, t.state, r.error)
        if not v.passed:
            failures.append(f"{t.id}: {v.reason}")
    return {"episodes": len(episodes), "passed": len(episodes) - len(failures), "failures": failures,
            "tasks": [t.id for t in episodes]}


def build_library(root: Path, model: torch.nn.Module, tokenizer: Any, model_name: str,
                  tasks: list[Any]) -> SkeletonLibrary:
    """The environment's skeletons, each validated in the sandbox, with their KV segments prefilled
    (or loaded from ``root`` when already there)."""
    from paperworks.tools.robot.skeletons import PARAMS, SOURCES, doc

    lib = SkeletonLibrary(root, model, tokenizer, model_name)
    for name, code in SOURCES.items():
        old = lib.skeletons.get(name)
        if old is None or old.code != code:
            lib.add(Skeleton(name, code, doc(name), list(PARAMS[name]), validate_skeleton(name, tasks)))
    lib.warm()
    return lib
