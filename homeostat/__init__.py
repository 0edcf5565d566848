"""Homeostat: a team knowledge base for coding agents that keeps itself current."""

VERSION = "0.2.0"
