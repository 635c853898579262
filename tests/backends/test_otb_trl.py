"""OTBGRPOTrainer: TRL's GRPOTrainer with OTB advantages, on a tiny local Llama and a character tokenizer.

The advantages TRL's loss receives are checked against an independent computation made at sampling time:
rewards re-scored from the decoded completions, the logit-gradient proxy from the naive formula
``1 − 2π_y + Σπ²`` (float64), and the OTB baseline summed by explicit loops over groups and positions.
"""

from __future__ import annotations

import copy

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")
datasets = pytest.importorskip("datasets")

from paperworks.backends.otb.policy import CharTokenizer, sft_warm_start, tiny_policy  # noqa: E402
from paperworks.backends.otb.tasks import RepeatTask  # noqa: E402

TASK = RepeatTask(max_len=3)
N_GEN = 4


def expected_otb(model: torch.nn.Module, tok, prompts: list[str], out: dict, temperature: float) -> torch.Tensor:
    """OTB advantages for the batch ``out`` from scratch (no project estimator code)."""
    ids = torch.cat([out["prompt_ids"], out["completion_ids"]], dim=1)
    attn = torch.cat([out["prompt_mask"], out["completion_mask"]], dim=1)
    comp, mask = out["completion_ids"], out["completion_mask"].double()
    width = comp.shape[1]
    with torch.no_grad():
        logits = model(input_ids=ids, attention_mask=attn).logits[:, -width - 1:-1].double() / temperature
    pi = torch.softmax(logits, -1)
    w = 1 - 2 * pi.gather(-1, comp.unsqueeze(-1)).squeeze(-1) + (pi**2).sum(-1)
    big_w = torch.cumsum(w * mask, -1)
    rows = comp.shape[0]
    reward = [TASK.reward(prompts[i], tok.decode(comp[i][mask[i] > 0].tolist(), skip_special_tokens=True))
              for i in range(rows)]
    adv = torch.zeros(rows, width, dtype=torch.float64)
    for g0 in range(0, rows, N_GEN):
        group = range(g0, g0 + N_GEN)
        for t in range(width):
            den = sum(float(big_w[j, t] * mask[j, t]) for j in group)
            num = sum(reward[j] * float(big_w[j, t] * mask[j, t]) for j in group)
            for i in group:
                if mask[i, t] > 0:
                    adv[i, t] = reward[i] - num / (den + 1e-8)
    return adv


def test_otb_grpo_trainer_uses_otb_advantages_and_learns(tmp_path) -> None:
    from trl import GRPOConfig

    from paperworks.backends.otb.trl_hook import OTBGRPOTrainer, hf_char_tokenizer, task_reward

    torch.set_num_threads(1)
    tok = hf_char_tokenizer()
    assert tok("b3:", add_special_tokens=False)["input_ids"] == CharTokenizer().encode("b3:")
    model = tiny_policy(len(tok), hidden=32, layers=1, seed=0)
    sft_warm_start(model, CharTokenizer(), TASK, steps=40, noise=0.5, batch_size=32)  # rewards now vary
    before = copy.deepcopy(model.state_dict())
    prompts = [f"{c}{k}:" for c in "abcd" for k in (1, 2, 3)]
    data = datasets.Dataset.from_dict({"prompt": prompts})
    args = GRPOConfig(output_dir=str(tmp_path), per_device_train_batch_size=8, num_generations=N_GEN,
                      max_completion_length=5, max_steps=3, learning_rate=1e-2, use_cpu=True, report_to="none",
                      logging_steps=1, save_strategy="no", seed=0, temperature=0.8, disable_dropout=True)
    made: list[tuple[dict, torch.Tensor]] = []
    used: list[dict] = []

    class Capturing(OTBGRPOTrainer):
        def _generate_and_score_completions(self, inputs):
            out = super()._generate_and_score_completions(inputs)
            ref = expected_otb(self.model, tok, [x["prompt"] for x in inputs], out, self.temperature)
            made.append(({k: v.clone() for k, v in out.items() if torch.is_tensor(v)}, ref))
            return out

        def _compute_loss(self, model, inputs):
            used.append({k: inputs[k].clone() for k in ("prompt_ids", "completion_ids", "advantages")})
            return super()._compute_loss(model, inputs)

    trainer = Capturing(model=model, reward_funcs=task_reward(TASK), args=args, train_dataset=data,
                        processing_class=tok)
    trainer.train()

    assert len(made) == 3 and len(used) == 3
    varied = 0
    for out, ref in made:
        adv = out["advantages"]
        assert adv.shape == out["completion_ids"].shape  # per token, not per sequence
        torch.testing.assert_close(adv.double(), ref, atol=2e-5, rtol=1e-4)
        varied += int(((adv.max(-1).values - adv.min(-1).values) > 1e-4).any())
    assert varied > 0  # some response's advantage changes along its tokens (GRPO's would not)
    # The loss saw exactly these advantages (TRL shuffles rows: match them by their token ids).
    table = {(tuple(o["prompt_ids"][i].tolist()), tuple(o["completion_ids"][i].tolist())): o["advantages"][i]
             for o, _ in made for i in range(o["advantages"].shape[0])}
    for batch in used:
        for i in range(batch["advantages"].shape[0]):
            key = (tuple(batch["prompt_ids"][i].tolist()), tuple(batch["completion_ids"][i].tolist()))
            assert torch.equal(batch["advantages"][i], table[key])
    after = trainer.model.state_dict()
    assert any(not torch.equal(before[k], after[k].to(before[k].device)) for k in before)
    assert trainer.last_otb is not None and trainer.last_otb.group_ids.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
