"""CoDiLA's networks and decoders: the DLM learns the toy language, the head restores a structure that
independent sampling of parallel marginals breaks, and every decoder is seeded and deterministic."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from paperworks.backends.codila.data import CODE_ID, MASK_ID, SEQ_LEN, STOI, VOCAB, Example, make_dataset  # noqa: E402
from paperworks.backends.codila.decode import ar_decode, codila_decode, dlm_decode  # noqa: E402
from paperworks.backends.codila.model import (  # noqa: E402
    HeadConfig,
    LocalARHead,
    NetConfig,
    TinyTransformer,
)
from paperworks.backends.codila.train import TrainConfig, train_dlm, train_head  # noqa: E402
from paperworks.core.errors import UserError  # noqa: E402

V = len(VOCAB)


@pytest.fixture(autouse=True)
def one_thread():
    """One torch thread (the cores are shared; more threads only oversubscribe them)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
OPEN = (STOI["("], STOI["["])
CLOSE = {STOI["("]: STOI[")"], STOI["["]: STOI["]"]}


class FixedMarginals(torch.nn.Module):
    """A 'DLM' whose marginals ignore the input: position 1 is '(' or '[' (50/50), position 2 is ')' or ']'
    (50/50). Their joint in the data is {"()", "[]"}; sampled independently, half the pairs mismatch."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[torch.Tensor] = []

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        self.calls.append(ids.clone())
        logits = torch.full((ids.shape[0], ids.shape[1], V), -30.0)
        logits[:, 1, list(OPEN)] = 0.0
        logits[:, 2, list(CLOSE.values())] = 0.0
        return logits


def pairs_data(n: int) -> list[Example]:
    out = []
    for i in range(n):
        o = OPEN[i % 2]
        out.append(Example([CODE_ID, o, CLOSE[o]], 1, 3, "code"))
    return out


def mismatch_rate(x: torch.Tensor) -> float:
    return sum(CLOSE.get(int(a), -1) != int(b) for a, b in x[:, 1:3].tolist()) / x.shape[0]


def test_independent_sampling_breaks_brackets_and_the_head_restores_them() -> None:
    torch.manual_seed(0)
    dlm = FixedMarginals()
    prompt = torch.tensor([[CODE_ID, MASK_ID, MASK_ID]]).repeat(1000, 1)
    for order in ("confidence", "blocks"):
        x, steps = dlm_decode(dlm, prompt, 1, 3, 2, torch.Generator().manual_seed(1), MASK_ID, order=order)
        assert steps == 1
        # hand-computed: P(mismatch) = P('(' then ']') + P('[' then ')') = 0.25 + 0.25 = 0.5; sd over 1000 = 0.016
        assert abs(mismatch_rate(x) - 0.5) < 0.07
    head = LocalARHead(HeadConfig(V, block=2, dim=32, layers=1, heads=2, ff=64))
    # untrained (zero read-out), the head is the DLM: its logits are the DLM's log-marginals
    block = dlm(prompt[:4])[:, 1:3]
    assert torch.allclose(head(block, prompt[:4, 0:2]), torch.log_softmax(block, -1))
    x, _ = codila_decode(dlm, head, prompt, 1, 3, 2, torch.Generator().manual_seed(1), MASK_ID)
    assert abs(mismatch_rate(x) - 0.5) < 0.07
    curve = train_head(head, dlm, pairs_data(64), TrainConfig(steps=60, batch=32, lr=1e-2, log_every=1), MASK_ID)
    # hand-computed: blocks start at 1 (two targets: ln 2 irreducible, then the close) or 2 (the close alone),
    # so the loss starts at ln 2 = 0.693 per target (the untrained head is the DLM) and cannot fall below
    # ln 2 / 3 = 0.231
    assert abs(curve[0] - 0.6931) < 1e-3 and min(curve) > 0.231 - 0.1 and sum(curve[-10:]) / 10 < 0.231 + 0.05
    x, steps = codila_decode(dlm, head, prompt, 1, 3, 2, torch.Generator().manual_seed(1), MASK_ID)
    assert steps == 1 and mismatch_rate(x) < 0.01
    # both structures still occur about half the time each: the head keeps the DLM's first marginal
    assert abs((x[:, 1] == OPEN[0]).float().mean().item() - 0.5) < 0.07


def test_dlm_loss_falls_on_the_toy_language() -> None:
    torch.manual_seed(0)
    dlm = TinyTransformer(NetConfig(V, SEQ_LEN, dim=32, layers=1, heads=2, ff=64))
    curve = train_dlm(dlm, make_dataset(1000, seed=0), TrainConfig(steps=80, batch=16, lr=1e-2, log_every=10),
                      MASK_ID)
    # uniform guessing over the vocabulary costs ln(44) = 3.78 nats
    assert curve[0] > 2.0 and curve[-1] < 0.65 * curve[0]
    assert not dlm.training


def test_confidence_order_commits_the_surest_position_first() -> None:
    class Peaked(FixedMarginals):
        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            self.calls.append(ids.clone())
            logits = torch.zeros(ids.shape[0], ids.shape[1], V)
            logits[:, 3, STOI["7"]] = 20.0  # position 3 is sure; the others are uniform
            return logits

    dlm = Peaked()
    prompt = torch.tensor([[CODE_ID] + [MASK_ID] * 5])
    x, steps = dlm_decode(dlm, prompt, 1, 6, 1, torch.Generator().manual_seed(0), MASK_ID)
    assert steps == 5 and not (x == MASK_ID).any()
    second = dlm.calls[1][0]
    assert int(second[3]) == STOI["7"] and (second[[1, 2, 4, 5]] == MASK_ID).all()
    dlm.calls.clear()
    dlm_decode(dlm, prompt, 1, 6, 2, torch.Generator().manual_seed(0), MASK_ID, order="blocks")
    assert [(c[0, 1:6] == MASK_ID).tolist() for c in dlm.calls] == [
        [True] * 5, [False, False, True, True, True], [False] * 4 + [True]]


@pytest.mark.parametrize("k, steps", [(1, 32), (3, 11), (8, 4)])
def test_decoders_are_seeded_deterministic_and_count_steps(k: int, steps: int) -> None:
    torch.manual_seed(0)
    dlm = TinyTransformer(NetConfig(V, SEQ_LEN, dim=32, layers=1, heads=2, ff=64))
    ar = TinyTransformer(NetConfig(V, SEQ_LEN, dim=32, layers=1, heads=2, ff=64, causal=True))
    head = LocalARHead(HeadConfig(V, block=8, dim=32, layers=1, heads=2, ff=64))
    torch.nn.init.normal_(head.net.out.weight, std=0.5)
    prompt = torch.tensor([[CODE_ID] + [MASK_ID] * (SEQ_LEN - 1)]).repeat(4, 1)
    runs = {
        "ar": lambda g: ar_decode(ar, prompt, 1, SEQ_LEN, g, MASK_ID),
        "dlm": lambda g: dlm_decode(dlm, prompt, 1, SEQ_LEN, k, g, MASK_ID),
        "blocks": lambda g: dlm_decode(dlm, prompt, 1, SEQ_LEN, k, g, MASK_ID, order="blocks"),
        "codila": lambda g: codila_decode(dlm, head, prompt, 1, SEQ_LEN, k, g, MASK_ID),
    }
    for name, fn in runs.items():
        a, n = fn(torch.Generator().manual_seed(5))
        b, _ = fn(torch.Generator().manual_seed(5))
        c, _ = fn(torch.Generator().manual_seed(6))
        assert torch.equal(a, b), name
        assert not torch.equal(a, c), name
        assert n == (SEQ_LEN - 1 if name == "ar" else steps), name
        assert not (a == MASK_ID).any() and (a[:, 0] == CODE_ID).all()
    # greedy ignores the generator
    g1, _ = dlm_decode(dlm, prompt, 1, SEQ_LEN, k, torch.Generator().manual_seed(1), MASK_ID, temperature=0)
    g2, _ = dlm_decode(dlm, prompt, 1, SEQ_LEN, k, torch.Generator().manual_seed(2), MASK_ID, temperature=0)
    assert torch.equal(g1, g2)


def test_bad_decoder_parameters_are_user_errors() -> None:
    dlm = FixedMarginals()
    head = LocalARHead(HeadConfig(V, block=2, dim=16, layers=1, heads=2, ff=32))
    prompt = torch.tensor([[CODE_ID, MASK_ID, MASK_ID]])
    g = torch.Generator().manual_seed(0)
    with pytest.raises(UserError, match="tokens per step"):
        dlm_decode(dlm, prompt, 1, 3, 0, g, MASK_ID)
    with pytest.raises(UserError, match="order"):
        dlm_decode(dlm, prompt, 1, 3, 1, g, MASK_ID, order="random")
    with pytest.raises(UserError, match="span"):
        dlm_decode(dlm, prompt, 0, 3, 1, g, MASK_ID)
    with pytest.raises(UserError, match="exceeds the head"):
        codila_decode(dlm, head, prompt, 1, 3, 4, g, MASK_ID)
    with pytest.raises(UserError, match="temperature"):
        dlm_decode(dlm, prompt, 1, 3, 1, g, MASK_ID, temperature=-1.0)
    with pytest.raises(UserError, match="training config"):
        TrainConfig(steps=0)
