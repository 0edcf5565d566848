"""`homeostat bench`: the same tasks through headless Claude Code with the plugin off and on.

`run` plans the (task, repeat, condition) runs still to do and runs them one call at a time, each
checked against the budget first; `unit` runs one task in one condition and grades it; `calls`
holds the two kinds of model call (the agent's turn, the judge's verdict) and the ledger that counts
them; `report` reads the results back for `homeostat bench report`. docs/bench.md describes it.
"""
