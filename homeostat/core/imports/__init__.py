"""`homeostat import`: the rule files a code repo already has, brought under the KB's governance.

`rulefiles` finds and reads each tool's format with its path scoping (the inverse of
`core.export.formats`); `split` cuts a file into one-instruction items and prose; `candidates` turns items
into candidate rules, placed in the repo's areas and deduplicated with the daily run's consolidation
guards. Prose becomes document sections. Nothing here reads a file or asks a model.
"""
