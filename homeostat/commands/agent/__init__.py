"""What a developer's clone and coding agent run: the session hooks, the rules for a change, MCP, lessons and their sync, the clone's status and event log."""
