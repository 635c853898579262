"""A tiny policy that writes a description and ends it with a pointer.

Encoder: a query token and one token per object (colour, shape, size one-hots and normalised centre)
through a small transformer encoder. Decoder: a GRU cell that, at each step, attends over the encoded
objects and emits either a description word (a fixed vocabulary) or a pointer ``@i`` (logits by dot product
with object ``i``'s encoding). A pointer ends the sequence; the last step may only point.

Logits are laid out ``(B, T, V)`` over :data:`~paperworks.backends.dr2seg.scenes.VOCAB` so that the OTB
backend's estimators (``token_logprobs``, ``compute_advantages``) apply unchanged.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from paperworks.backends.dr2seg.scenes import (
    COLOURS,
    MAX_OBJECTS,
    N_WORDS,
    QUERY_KINDS,
    SHAPES,
    SIZES,
    VOCAB,
    Scene,
)

OBJ_FEATURES = len(COLOURS) + len(SHAPES) + len(SIZES) + 2
QUERY_FEATURES = len(QUERY_KINDS) + len(COLOURS) + len(SHAPES) + 1


def encode_scenes(scenes: list[Scene]) -> tuple[Tensor, Tensor, Tensor]:
    """Object features ``(B, K, F)``, object-present mask ``(B, K)`` (bool) and query features ``(B, Q)``."""
    b = len(scenes)
    obj = torch.zeros(b, MAX_OBJECTS, OBJ_FEATURES)
    present = torch.zeros(b, MAX_OBJECTS, dtype=torch.bool)
    query = torch.zeros(b, QUERY_FEATURES)
    for r, s in enumerate(scenes):
        for k, o in enumerate(s.objects):
            obj[r, k, COLOURS.index(o.colour)] = 1
            obj[r, k, 3 + SHAPES.index(o.shape)] = 1
            obj[r, k, 6 + SIZES.index(o.size)] = 1
            obj[r, k, 8] = o.cx / s.grid
            obj[r, k, 9] = o.cy / s.grid
            present[r, k] = True
        q = s.query
        query[r, QUERY_KINDS.index(q.kind)] = 1
        query[r, 8 + COLOURS.index(q.colour)] = 1
        query[r, 11 + (SHAPES.index(q.shape) if q.shape else 3)] = 1
    return obj, present, query


class DescribePolicy(nn.Module):
    """Scene + query → description words → pointer (see the module docstring)."""

    def __init__(self, hidden: int = 64, layers: int = 2, heads: int = 4, max_len: int = 10) -> None:
        super().__init__()
        self.hidden, self.max_len = hidden, max_len
        self.obj_in = nn.Linear(OBJ_FEATURES, hidden)
        self.query_in = nn.Linear(QUERY_FEATURES, hidden)
        layer = nn.TransformerEncoderLayer(hidden, heads, 2 * hidden, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.embed = nn.Embedding(len(VOCAB) + 1, hidden)  # last id = begin-of-description
        self.h0 = nn.Linear(hidden, hidden)
        self.cell = nn.GRUCell(2 * hidden, hidden)
        self.att_q = nn.Linear(hidden, hidden)
        self.word_out = nn.Linear(2 * hidden, N_WORDS)
        self.ptr_q = nn.Linear(2 * hidden, hidden)
        self.ptr_k = nn.Linear(hidden, hidden)

    @property
    def bos(self) -> int:
        """Id of the begin-of-description input token."""
        return len(VOCAB)

    def encode(self, obj: Tensor, present: Tensor, query: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """Context ``(B, H)``, object encodings ``(B, K, H)`` and the present mask."""
        x = torch.cat([self.query_in(query).unsqueeze(1), self.obj_in(obj)], dim=1)
        pad = torch.cat([torch.zeros_like(present[:, :1]), ~present], dim=1)
        z = self.encoder(x, src_key_padding_mask=pad)
        return z[:, 0], z[:, 1:], present

    def step(self, tok: Tensor, h: Tensor, ctx: Tensor, objs: Tensor, present: Tensor,
             last: bool) -> tuple[Tensor, Tensor]:
        """One decoder step: logits ``(B, V)`` for the next token after ``tok``, and the new state."""
        h = self.cell(torch.cat([self.embed(tok), ctx], -1), h)
        score = (objs @ self.att_q(h).unsqueeze(-1)).squeeze(-1) / math.sqrt(self.hidden)
        score = score.masked_fill(~present, float("-inf"))
        read = (torch.softmax(score, -1).unsqueeze(-1) * objs).sum(1)
        z = torch.cat([h, read], -1)
        ptr = (self.ptr_k(objs) @ self.ptr_q(z).unsqueeze(-1)).squeeze(-1) / math.sqrt(self.hidden)
        ptr = ptr.masked_fill(~present, float("-inf"))
        words = self.word_out(z)
        if last:
            words = torch.full_like(words, float("-inf"))
        return torch.cat([words, ptr], -1), h

    def forward(self, obj: Tensor, present: Tensor, query: Tensor, tokens: Tensor) -> Tensor:
        """Teacher-forced logits ``(B, T, V)`` predicting ``tokens`` (``(B, T)``, padding anywhere after the
        pointer is fine: it only feeds later, masked positions)."""
        ctx, objs, present = self.encode(obj, present, query)
        h = torch.tanh(self.h0(ctx))
        prev = torch.full_like(tokens[:, 0], self.bos)
        out = []
        t_max = tokens.shape[1]
        for t in range(t_max):
            logits, h = self.step(prev, h, ctx, objs, present, last=t == self.max_len - 1)
            out.append(logits)
            prev = tokens[:, t]
        return torch.stack(out, 1)

    @torch.no_grad()
    def sample(self, obj: Tensor, present: Tensor, query: Tensor, generator: torch.Generator | None = None,
               greedy: bool = False) -> tuple[Tensor, Tensor]:
        """Tokens ``(B, T)`` (0 after the pointer) and the response mask ``(B, T)`` (1 up to and including
        the pointer); every row ends with a pointer by step ``max_len``."""
        ctx, objs, present = self.encode(obj, present, query)
        h = torch.tanh(self.h0(ctx))
        b = obj.shape[0]
        prev = torch.full((b,), self.bos, dtype=torch.long)
        done = torch.zeros(b, dtype=torch.bool)
        toks, masks = [], []
        for t in range(self.max_len):
            logits, h = self.step(prev, h, ctx, objs, present, last=t == self.max_len - 1)
            if greedy:
                tok = logits.argmax(-1)
            else:
                tok = torch.multinomial(torch.softmax(logits, -1), 1, generator=generator).squeeze(-1)
            alive = ~done
            toks.append(torch.where(alive, tok, torch.zeros_like(tok)))
            masks.append(alive.long())
            done = done | (tok >= N_WORDS)
            prev = tok
            if bool(done.all()):
                break
        return torch.stack(toks, 1), torch.stack(masks, 1)


def decode(tokens: Tensor, mask: Tensor) -> list[list[str]]:
    """Token rows as word lists (masked positions dropped)."""
    return [[VOCAB[int(t)] for t, m in zip(row, mrow, strict=True) if m]
            for row, mrow in zip(tokens.tolist(), mask.tolist(), strict=True)]
