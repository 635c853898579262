"""CAGNN: capacity-agnostic graph continual learning — task-specific subnetworks of a shared GNN, chosen by
graph context, so a forward pass runs one subnetwork of fixed size however many tasks have been learned.

Neither the paper's text nor its code could be read here; the mechanism is RECONSTRUCTED from the abstract
(see :mod:`.model`). Modules (torch loads only when one of them is imported):

- ``data`` — class-incremental node-classification streams on stochastic block models (homophily,
  class-dependent features, a task-level feature shift that is the graph context), normalised sparse
  adjacency, the graph-context embedding;
- ``gcn`` — a two-layer GCN on plain torch sparse ops (torch_geometric is not installed), and the
  baselines: fine-tuning, EWC, ER-GNN-style replay, and a capacity-expanding GCN;
- ``model`` — :class:`CAGNN`: context-generated neuron masks over a shared GCN, frozen after their task;
- ``stream`` — sequential training, the accuracy matrix, average performance and forgetting, and the
  per-forward cost (parameters and multiply-accumulates touched);
- ``repro`` — ``paperworks repro cagnn``.
"""

from paperworks.backends.repro import REPROS

REPROS["cagnn"] = "paperworks.backends.cagnn.repro:run"
