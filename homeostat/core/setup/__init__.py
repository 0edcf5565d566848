"""Setting a KB repo up: what `init` writes, the version the CI pins, homeostat.yaml edits, the KB's CODEOWNERS, and the patch shown instead of a write."""
