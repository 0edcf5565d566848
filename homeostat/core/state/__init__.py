"""The `homeostat/state` branch: its records, the archive that keeps it small, sync's decisions and the runs' checkpoints."""
