"""Setting a KB up: init, doctor, CODEOWNERS, seeding and bootstrapping documents from code, importing a repo's rule files."""
