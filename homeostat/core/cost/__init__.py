"""What a run costs: the price table, spending against the cap, and token counts with tiktoken (remembered by text)."""
