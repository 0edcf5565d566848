"""The weekly deep dive's pure parts: which rules repeat each other, which new rules may contradict
the rules they overlap, which rules went stale, and where the documents do not keep up.

Candidate pairs come from the consolidation's own overlap index (`OverlapIndex`), never from all
pairs, and pass its fact guards (`distinct_facts`: numbers and versions, look-alike code names); a
pair is only proposed here, and merged only when the model says the two rules say the same. The
run that asks and publishes is `homeostat.runs.deep_dive`.
"""
