"""Class-incremental node-classification streams on generated graphs.

Each task is its own stochastic-block-model graph over ``classes_per_task`` new classes (``p_in`` within a
class, ``p_out`` across: homophily). A node's features are ``shift_t + signal * mu_c + noise``: ``mu_c`` is
its class's mean direction (weak, so one node's features alone classify it poorly and neighbourhood
aggregation helps), ``shift_t`` is a task-level offset shared by all nodes of task ``t`` — the "graph
context" that tells tasks apart. Global class ids run ``t * classes_per_task + k``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import torch

from paperworks.backends._validate import BackendInputError
from paperworks.core.errors import UserError


@dataclass
class StreamConfig:
    """Sizes of a generated task stream."""

    tasks: int = 5
    """Tasks in the stream (each brings ``classes_per_task`` new classes)."""
    classes_per_task: int = 2
    """New classes per task."""
    nodes_per_class: int = 150
    """Nodes of each class in its task's graph."""
    features: int = 32
    """Feature dimension."""
    p_in: float = 0.03
    """Edge probability between two nodes of the same class."""
    p_out: float = 0.01
    """Edge probability between nodes of different classes."""
    signal: float = 0.1
    """Scale of the class mean directions (per-dimension noise has std 1)."""
    shift: float = 1.0
    """Scale of the task-level feature offset (the graph context)."""
    train_frac: float = 0.6
    """Fraction of each task's nodes with training labels; the rest are test nodes."""
    seed: int = 0
    """Seed of the stream."""

    def validate(self) -> None:
        """Raise :class:`UserError` on values the generator cannot use."""
        if self.tasks < 1 or self.classes_per_task < 2 or self.nodes_per_class < 2 or self.features < 1:
            raise UserError("stream: tasks >= 1, classes_per_task >= 2, nodes_per_class >= 2, features >= 1 "
                            f"expected, got {self.tasks}, {self.classes_per_task}, {self.nodes_per_class}, "
                            f"{self.features}")
        for name in ("p_in", "p_out", "train_frac"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise UserError(f"stream: {name} must be in [0, 1], got {v}")


@dataclass
class TaskGraph:
    """One task's graph: features ``x`` (n, d), normalised adjacency ``adj`` (sparse n×n), global labels ``y``,
    train/test node masks, and the task's global class ids."""

    task: int
    x: torch.Tensor
    adj: torch.Tensor
    y: torch.Tensor
    train: torch.Tensor
    test: torch.Tensor
    classes: list[int]

    @property
    def edges(self) -> int:
        """Stored non-zeros of the normalised adjacency (self-loops included)."""
        return int(self.adj._nnz())


def normalized_adjacency(edge_index: torch.Tensor, n: int) -> torch.Tensor:
    """``D^-1/2 (A + I) D^-1/2`` as a sparse CSR tensor, for an undirected ``edge_index`` (2, E) listing each
    edge once (both directions are added here). CSR, not COO: a COO product took ~0.5 ms at any width on a
    3000-node graph and some forward passes 3x longer at random, CSR ~0.05 ms (torch 2.13, one thread)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise BackendInputError(f"normalized_adjacency: n must be an integer >= 1, got {n!r}")
    if edge_index.dim() != 2 or edge_index.shape[0] != 2 or edge_index.is_floating_point():
        raise BackendInputError(f"normalized_adjacency: edge_index must be an integer (2, E) tensor, got "
                                f"{edge_index.dtype} {tuple(edge_index.shape)}")
    if edge_index.numel() and (int(edge_index.min()) < 0 or int(edge_index.max()) >= n):
        raise BackendInputError(f"normalized_adjacency: edge_index holds nodes outside 0..{n - 1}")
    loops = torch.arange(n)
    row = torch.cat([edge_index[0], edge_index[1], loops])
    col = torch.cat([edge_index[1], edge_index[0], loops])
    a = torch.sparse_coo_tensor(torch.stack([row, col]), torch.ones(row.numel()), (n, n),
                                check_invariants=False).coalesce()
    idx = a.indices()
    vals = torch.ones(idx.shape[1])  # duplicate edges count once
    deg = torch.zeros(n).index_add_(0, idx[0], vals)
    norm = deg[idx[0]].rsqrt() * deg[idx[1]].rsqrt()
    coo = torch.sparse_coo_tensor(idx, norm, (n, n), check_invariants=False).coalesce()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "sparse CSR support is in beta"
        return coo.to_sparse_csr()


def sbm_edges(labels: torch.Tensor, p_in: float, p_out: float, gen: torch.Generator) -> torch.Tensor:
    """Undirected SBM edges (2, E), each pair i < j drawn once with ``p_in`` or ``p_out``."""
    n = labels.numel()
    i, j = torch.triu_indices(n, n, offset=1)
    p = torch.where(labels[i] == labels[j], p_in, p_out)
    keep = torch.rand(p.shape, generator=gen) < p
    return torch.stack([i[keep], j[keep]])


def make_stream(cfg: StreamConfig, graph_seed: int | None = None) -> list[TaskGraph]:
    """The task graphs of one stream (deterministic in ``cfg.seed``). With ``graph_seed`` the tasks (class
    means, task shifts) are the same but the graphs, features and splits are fresh draws."""
    cfg.validate()
    gen = torch.Generator().manual_seed(cfg.seed)
    n_classes = cfg.tasks * cfg.classes_per_task
    mu = torch.randn(n_classes, cfg.features, generator=gen) * cfg.signal
    shifts = torch.randn(cfg.tasks, cfg.features, generator=gen) * cfg.shift
    if graph_seed is not None:
        gen.manual_seed(graph_seed)
    out = []
    for t in range(cfg.tasks):
        classes = [t * cfg.classes_per_task + k for k in range(cfg.classes_per_task)]
        y = torch.tensor(classes).repeat_interleave(cfg.nodes_per_class)
        n = y.numel()
        x = shifts[t] + mu[y] + torch.randn(n, cfg.features, generator=gen)
        adj = normalized_adjacency(sbm_edges(y, cfg.p_in, cfg.p_out, gen), n)
        perm = torch.randperm(n, generator=gen)
        train = torch.zeros(n, dtype=torch.bool)
        train[perm[: int(round(cfg.train_frac * n))]] = True
        out.append(TaskGraph(t, x, adj, y, train, ~train, classes))
    return out


def graph_context(x: torch.Tensor, adj: torch.Tensor, hops: int = 2) -> torch.Tensor:
    """The graph-context embedding of a graph: the mean over its nodes of ``adj^hops x`` (parameter-free).

    Computed as ``w^T x / n`` with ``w = adj^hops 1`` — the same vector for a symmetric ``adj`` (as
    :func:`normalized_adjacency` makes), for ``hops * nnz + n * d`` multiply-accumulates instead of
    ``hops * nnz * d``."""
    w = torch.ones(x.shape[0], 1, dtype=adj.dtype)
    for _ in range(hops):
        w = torch.sparse.mm(adj, w)
    return (w.T.to(x.dtype) @ x).squeeze(0) / x.shape[0]
