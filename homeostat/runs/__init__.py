"""Runs: the multi-step pipelines (curate, daily) that wire the pure core to a code host and a model.

A run takes its host, KB, asker and clock as arguments, so a test drives it over the local emulators
and a queue-driven fake model, and `homeostat/commands/<group>/<name>.py` only builds those from the
environment and prints the result.
"""
