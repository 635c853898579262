"""Three ways to synthesise a task's policy with the same model, timed the same way:

- ``free``: the API header, a worked example and the task, prefilled in full; the model writes ``main``.
- ``ragcache``: RAGCache-style — the header and the retrieved skeletons' text form the prefix, whose KV is
  kept in a prefix tree (a cached node is reused only when the same documents come in the same order);
  the model writes ``main`` freely after the task.
- ``fcgraft``: the header's and the retrieved skeletons' cached segments are grafted (stitched, with
  their keys re-positioned and optionally the first tokens of each later segment recomputed), the task
  is prefilled, and ``main`` is patched: one call site per task clause, only its holes decoded
  (:mod:`.patch`).

Free decoding stops at a blank line, a new top-level ``def`` or comment, end of text, the token cap, or
a line repeated three times in a row (the small model loops).

Times: ``ttft_s`` from the request to the first decoded token; ``total_s`` to the finished program
(retrieval, cache loading or prefill, and decoding; not the sandbox run or the judge).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import torch

from paperworks.backends.fcgraft import kv
from paperworks.backends.fcgraft.library import SkeletonLibrary
from paperworks.backends.fcgraft.patch import TrieDecoder, patch_main
from paperworks.backends.fcgraft.prompts import EXAMPLE, HEADER, skeleton_segment, task_segment
from paperworks.backends.fcgraft.retrieval import Retriever
from paperworks.tools.robot.tasks import Task, clauses


@dataclass
class Synthesis:
    """One synthesised policy and what it cost."""

    method: str
    task: str
    code: str
    ttft_s: float
    total_s: float
    prefilled_tokens: int
    reused_tokens: int
    decoded_tokens: int
    retrieved: list[str]


class PrefixTree:
    """RAGCache-style KV store: node = a document sequence; each node keeps only its last document's KV,
    computed after the exact prefix before it. Least recently used nodes go first beyond ``capacity``."""

    def __init__(self, capacity: int = 64) -> None:
        self.nodes: OrderedDict[tuple[str, ...], kv.Segment] = OrderedDict()
        self.capacity = capacity
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[str, ...]) -> kv.Segment | None:
        seg = self.nodes.get(key)
        if seg is not None:
            self.nodes.move_to_end(key)
        return seg

    def put(self, key: tuple[str, ...], seg: kv.Segment) -> None:
        self.nodes[key] = seg
        self.nodes.move_to_end(key)
        while len(self.nodes) > self.capacity:
            self.nodes.popitem(last=False)


class Synthesizer:
    """The three methods over one model, library and retriever."""

    def __init__(self, model: torch.nn.Module, tokenizer: Any, library: SkeletonLibrary, k: int = 4,
                 max_new_tokens: int = 160, site_options: int = 2) -> None:
        self.model, self.tok, self.lib, self.k, self.max_new = model, tokenizer, library, k, max_new_tokens
        self.site_options = site_options
        """Skeletons a call site may choose from (the clause's best retrieved ones)."""
        self.retriever = Retriever({n: s.doc for n, s in library.skeletons.items()})
        self.tree = PrefixTree()

    def encode(self, text: str) -> list[int]:
        return list(self.tok(text, add_special_tokens=False)["input_ids"])

    # decoding ----------------------------------------------------------------------------------------
    @torch.no_grad()
    def _free_decode(self, cache: object, ids: list[int], start: float) -> tuple[str, float, int]:
        out = self.model(input_ids=torch.tensor([ids]), cache=cache, use_cache=True)
        cache, logits = out.cache, out.logits[0, -1]
        toks: list[int] = []
        ttft = 0.0
        text = ""
        for _ in range(self.max_new):
            tok = int(torch.argmax(logits))
            if not toks:
                ttft = time.perf_counter() - start
            toks.append(tok)
            text = self.tok.decode(toks)
            lines = text.split("\n")[:-1]
            looping = len(lines) >= 3 and lines[-1].strip() and lines[-1] == lines[-2] == lines[-3]
            if tok == self.tok.eos_token_id or "\n\n" in text or "\n#" in text or "\ndef" in text or looping:
                break
            out = self.model(input_ids=torch.tensor([[tok]]), cache=cache, use_cache=True)
            cache, logits = out.cache, out.logits[0, -1]
        for stop in ("\n\n", "\n#", "\ndef"):
            text = text.split(stop)[0]
        return text.rstrip() + "\n", ttft, len(toks)

    # methods -----------------------------------------------------------------------------------------
    def free(self, task: Task) -> Synthesis:
        start = time.perf_counter()
        ids = self.encode(HEADER + EXAMPLE + task_segment(task.text))
        body, ttft, n = self._free_decode(kv.new_cache(self.model), ids, start)
        code = "def main(robot):" + body
        return Synthesis("free", task.id, code, ttft, time.perf_counter() - start, len(ids), 0, n, [])

    def ragcache(self, task: Task) -> Synthesis:
        start = time.perf_counter()
        names = self.retriever.top(task.text, self.k)
        docs = [("\0header", HEADER)] + [(n, skeleton_segment(self.lib.skeletons[n].code)) for n in names]
        cache = kv.new_cache(self.model)
        prefilled = reused = 0
        for i in range(len(docs)):
            key = tuple(d for d, _ in docs[: i + 1])
            seg = self.tree.get(key)
            if seg is None:
                self.tree.misses += 1
                seg = kv.prefill(self.model, self.encode(docs[i][1]), cache if i else None)
                self.tree.put(key, seg)
                prefilled += seg.length
            else:
                self.tree.hits += 1
                reused += seg.length
            kv.append(cache, seg)
        ids = self.encode(task_segment(task.text))
        body, ttft, n = self._free_decode(cache, ids, start)
        code = "".join(d for _, d in docs[1:]) + "def main(robot):" + body
        return Synthesis("ragcache", task.id, code, ttft, time.perf_counter() - start, prefilled + len(ids), reused,
                         n, names)

    @torch.no_grad()
    def fcgraft(self, task: Task, reposition: bool = True, recompute: int = 0,
                site_options: int | None = None) -> Synthesis:
        start = time.perf_counter()
        names = self.retriever.top(task.text, self.k)
        head = self.lib.header()
        parts = [self.lib.segment(n) for n in names]
        cache = kv.stitch(self.model, head, parts, reposition=reposition, recompute=recompute)
        ids = self.encode(task_segment(task.text))
        out = self.model(input_ids=torch.tensor([ids]), cache=cache, use_cache=True)
        dec = TrieDecoder(self.model, self.encode, out.cache, out.logits[0, -1])
        params = {n: tuple(self.lib.skeletons[n].params) for n in names}
        width = self.site_options if site_options is None else site_options
        sites = [(c, [n for n in self.retriever.top(c, len(names)) if n in names][:width])
                 for c in clauses(task.text)]
        patched = patch_main(dec, task.text, params, sites)
        total = time.perf_counter() - start
        ttft = (dec.first_token_at - start) if dec.first_token_at is not None else total
        code = "\n\n".join(self.lib.skeletons[n].code.rstrip("\n") + "\n" for n in names) + "\n\ndef main(robot):" + \
            patched.text.rstrip("\n") + "\n"
        redone = recompute * max(0, len(parts) - 1)
        reused = head.length + sum(p.length for p in parts) - redone
        return Synthesis("fcgraft" if width > 1 else "fcgraft-top1", task.id, code, ttft, total, len(ids) + redone,
                         reused,
                         patched.decoded_tokens, names)
