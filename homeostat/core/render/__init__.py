"""The rendered text agents and people read: the session view, one rule's lean Markdown, a `read` answer, validation findings, and Slack Block Kit messages."""
