"""OTB as the advantage estimator of TRL's ``GRPOTrainer`` (trl 1.16): :class:`OTBGRPOTrainer`.

Where TRL computes advantages. ``GRPOTrainer._generate_and_score_completions`` samples the completions,
calls ``_calculate_rewards`` (one scalar per completion and reward function, gathered over processes),
turns the weighted sum into group-normalised advantages ``(R − mean_group R) / (std_group R + 1e-4)`` of
shape ``(B,)`` inline (there is no separate advantage method to override), and returns them under
``"advantages"``; the loss broadcasts ``(B,)`` advantages over the tokens and accepts ``(B, T)`` ones as
they are. :class:`OTBGRPOTrainer` keeps everything TRL does (sampling, KL, clipping, loss types, logging)
and only replaces that entry with per-token OTB advantages ``(B, T)``.

Which OTB variant applies. TRL's reward functions give sequence (outcome) rewards only, but the trainer
has the per-token logits, and that is all OTB needs beyond the rewards: the outcome reward ``R`` sits on
the last token, so the reward-to-go is ``G_t = R`` at every response position, and the baseline is

    ``B*_t = Σ_i R_i W_t⁽ⁱ⁾ / Σ_i W_t⁽ⁱ⁾``  over the group's responses still running at ``t``,
    ``W_t = Σ_{j≤t} w_j``,  ``w_j = 1 − 2π(y_j) + Σ_v π_v²``  (the logit-gradient proxy),

with ``A_t = R − B*_t`` and no std normalisation (:func:`~paperworks.backends.otb.estimators.otb_advantages`).
So this is the full token-level OTB for outcome rewards, not a sequence-level approximation: the baseline
differs per token because ``W_t`` does, even though the reward does not. The proxy comes from one extra
no-grad forward pass over the sampled batch at the sampling temperature (the same temperature-scaled
distribution TRL's log-probabilities use), before any update, i.e. from the sampling policy.

What changes against TRL's own advantages: ``scale_rewards`` and ``multi_objective_aggregation`` no longer
apply (the score is the weighted sum of the reward functions, as in TRL's ``sum_then_normalize``, and OTB
does no normalisation); completions for which every reward function returned ``None`` get advantage 0 and
are left out of their group's baseline, as TRL does; tool-result tokens (TRL's ``tool_mask``) carry no
proxy weight and advantage 0. Groups are TRL's: ``num_generations`` consecutive rows of the gathered batch.
Text-only models; no importance weights in the proxy (TRL's default on-policy setting has ratio 1).
Tested on one process (CPU); with several processes the proxy and mask are padded and gathered so groups
that span processes get the same baseline.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import torch
from torch import Tensor, nn
from trl import GRPOTrainer

from paperworks.backends.otb.estimators import compute_advantages, logit_gradient_proxy, outcome_token_rewards
from paperworks.backends.otb.tasks import ALPHABET, VerifiableTask


@dataclass
class OTBBatch:
    """What the last OTB advantage computation used (all processes' rows), for logging and checks."""

    scores: Tensor
    """``(B,)`` weighted sum of the reward functions (NaN where unscorable)."""
    mask: Tensor
    """``(B, T)`` response tokens that got an advantage (completion mask × tool mask, unscorable rows 0)."""
    proxy: Tensor
    """``(B, T)`` logit-gradient proxy of the sampling policy."""
    group_ids: Tensor
    """``(B,)`` group index (``row // num_generations``)."""
    advantages: Tensor
    """``(B, T)`` the OTB advantages (the local slice of them is what the loss uses)."""


class OTBGRPOTrainer(GRPOTrainer):
    """``trl.GRPOTrainer`` with per-token Optimal Token Baseline advantages instead of group-normalised ones.

    Takes every ``GRPOTrainer`` argument, plus ``otb_zero_tail`` (verl's ``handle_zero_tail``: baseline 0
    where a single response of its group is still running). The advantages of the last generation batch are
    kept in :attr:`last_otb`.
    """

    def __init__(self, *args: Any, otb_zero_tail: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.otb_zero_tail = otb_zero_tail
        self.last_otb: OTBBatch | None = None
        self._otb_rewards_per_func: Tensor | None = None

    def _calculate_rewards(self, inputs: Any, prompts: Any, completions: Any, completion_ids_list: Any) -> Tensor:
        """TRL's rewards ``(B_all, n_funcs)``, kept for the OTB advantages."""
        rewards: Tensor = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        self._otb_rewards_per_func = rewards
        return rewards

    @torch.no_grad()
    def _otb_proxy(self, out: dict[str, Any]) -> Tensor:
        """Per-token logit-gradient proxy ``(B_local, T)`` of the completions in ``out`` under the current
        (sampling) policy at TRL's temperature, in chunks of the per-device batch size."""
        prompt_ids, completion_ids = out["prompt_ids"], out["completion_ids"]
        ids = torch.cat([prompt_ids, completion_ids], dim=1)
        attn = torch.cat([out["prompt_mask"], out["completion_mask"]], dim=1)
        width = completion_ids.size(1)
        chunk = max(1, int(self.args.per_device_train_batch_size))
        model = cast(nn.Module, self.model)
        parts = []
        for s in range(0, ids.size(0), chunk):
            logits = model(input_ids=ids[s:s + chunk], attention_mask=attn[s:s + chunk]).logits
            logits = logits[:, -width - 1:-1].float() / self.temperature
            parts.append(logit_gradient_proxy(logits, completion_ids[s:s + chunk]))
        return torch.cat(parts)

    def _generate_and_score_completions(self, inputs: Any) -> dict[str, Any]:
        """TRL's sampling and scoring, then ``out["advantages"]`` replaced by OTB's ``(B_local, T)``."""
        out: dict[str, Any] = super()._generate_and_score_completions(inputs)
        rewards_per_func = self._otb_rewards_per_func
        if rewards_per_func is None:
            raise RuntimeError("OTBGRPOTrainer: TRL did not call _calculate_rewards before computing advantages")
        self._otb_rewards_per_func = None
        mode = "train" if cast(nn.Module, self.model).training else "eval"
        n_gen = self.num_generations if mode == "train" else self.num_generations_eval
        if not n_gen:
            raise RuntimeError("OTBGRPOTrainer: num_generations is not set")

        mask = out["completion_mask"].float()
        if "tool_mask" in out:
            mask = mask * out["tool_mask"].float()
        proxy = self._otb_proxy(out)
        acc = self.accelerator
        local_rows, width = mask.shape
        if acc.num_processes > 1:  # groups may span processes: gather the per-token inputs, padded to one width
            mask = acc.gather(acc.pad_across_processes(mask, dim=1, pad_index=0))
            proxy = acc.gather(acc.pad_across_processes(proxy, dim=1, pad_index=0))

        weights = self.reward_weights.to(rewards_per_func.device).unsqueeze(0)
        scores = (rewards_per_func * weights).nansum(dim=1)
        unscorable = torch.isnan(rewards_per_func).all(dim=1)
        scores = torch.where(unscorable, torch.full_like(scores, float("nan")), scores)
        mask = mask * (~unscorable).float().unsqueeze(1).to(mask.device)
        group_ids = torch.arange(mask.shape[0], device=mask.device) // n_gen
        adv = compute_advantages("otb", outcome_token_rewards(scores.nan_to_num(0.0).to(mask.device), mask), mask,
                                 group_ids, proxy=proxy, zero_tail=self.otb_zero_tail)
        self.last_otb = OTBBatch(scores=scores, mask=mask, proxy=proxy, group_ids=group_ids, advantages=adv)

        start = acc.process_index * local_rows
        out["advantages"] = adv[start:start + local_rows, :width].to(out["completion_mask"].device)
        # The completions table logged GRPO's per-sequence advantages; log OTB's token-mean per sequence instead.
        logged = cast(deque[float], self._logs["advantages"])
        per_seq = ((adv * mask).sum(-1) / mask.sum(-1).clamp(min=1)).tolist()
        for _ in range(min(len(per_seq), len(logged))):
            logged.pop()
        logged.extend(per_seq)
        return out


def task_reward(task: VerifiableTask | Callable[[str, str], float]) -> Callable[..., list[float]]:
    """A TRL reward function (``(prompts, completions, **kwargs) -> list[float]``) scoring each completion
    with ``task(prompt, completion)`` (a :class:`~paperworks.backends.otb.tasks.VerifiableTask` qualifies).
    Text prompts only; TRL names the reward after the function (``<task name>_reward``)."""

    def reward(prompts: Sequence[str], completions: Sequence[str], **_: Any) -> list[float]:
        return [float(task(p, c)) for p, c in zip(prompts, completions, strict=True)]

    reward.__name__ = f"{getattr(task, 'name', 'task')}_reward"
    return reward


def hf_char_tokenizer(alphabet: str = ALPHABET) -> Any:
    """A ``transformers.PreTrainedTokenizerFast`` with the ids of
    :class:`~paperworks.backends.otb.policy.CharTokenizer` (``<pad>`` 0, ``<eos>`` 1, then one id per
    character), built locally with ``tokenizers`` (no download), so :func:`~paperworks.backends.otb.policy.
    tiny_policy` can be trained with TRL. Characters outside ``alphabet`` map to ``<pad>``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"<pad>": 0, "<eos>": 1, **{c: i + 2 for i, c in enumerate(alphabet)}}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<pad>"))
    tok.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
    tok.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", unk_token="<pad>")
