"""A two-layer GCN on plain torch sparse ops (torch_geometric is not installed here), the graph-context task
selector, and the baselines of the stream: fine-tuning, EWC, ER-GNN-style replay, a capacity-expanding GCN.

Every method has ``learn(task, seen)``, ``predict(graph)`` (global class ids), ``forward_cost(graph)``
(parameters and multiply-accumulates one inference forward pass touches) and ``stored_parameters()``.
The shared-head baselines are class-incremental: one output layer over every class seen so far, no task id.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from paperworks.backends.cagnn.data import TaskGraph, graph_context
from paperworks.core.errors import UserError
from paperworks.core.tracking import track


@dataclass
class TrainConfig:
    """Per-task optimisation, the same for every method."""

    hidden: int = 64
    """Hidden units per GCN layer of the shared-network baselines (CAGNN's pool has the same width)."""
    epochs: int = 100
    """Full-batch Adam steps per task."""
    lr: float = 0.01
    """Adam learning rate."""
    ewc_lambda: float = 1000.0
    """EWC penalty weight."""
    replay_per_class: int = 10
    """ER-GNN buffer: nodes kept per class (those nearest their class's mean feature)."""
    seed: int = 0
    """Seed of the initial weights."""

    def validate(self) -> None:
        """Raise :class:`UserError` on unusable values."""
        if self.hidden < 1 or self.epochs < 1 or self.lr <= 0 or self.ewc_lambda < 0 or self.replay_per_class < 0:
            raise UserError(f"train: hidden, epochs >= 1, lr > 0, ewc_lambda, replay_per_class >= 0 expected, got "
                            f"{self.hidden}, {self.epochs}, {self.lr}, {self.ewc_lambda}, {self.replay_per_class}")


def gcn_macs(n: int, nnz: int, dims: list[int]) -> int:
    """Multiply-accumulates of a GCN forward ``H <- A (H W) + b`` through widths ``dims`` (input first; the last
    layer is a plain linear head): per layer ``n * d_in * d_out`` for the transform and ``nnz * d_out`` for the
    sparse aggregation."""
    macs = 0
    for i, (a, b) in enumerate(zip(dims[:-1], dims[1:], strict=True)):
        macs += n * a * b + (nnz * b if i < len(dims) - 2 else 0)
    return macs


class ContextSelector:
    """Keeps one graph-context prototype per learned task; ``select`` returns the nearest task (Euclidean).
    Costs ``tasks * d`` multiply-accumulates per graph on top of the parameter-free context embedding."""

    def __init__(self) -> None:
        self.prototypes: list[torch.Tensor] = []

    def add(self, g: TaskGraph) -> None:
        """Store the context of a task's graph."""
        self.prototypes.append(graph_context(g.x, g.adj))

    def select(self, g: TaskGraph) -> int:
        """The learned task whose context is nearest to this graph's."""
        if not self.prototypes:
            raise UserError("ContextSelector.select: no task learned yet (call add first)")
        c = graph_context(g.x, g.adj)
        return int(torch.stack(self.prototypes).sub(c).pow(2).sum(1).argmin())

    def macs(self, g: TaskGraph) -> int:
        """Multiply-accumulates of one selection (context embedding and distances)."""
        d = g.x.shape[1]
        return 2 * g.edges + g.x.shape[0] * d + len(self.prototypes) * d


class GCN(nn.Module):
    """Two GCN layers (ReLU) and a linear head over ``classes`` outputs."""

    def __init__(self, d: int, hidden: int, classes: int) -> None:
        super().__init__()
        self.l1, self.l2, self.head = nn.Linear(d, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, classes)

    def embed(self, x: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
        """Node embeddings after the two GCN layers."""
        h = torch.relu(torch.sparse.mm(adj, x @ self.l1.weight.T) + self.l1.bias)
        return torch.relu(torch.sparse.mm(adj, h @ self.l2.weight.T) + self.l2.bias)

    def forward(self, x: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
        return self.head(self.embed(x, adj))


class SharedHeadMethod:
    """Fine-tuning: one GCN, one head over all classes, trained on each new task's labels in turn (logits of
    not-yet-seen classes masked). EWC and replay extend it."""

    name = "Fine-tune"

    def __init__(self, d: int, n_classes: int, cfg: TrainConfig) -> None:
        cfg.validate()
        torch.manual_seed(cfg.seed)
        self.cfg, self.net, self.seen = cfg, GCN(d, cfg.hidden, n_classes), 0

    def _logits(self, g: TaskGraph) -> torch.Tensor:
        return self.net(g.x, g.adj)[:, : self.seen]

    def extra_loss(self, seen: list[TaskGraph]) -> torch.Tensor:
        """Added to the task loss (nothing for plain fine-tuning)."""
        return torch.zeros(())

    def after_task(self, g: TaskGraph) -> None:
        """Hook after a task is learned."""

    def learn(self, g: TaskGraph, seen: list[TaskGraph]) -> None:
        """Train on task ``g``; ``seen`` are the earlier tasks' graphs (used only by replay)."""
        self.seen = max(self.seen, max(g.classes) + 1)
        opt = torch.optim.Adam(self.net.parameters(), lr=self.cfg.lr)
        for epoch in range(self.cfg.epochs):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(self._logits(g)[g.train], g.y[g.train]) + self.extra_loss(seen)
            loss.backward()
            opt.step()
            track(f"task{g.task}/loss", loss, epoch)
        self.after_task(g)

    @torch.no_grad()
    def predict(self, g: TaskGraph) -> torch.Tensor:
        """Global class id of every node (argmax over all classes seen so far)."""
        return self._logits(g).argmax(1)

    def forward_cost(self, g: TaskGraph) -> dict[str, int]:
        """Parameters and multiply-accumulates of one inference forward pass on ``g``."""
        d, h = g.x.shape[1], self.cfg.hidden
        params = d * h + h + h * h + h + h * self.seen + self.seen
        return {"params": params, "macs": gcn_macs(g.x.shape[0], g.edges, [d, h, h, self.seen])}

    def stored_parameters(self) -> int:
        """Parameters kept in memory (weights and, for EWC, the Fisher and anchor)."""
        return sum(p.numel() for p in self.net.parameters())


class EWC(SharedHeadMethod):
    """Fine-tuning plus the (online, summed) elastic weight consolidation penalty
    ``lambda/2 * sum_i F_i (theta_i - theta*_i)^2`` with the empirical diagonal Fisher of each task."""

    name = "EWC"

    def __init__(self, d: int, n_classes: int, cfg: TrainConfig, fisher_batches: int = 8) -> None:
        super().__init__(d, n_classes, cfg)
        self.fisher = [torch.zeros_like(p) for p in self.net.parameters()]
        self.anchor = [p.detach().clone() for p in self.net.parameters()]
        self.fisher_batches = fisher_batches

    def extra_loss(self, seen: list[TaskGraph]) -> torch.Tensor:
        if not seen:
            return torch.zeros(())
        pen = sum((f * (p - a).pow(2)).sum() for f, p, a in zip(self.fisher, self.net.parameters(), self.anchor,
                                                                   strict=True))
        return 0.5 * self.cfg.ewc_lambda * torch.as_tensor(pen)

    def after_task(self, g: TaskGraph) -> None:
        idx = g.train.nonzero().squeeze(1)
        gen = torch.Generator().manual_seed(self.cfg.seed + g.task)
        chunks = idx[torch.randperm(idx.numel(), generator=gen)].chunk(self.fisher_batches)
        for chunk in chunks:
            self.net.zero_grad()
            nn.functional.cross_entropy(self._logits(g)[chunk], g.y[chunk]).backward()
            for f, p in zip(self.fisher, self.net.parameters(), strict=True):
                if p.grad is not None:
                    f += p.grad.detach().pow(2) * chunk.numel() / idx.numel()
        self.anchor = [p.detach().clone() for p in self.net.parameters()]

    def stored_parameters(self) -> int:
        return 3 * super().stored_parameters()


class Replay(SharedHeadMethod):
    """ER-GNN-style experience replay: after each task, keep ``replay_per_class`` training nodes per class
    (the "mean of feature" rule: those nearest their class's mean feature); later tasks add the cross-entropy
    of the buffered nodes, computed on their own (stored) graphs so their neighbourhoods stay intact."""

    name = "Replay (ER-GNN)"

    def __init__(self, d: int, n_classes: int, cfg: TrainConfig) -> None:
        super().__init__(d, n_classes, cfg)
        self.buffer: dict[int, torch.Tensor] = {}

    def extra_loss(self, seen: list[TaskGraph]) -> torch.Tensor:
        losses = [nn.functional.cross_entropy(self._logits(s)[self.buffer[s.task]], s.y[self.buffer[s.task]])
                  for s in seen if s.task in self.buffer and self.buffer[s.task].numel()]
        return torch.stack(losses).mean() if losses else torch.zeros(())

    def after_task(self, g: TaskGraph) -> None:
        keep = []
        for c in g.classes:
            idx = (g.train & (g.y == c)).nonzero().squeeze(1)
            dist = (g.x[idx] - g.x[idx].mean(0)).pow(2).sum(1)
            keep.append(idx[dist.argsort()[: self.cfg.replay_per_class]])
        self.buffer[g.task] = torch.cat(keep)


class Expanding:
    """Capacity-expanding baseline: each task adds ``units`` hidden units to both GCN layers (new layer-2 units
    read every layer-1 unit; earlier units are frozen, so earlier tasks' features are kept) and a head of its
    own reading every unit present at its time. The graph-context selector picks the head; the forward pass
    runs the whole, growing network."""

    name = "Expanding"

    def __init__(self, d: int, cfg: TrainConfig, units: int) -> None:
        cfg.validate()
        if units < 1:
            raise UserError(f"expanding: units per task must be >= 1, got {units}")
        torch.manual_seed(cfg.seed)
        self.cfg, self.d, self.units = cfg, d, units
        self.l1 = nn.ModuleList()
        self.l2 = nn.ModuleList()
        self.heads = nn.ModuleList()
        self.classes: list[list[int]] = []
        self.selector = ContextSelector()

    def _embed(self, g: TaskGraph, upto: int) -> torch.Tensor:
        h1 = torch.relu(torch.sparse.mm(g.adj, torch.cat([m(g.x) for m in self.l1[:upto]], 1)))
        h2 = [m(h1[:, : (i + 1) * self.units]) for i, m in enumerate(self.l2[:upto])]
        return torch.relu(torch.sparse.mm(g.adj, torch.cat(h2, 1)))

    def learn(self, g: TaskGraph, seen: list[TaskGraph]) -> None:
        """Grow, train the new units and head on ``g``, freeze them."""
        t = len(self.l1)
        self.l1.append(nn.Linear(self.d, self.units))
        self.l2.append(nn.Linear((t + 1) * self.units, self.units))
        self.heads.append(nn.Linear((t + 1) * self.units, len(g.classes)))
        new = [*self.l1[t].parameters(), *self.l2[t].parameters(), *self.heads[t].parameters()]
        opt = torch.optim.Adam(new, lr=self.cfg.lr)
        local = g.y - min(g.classes)
        for epoch in range(self.cfg.epochs):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(self.heads[t](self._embed(g, t + 1))[g.train], local[g.train])
            loss.backward()
            opt.step()
            track(f"task{g.task}/loss", loss, epoch)
        for p in new:
            p.requires_grad_(False)
        self.classes.append(list(g.classes))
        self.selector.add(g)

    @torch.no_grad()
    def predict(self, g: TaskGraph) -> torch.Tensor:
        """Global class ids: the selected task's head on the full network's embedding."""
        s = self.selector.select(g)
        h = self._embed(g, len(self.l1))[:, : (s + 1) * self.units]
        return torch.tensor(self.classes[s])[self.heads[s](h).argmax(1)]

    def forward_cost(self, g: TaskGraph) -> dict[str, int]:
        """The full network runs; the head is the largest one (the newest task's), an upper bound."""
        n, e, d, u, t = g.x.shape[0], g.edges, self.d, self.units, len(self.l1)
        c = len(self.classes[-1])
        params = sum(p.numel() for m in (*self.l1, *self.l2) for p in m.parameters()) + t * u * c + c
        macs = n * d * u * t + e * u * t + sum(n * (i + 1) * u * u for i in range(t)) + e * u * t + n * t * u * c
        return {"params": params, "macs": macs + self.selector.macs(g)}

    def stored_parameters(self) -> int:
        """Every unit's and head's parameters."""
        return sum(p.numel() for m in (*self.l1, *self.l2, *self.heads) for p in m.parameters())


