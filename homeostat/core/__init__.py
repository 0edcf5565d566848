"""The pure core: text and values in, values out. Nothing here does I/O or imports an adapter."""
