"""Model runtimes: the anthropic SDK, `claude -p`, the Asker each agent gets, and pacing model calls."""
