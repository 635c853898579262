"""Group sampling with a KV cache, and the forward pass that scores sampled responses.

A :class:`Rollout` holds ``B = len(prompts) · group_size`` rows laid out as ``[left-padded prompt |
right-padded response]``: ``input_ids`` and ``attention_mask`` are ``(B, P + T)``, the response part
``(B, T)``. Positions are counted over attended tokens only, so left padding does not shift them.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from paperworks.backends.otb.policy import TokenizerLike


@dataclass
class Rollout:
    """Sampled responses, N per prompt, with exact token counts."""

    input_ids: Tensor
    """``(B, P + T)`` prompt (left-padded) then response (right-padded)."""
    attention_mask: Tensor
    """``(B, P + T)``, 1 on real tokens."""
    prompt_len: int
    """``P``, the padded prompt width."""
    response_mask: Tensor
    """``(B, T)``, 1 on generated tokens (EOS included)."""
    group_ids: Tensor
    """``(B,)``, the prompt index of each row."""
    prompts: list[str]
    """The prompt of each row."""
    responses: list[str]
    """The decoded response of each row (special tokens dropped)."""
    prompt_tokens: int
    """Prompt tokens fed to the model, summed over rows."""

    @property
    def response_ids(self) -> Tensor:
        """``(B, T)`` generated token ids (padding where the mask is 0)."""
        return self.input_ids[:, self.prompt_len:]

    @property
    def response_tokens(self) -> int:
        """Tokens generated, summed over rows (EOS included, padding excluded)."""
        return int(self.response_mask.sum())


def positions(attention_mask: Tensor) -> Tensor:
    """Position ids that skip padding: ``cumsum(mask) − 1``, clamped at 0."""
    return (attention_mask.long().cumsum(-1) - 1).clamp(min=0)


@torch.no_grad()
def sample_groups(model: nn.Module, tokenizer: TokenizerLike, prompts: list[str], group_size: int,
                  max_new_tokens: int, temperature: float = 1.0,
                  generator: torch.Generator | None = None) -> Rollout:
    """Sample ``group_size`` responses per prompt (ancestral sampling at ``temperature``), stopping a row at
    EOS or after ``max_new_tokens``."""
    eos = int(tokenizer.eos_token_id)
    pad = int(tokenizer.pad_token_id) if tokenizer.pad_token_id is not None else eos
    rows = [p for p in prompts for _ in range(group_size)]
    encoded = [tokenizer.encode(p, add_special_tokens=False) for p in rows]
    width = max(len(e) for e in encoded)
    device = next(model.parameters()).device
    ids = torch.tensor([[pad] * (width - len(e)) + e for e in encoded], device=device)
    mask = torch.tensor([[0] * (width - len(e)) + [1] * len(e) for e in encoded], device=device)
    b = ids.shape[0]
    done = torch.zeros(b, dtype=torch.bool, device=device)
    new_ids, new_mask = [], []
    out = model(input_ids=ids, attention_mask=mask, position_ids=positions(mask), use_cache=True)
    next_pos = mask.sum(-1, keepdim=True)
    for step in range(max_new_tokens):
        logits = out.logits[:, -1].float() / max(temperature, 1e-6)
        tok = torch.multinomial(torch.softmax(logits, -1), 1, generator=generator).squeeze(-1)
        alive = ~done
        tok = torch.where(alive, tok, torch.full_like(tok, pad))
        new_ids.append(tok)
        new_mask.append(alive.long())
        done = done | (tok == eos)
        if bool(done.all()) or step == max_new_tokens - 1:
            break
        mask = torch.cat([mask, alive.long().unsqueeze(-1)], dim=1)
        cache = getattr(out, "cache", None) or getattr(out, "past_key_values", None)
        out = model(input_ids=tok.unsqueeze(-1), attention_mask=mask, position_ids=next_pos, cache=cache,
                    use_cache=True)
        next_pos = next_pos + 1
    resp = torch.stack(new_ids, dim=1)
    resp_mask = torch.stack(new_mask, dim=1)
    prompt_mask = torch.tensor([[0] * (width - len(e)) + [1] * len(e) for e in encoded], device=device)
    texts = [tokenizer.decode([int(t) for t, m in zip(r, rm, strict=True) if m], skip_special_tokens=True)
             for r, rm in zip(resp.tolist(), resp_mask.tolist(), strict=True)]
    groups = torch.arange(len(prompts), device=device).repeat_interleave(group_size)
    return Rollout(input_ids=torch.cat([ids, resp], 1), attention_mask=torch.cat([prompt_mask, resp_mask], 1),
                   prompt_len=width, response_mask=resp_mask, group_ids=groups, prompts=rows, responses=texts,
                   prompt_tokens=sum(len(e) for e in encoded))


def response_logits(model: nn.Module, input_ids: Tensor, attention_mask: Tensor, prompt_len: int,
                    temperature: float = 1.0) -> Tensor:
    """Logits ``(b, T, V)`` that predict each response token (divided by ``temperature``), from one forward
    pass over ``[prompt | response]`` rows; the LM head runs only on the ``T + 1`` last positions."""
    t = input_ids.shape[1] - prompt_len
    out = model(input_ids=input_ids, attention_mask=attention_mask, position_ids=positions(attention_mask),
                logits_to_keep=t + 1)
    logits: Tensor = out.logits[:, :-1]
    return logits / temperature if temperature != 1.0 else logits
