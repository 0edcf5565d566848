"""Content that could hurt an agent or leak: risky phrasing, secrets and personal data, and sign-offs on risky text."""
