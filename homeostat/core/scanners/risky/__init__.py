"""Risky-content scanners: the canonical form, phrase and concept rules, decoded payloads, URLs.

safety/risky.py runs them over exactly the text that is served.
"""
