"""Adapters: git, code hosts, model runtimes and notifiers. Each implements a core Protocol."""
