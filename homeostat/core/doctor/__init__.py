"""`homeostat doctor`'s judgement and `doctor --security`'s review, from the facts of a live setup."""
