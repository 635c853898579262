"""Generator of the ``hist_offline`` benchmark suite (see ``scripts/make_hist_offline.py``)."""
