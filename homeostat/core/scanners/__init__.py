"""Content scanners of the pure core: secret detectors and their value heuristics.

The public entry points live in `homeostat.core.safety.secrets` and `homeostat.core.safety.risky`; the modules here
are split by the question each answers (is this value real? which token formats exist? which key
positions hold secrets?) so each stays small enough to read against a false positive.
"""
