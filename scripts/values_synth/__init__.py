"""Helpers of scripts/make_values_synth.py (the values_synth suite's README and SOURCE texts)."""
