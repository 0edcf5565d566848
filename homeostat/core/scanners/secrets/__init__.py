"""Secret scanners: vendor formats, secrets after keys, flags and positions, connection strings.

safety/secrets.py runs them; each module finds one family of secret by its shape.
"""
