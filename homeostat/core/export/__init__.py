"""Exported rule files: each agent tool's native format, and the budgets of the files it reads on every request."""
