"""DR2Seg at toy scale: two-stage rollouts (describe, then segment from the description alone) with
self-rewards for self-containment and brevity, trained with GRPO advantages.

The paper fine-tunes Qwen2.5-VL with GRPO and segments with SAM2/SAM3 (code: harrylin-hyl/DR2Seg, not
readable here). This package reconstructs the training idea on synthetic scenes; the self-rewards follow the
authors' model card, and each difference from their definitions is listed in ``rewards.DEFINITION_DIFFERENCES``.

Modules (torch loads only when one of them is imported):

- ``scenes`` — shapes with colour/shape/size/position on a small grid, reasoning queries, target masks,
  the description vocabulary, and a verbose "overthinking" trace used to warm-start the policy;
- ``rewards`` — mask IoU, the description-only segmenter (stage 2), the self-containment and length
  rewards and their weighted sum;
- ``policy`` — a tiny set-encoder + GRU policy that writes attribute tokens and ends with a pointer;
- ``train`` — supervised warm start and the GRPO loop (advantages from ``paperworks.backends.otb``);
- ``reasonseg`` — a reader for ReasonSeg-style JSON annotations and the gIoU/cIoU metrics (real data);
- ``repro`` — ``paperworks repro dr2seg``.
"""

from paperworks.backends.repro import REPROS

REPROS["dr2seg"] = "paperworks.backends.dr2seg.repro:run"
