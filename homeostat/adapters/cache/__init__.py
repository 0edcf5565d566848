"""The `.homeostat/` caches: the flattened corpus and a session repo's part of it, who the session is, and token counts."""
