"""``paperworks train``: RL of a model through workflow runs. Rollouts are evals run by ``eval``'s harness,
rewards are the suite's scorers, updates are ``backends/otb`` (advantages, PEFT LoRA), and the adapter is
served back by the embedded llama.cpp engine (``models/local``)."""
