"""Bootstrap and seed: the only paths that read a code repo's source, by hand and never on a schedule.

`seed` drafts one repo's documents, one per topic, each from its own file picker (`pickers`);
`bootstrap` does it for every repo of homeostat.yaml and imports the repos' own Markdown docs without
a model (`markdown_docs`). What may be read is decided before anything is opened (`sources`): the
never-read list (Terraform state, env files, keys and certificates, secrets folders, tests and the
like) is checked on the path alone, and what is read is cut to size and redacted before a prompt.
A rerun merges into the documents on disk and never overwrites a person's work (`merge`).
"""
