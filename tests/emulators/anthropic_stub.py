"""Placeholder; the emulator is being written."""
