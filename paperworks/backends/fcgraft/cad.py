"""FCGraft for SPADA: SPADA-Bench-Verified's reference programs (each passes its task's hidden tests and
checks, ``benchmarks/results/spada_bench_verify.json``) as a library of verified skeletons whose KV
segments are cached once; a new CAD request's code prompt grafts the retrieved ones instead of
prefilling them.

The prompt is the chat template's system turn and the start of the user turn (the shared head), then the
retrieved reference programs (grafted segments, each prefilled after the head and re-positioned), then
the request, spec and convention and the assistant header (prefilled), then free greedy decoding on the
torch engine. A bench task's own reference is never retrieved for it (matched by its request text).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from paperworks.backends.fcgraft import kv
from paperworks.backends.fcgraft.retrieval import Retriever

SUITE = Path(__file__).resolve().parents[2] / "suites" / "spada_bench"
SYSTEM = "You write CadQuery assembly programs. Reply with one ```python block."


@dataclass
class Reference:
    """One verified reference program of the bench."""

    name: str
    request: str
    code: str


def load_references(suite: Path = SUITE) -> list[Reference]:
    """Every task's reference program with its request."""
    rows = [json.loads(line) for line in (suite / "data.jsonl").read_text(encoding="utf-8").splitlines() if line]
    out = []
    for r in rows:
        path = suite / "tasks" / r["id"] / "reference.py"
        if path.is_file():
            out.append(Reference(r["id"], r["request"], path.read_text(encoding="utf-8")))
    return out


def head_text() -> str:
    return f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\nVerified reference programs:\n"


def segment_text(ref: Reference) -> str:
    return f"```python\n{ref.code.rstrip()}\n```\n"


def tail_text(request: str, spec: dict[str, Any], convention: str) -> str:
    return (f"Design request:\n{request}\n\nSpec:\n{json.dumps(spec, indent=1)[:6000]}\n\n{convention}<|im_end|>\n"
            "<|im_start|>assistant\n")


@dataclass
class GraftedReply:
    """What one generation returned and cost."""

    text: str
    references: list[str]
    ttft_s: float
    total_s: float
    reused_tokens: int
    prefilled_tokens: int
    decoded_tokens: int


class CadGrafter:
    """Reference segments cached in memory (and on disk under ``root`` when given) for one model."""

    def __init__(self, model: torch.nn.Module, tokenizer: Any, model_name: str, root: Path | None = None,
                 refs: list[Reference] | None = None) -> None:
        self.model, self.tok, self.model_name, self.root = model, tokenizer, model_name, root
        self.refs = {r.name: r for r in (refs if refs is not None else load_references())}
        self.retriever = Retriever({r.name: r.request for r in self.refs.values()})
        self._segs: dict[str, kv.Segment] = {}

    def encode(self, text: str) -> list[int]:
        return list(self.tok(text, add_special_tokens=False)["input_ids"])

    def _segment(self, key: str, text: str, after: kv.Segment | None) -> kv.Segment:
        if key in self._segs:
            return self._segs[key]
        digest = hashlib.sha256(f"{self.model_name}\0{head_text()}\0{text}".encode()).hexdigest()[:20]
        path = self.root / f"{digest}.pt" if self.root is not None else None
        seg = None
        if path is not None and path.is_file():
            seg = kv.Segment.from_dict(torch.load(path, weights_only=True))
            seg = seg if seg.ids == self.encode(text) else None
        if seg is None:
            before = None if after is None else kv.new_cache(self.model, [after])
            seg = kv.prefill(self.model, self.encode(text), before)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                torch.save(seg.to_dict(), path)
        self._segs[key] = seg
        return seg

    def head(self) -> kv.Segment:
        return self._segment("\0head", head_text(), None)

    def pick(self, request: str, k: int) -> list[str]:
        """The ``k`` references nearest the request, never the request's own task."""
        own = {n for n, r in self.refs.items() if r.request.strip() == request.strip()}
        return [n for n in self.retriever.top(request, len(self.refs)) if n not in own][:k]

    @torch.no_grad()
    def generate(self, request: str, spec: dict[str, Any], convention: str, k: int = 2, max_new_tokens: int = 512,
                 graft: bool = True) -> GraftedReply:
        """Greedy reply to the code prompt with ``k`` references: grafted (``graft``) or prefilled in full."""
        start = time.perf_counter()
        names = self.pick(request, k)
        head = self.head()
        parts = [self._segment(n, segment_text(self.refs[n]), head) for n in names]
        tail = self.encode(tail_text(request, spec, convention))
        if graft:
            cache = kv.stitch(self.model, head, parts)
            reused, prefilled = head.length + sum(p.length for p in parts), len(tail)
        else:
            cache = kv.new_cache(self.model)
            tail = head.ids + [i for p in parts for i in p.ids] + tail
            reused, prefilled = 0, len(tail)
        out = self.model(input_ids=torch.tensor([tail]), cache=cache, use_cache=True)
        cache, logits = out.cache, out.logits[0, -1]
        toks: list[int] = []
        ttft = 0.0
        eos = {self.tok.eos_token_id, *self.encode("<|im_end|>")}
        for _ in range(max_new_tokens):
            tok = int(torch.argmax(logits))
            if not toks:
                ttft = time.perf_counter() - start
            if tok in eos:
                break
            toks.append(tok)
            out = self.model(input_ids=torch.tensor([[tok]]), cache=cache, use_cache=True)
            cache, logits = out.cache, out.logits[0, -1]
        return GraftedReply(self.tok.decode(toks), names, ttft, time.perf_counter() - start, reused, prefilled,
                            len(toks))
