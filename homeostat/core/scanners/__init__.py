"""Content scanners of the pure core, by the question each answers.

`secrets/` finds secrets by their shape (vendor formats, a value after a key, flag or position, connection
strings) for `homeostat.core.safety.secrets`; `risky/` reads the canonical form of a text for instructions that
would harm the agents it reaches, for `homeostat.core.safety.risky`. `hidden.py` (the places Markdown hides text)
and `normalise.py` (disguises undone before either looks) serve both.
"""
