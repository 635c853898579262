"""A character tokenizer and a tiny randomly initialised Llama policy, for fast tests and CPU runs,
plus a supervised warm start that leaves the policy deliberately imperfect (RL then has room to work).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol

import torch
from torch import nn

from paperworks.backends.otb.tasks import ALPHABET, VerifiableTask


class TokenizerLike(Protocol):
    """What the trainer needs from a tokenizer (a transformers tokenizer qualifies)."""

    eos_token_id: Any
    pad_token_id: Any

    def encode(self, text: str, add_special_tokens: bool = ...) -> list[int]: ...

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = ...) -> str: ...


class CharTokenizer:
    """One token per character of ``alphabet``; id 0 is padding, id 1 is end-of-sequence."""

    def __init__(self, alphabet: str = ALPHABET) -> None:
        self.alphabet = alphabet
        self.pad_token_id = 0
        self.eos_token_id = 1
        self._ids = {c: i + 2 for i, c in enumerate(alphabet)}

    @property
    def vocab_size(self) -> int:
        """Alphabet plus the two special tokens."""
        return len(self.alphabet) + 2

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        """Token ids of ``text``; raises ``ValueError`` on a character outside the alphabet."""
        try:
            return [self._ids[c] for c in text]
        except KeyError as exc:
            raise ValueError(f"CharTokenizer: character {exc.args[0]!r} is not in the alphabet") from None

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """Text of ``ids``; special tokens are dropped (or shown as ``<pad>``/``<eos>``)."""
        out = []
        for i in ids:
            i = int(i)
            if i >= 2:
                out.append(self.alphabet[i - 2])
            elif not skip_special_tokens:
                out.append("<pad>" if i == 0 else "<eos>")
        return "".join(out)


def tiny_policy(vocab_size: int, hidden: int = 64, layers: int = 2, heads: int = 4, seed: int = 0,
                max_positions: int = 64) -> nn.Module:
    """A randomly initialised ``LlamaForCausalLM`` (about 75k parameters at the defaults)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=vocab_size, hidden_size=hidden, intermediate_size=2 * hidden,
                      num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=max(1, heads // 2),
                      max_position_embeddings=max_positions, tie_word_embeddings=True, pad_token_id=0,
                      eos_token_id=1, bos_token_id=None)
    return LlamaForCausalLM(cfg)


def sft_warm_start(model: nn.Module, tokenizer: TokenizerLike, task: VerifiableTask, steps: int = 200,
                   noise: float = 0.5, batch_size: int = 64, lr: float = 3e-3, seed: int = 0) -> list[float]:
    """Teacher-forced training on ``prompt → answer + EOS``, where a fraction ``noise`` of the targets are
    replaced by :meth:`VerifiableTask.wrong_answer`; returns the loss curve. The result samples correct
    answers part of the time, and wrong ones of varied length otherwise."""
    rng = random.Random(seed)
    eos = int(tokenizer.eos_token_id)
    device = next(model.parameters()).device
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
    model.train()
    losses: list[float] = []
    for _ in range(steps):
        rows, targets = [], []
        for prompt in task.prompts(rng, batch_size):
            ans = task.wrong_answer(prompt, rng) if rng.random() < noise else task.answer(prompt)
            p_ids = tokenizer.encode(prompt, add_special_tokens=False)
            a_ids = tokenizer.encode(ans, add_special_tokens=False) + [eos]
            rows.append(p_ids + a_ids)
            targets.append([-100] * len(p_ids) + a_ids)
        width = max(len(r) for r in rows)
        ids = torch.tensor([r + [eos] * (width - len(r)) for r in rows], device=device)
        labels = torch.tensor([t + [-100] * (width - len(t)) for t in targets], device=device)
        logits = model(input_ids=ids).logits[:, :-1]
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    return losses
