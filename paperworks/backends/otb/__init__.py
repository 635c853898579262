"""OTB: the Optimal Token Baseline and Logit-Gradient Proxy for RL on LLMs, with a policy-gradient trainer.

Modules (torch loads only when one of them is imported):

- ``estimators`` — advantage estimators on padded batches (none, GRPO, Dr.GRPO, RLOO, OTB) behind one
  interface, and the logit-gradient proxy computed from logits;
- ``trainer`` — a clipped-surrogate policy-gradient trainer over any transformers causal LM
  (group sampling, optional KL to a reference, LoRA or full fine-tuning, exact token accounting);
- ``lora`` — LoRA adapters through PEFT, injected in place; adapters off give the KL reference;
- ``trl_hook`` — ``OTBGRPOTrainer``: TRL's GRPOTrainer with per-token OTB advantages;
- ``tasks`` — tasks with verifiable rewards (arithmetic, and a task whose correct answers differ in length);
- ``policy`` — a character tokenizer and a tiny randomly initialised Llama policy for fast runs;
- ``variance`` — the trace of the covariance of the batch policy gradient per estimator (torch.func);
- ``repro`` — ``paperworks repro otb``.
"""

from paperworks.backends.repro import REPROS

REPROS["otb"] = "paperworks.backends.otb.repro:run"
