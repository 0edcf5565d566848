"""Which rules a session gets, in what order, and how many fit: tiers, rank fusion, BM25, the budget.

Everything here works on a `Corpus`: the KB flattened into plain records (rule entries, document
sections, the few config facts selection needs, an inverted index and pre-counted token costs). A
session hook runs on every prompt, so this module imports neither pydantic nor the tokenizer: the
corpus is built once per KB version (`build_corpus`, which does load the models) and cached as JSON.

Order (the design's): tier 1 is rules scoped to the touched files together with global rules that
name a touched file outright; tier 2 global rules naming a file next to one; tier 3 global rules that
name no file; tier 4 global rules naming other files. Within a tier, reciprocal rank fusion (k = 60)
of scope (narrowest matching glob, then score), BM25 of the touched paths' words against the rule
text, code references (touched files the rule names) and, when the session knows what the developer
is doing, the task (BM25 of the branch name's and recent commit subjects' words); score breaks ties.
Tiers come first, so a rule scoped to the touched files never loses to a general one that does not
name them; the one exception is stated with `lifted` below.
"""
