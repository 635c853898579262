"""CAGNN (RECONSTRUCTED — neither the paper's text nor its code could be read here; this follows its abstract).

The abstract: parameter isolation fits more tasks into limited capacity, but its compute grows as capacity
expands; CAGNN, inspired by biological neurons, uses graph context to build task-specific subnetworks and
decouples them in training and inference, so a forward pass does not propagate through the full network,
while knowledge still transfers across tasks. The reconstruction:

- A shared pool: a two-layer GCN with ``pool`` hidden units per layer.
- Graph context: ``c = mean_nodes(A^2 X)``, parameter-free (:func:`.data.graph_context`).
- Subnetwork generation: a linear generator per layer maps ``c`` to a score per pool unit; the task's
  subnetwork is the top-``units`` units of each layer (neuron-level masks, "neurons" firing for a context).
  Training uses the straight-through estimator (forward: the hard 0/1 mask; backward: through sigmoid(score)),
  so the generator learns which units suit the context.
- Freezing: after task ``t`` its unit sets, its head and its context prototype are stored and frozen, and so
  is every pool weight the subnetwork reads (layer-1 columns of its units; the layer-2 entries between its
  layer-1 and layer-2 units; those units' biases). Later tasks may *reuse* frozen units (forward transfer:
  their features are read, not changed) and train only the free entries; the generator stays shared.
- Inference: the graph's context selects the nearest stored prototype; only that subnetwork's weights are
  gathered and run (``units`` wide), so its cost is fixed by ``units``, not by the number of tasks.
"""

from __future__ import annotations

import torch
from torch import nn

from paperworks.backends.cagnn.data import TaskGraph, graph_context
from paperworks.backends.cagnn.gcn import ContextSelector, TrainConfig, gcn_macs
from paperworks.core.errors import UserError
from paperworks.core.tracking import track


class CAGNN(nn.Module):
    """Context-generated, frozen neuron-mask subnetworks over one shared GCN pool."""

    name = "CAGNN"
    frozen1: torch.Tensor
    """(pool, d): layer-1 weight entries read by a frozen subnetwork."""
    frozen2: torch.Tensor
    """(pool, pool): layer-2 weight entries read by a frozen subnetwork."""

    def __init__(self, d: int, cfg: TrainConfig, units: int, pool: int | None = None) -> None:
        super().__init__()
        cfg.validate()
        pool = cfg.hidden if pool is None else pool
        if not 1 <= units <= pool:
            raise UserError(f"cagnn: units per subnetwork must be in [1, pool={pool}], got {units}")
        torch.manual_seed(cfg.seed)
        self.cfg, self.d, self.pool, self.units = cfg, d, pool, units
        self.l1, self.l2 = nn.Linear(d, pool), nn.Linear(pool, pool)
        self.gen1, self.gen2 = nn.Linear(d, pool), nn.Linear(d, pool)
        self.heads = nn.ModuleList()
        self.masks: list[tuple[torch.Tensor, torch.Tensor]] = []
        """Per learned task: the (sorted) layer-1 and layer-2 unit indices of its subnetwork."""
        self.classes: list[list[int]] = []
        self.selector = ContextSelector()
        self.register_buffer("frozen1", torch.zeros(pool, d, dtype=torch.bool))
        self.register_buffer("frozen2", torch.zeros(pool, pool, dtype=torch.bool))
        self._hooks = [self.l1.weight.register_hook(lambda g: g.masked_fill(self.frozen1, 0.0)),
                       self.l2.weight.register_hook(lambda g: g.masked_fill(self.frozen2, 0.0)),
                       self.l1.bias.register_hook(lambda g: g.masked_fill(self.frozen1.any(1), 0.0)),
                       self.l2.bias.register_hook(lambda g: g.masked_fill(self.frozen2.any(1), 0.0))]

    # -- training (dense pool, masked) -------------------------------------------------------------------
    def _mask(self, gen: nn.Linear, ctx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Straight-through unit mask (forward: hard top-``units``; backward: sigmoid) and its unit indices."""
        score = gen(ctx)
        units = score.topk(self.units).indices
        hard = torch.zeros_like(score).scatter_(0, units, 1.0)
        soft = torch.sigmoid(score)
        return hard + soft - soft.detach(), units.detach().sort().values

    def dense_forward(self, g: TaskGraph, m1: torch.Tensor, m2: torch.Tensor, head: nn.Module) -> torch.Tensor:
        """Logits with the pool computed in full and unit masks ``m1``, ``m2`` applied (used in training)."""
        h1 = torch.relu(torch.sparse.mm(g.adj, g.x @ self.l1.weight.T) + self.l1.bias) * m1
        h2 = torch.relu(torch.sparse.mm(g.adj, h1 @ self.l2.weight.T) + self.l2.bias) * m2
        return head(h2)

    def learn(self, g: TaskGraph, seen: list[TaskGraph]) -> None:
        """Generate task ``g``'s subnetwork from its context, train it (free entries only), then freeze it."""
        ctx = graph_context(g.x, g.adj)
        head = nn.Linear(self.pool, len(g.classes))
        params = [self.l1.weight, self.l1.bias, self.l2.weight, self.l2.bias, *self.gen1.parameters(),
                  *self.gen2.parameters(), *head.parameters()]
        opt = torch.optim.Adam(params, lr=self.cfg.lr)  # fresh moments: frozen entries get exactly zero steps
        local = g.y - min(g.classes)
        for epoch in range(self.cfg.epochs):
            opt.zero_grad()
            (m1, u1), (m2, u2) = self._mask(self.gen1, ctx), self._mask(self.gen2, ctx)
            logits = self.dense_forward(g, m1, m2, head)
            loss = nn.functional.cross_entropy(logits[g.train], local[g.train])
            loss.backward()
            opt.step()
            track(f"task{g.task}/loss", loss, epoch)
        # the stored subnetwork is the one the last step trained (the generator has moved on since)
        for p in head.parameters():
            p.requires_grad_(False)
        self.heads.append(head)
        self.masks.append((u1, u2))
        self.classes.append(list(g.classes))
        self.selector.add(g)
        self.frozen1[u1] = True
        self.frozen2[u2.unsqueeze(1), u1.unsqueeze(0)] = True

    # -- inference (gathered subnetwork) -----------------------------------------------------------------
    def subnetwork(self, task: int) -> dict[str, torch.Tensor]:
        """The gathered weights of ``task``'s subnetwork (all ``units`` wide)."""
        u1, u2 = self.masks[task]
        head = self.heads[task]
        assert isinstance(head, nn.Linear)
        return {"w1": self.l1.weight[u1], "b1": self.l1.bias[u1], "w2": self.l2.weight[u2][:, u1],
                "b2": self.l2.bias[u2], "wh": head.weight[:, u2], "bh": head.bias}

    @torch.no_grad()
    def task_logits(self, g: TaskGraph, task: int) -> torch.Tensor:
        """Logits of ``task``'s subnetwork on ``g``, computing only that subnetwork."""
        w = self.subnetwork(task)
        h1 = torch.relu(torch.sparse.mm(g.adj, g.x @ w["w1"].T) + w["b1"])
        h2 = torch.relu(torch.sparse.mm(g.adj, h1 @ w["w2"].T) + w["b2"])
        return h2 @ w["wh"].T + w["bh"]

    @torch.no_grad()
    def predict(self, g: TaskGraph) -> torch.Tensor:
        """Global class ids: the context selects a subnetwork, which alone runs."""
        s = self.selector.select(g)
        return torch.tensor(self.classes[s])[self.task_logits(g, s).argmax(1)]

    def forward_cost(self, g: TaskGraph) -> dict[str, int]:
        """Parameters and multiply-accumulates one inference pass touches: the selected subnetwork (fixed
        size) plus the selector (``tasks * d`` distance terms, reported inside ``macs``)."""
        u, c = self.units, len(self.classes[-1])
        params = self.d * u + u + u * u + u + u * c + c
        macs = gcn_macs(g.x.shape[0], g.edges, [self.d, u, u, c])
        return {"params": params, "macs": macs + self.selector.macs(g), "subnetwork_macs": macs}

    def stored_parameters(self) -> int:
        """Pool, generators and heads (the unit index lists and prototypes are counted too)."""
        n = sum(p.numel() for p in self.parameters())
        return n + sum(a.numel() + b.numel() for a, b in self.masks) + sum(p.numel() for p in self.selector.prototypes)
