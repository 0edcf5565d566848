"""The dashboard started on 127.0.0.1, for `homeostat dashboard` and `homeostat up` alike."""

from __future__ import annotations

import os
from pathlib import Path

from homeostat.console import note
from homeostat.dashboard.server import Dashboard, DashboardServer
from homeostat.errors import ConfigError
from homeostat.runs.sync import read_config


def serve(root: Path, port: int) -> DashboardServer:
    """The started server (its URL printed), or a one-line error when the port is taken."""
    read_config(root)  # a KB that cannot be read fails here, not on the first page
    try:
        server = DashboardServer(Dashboard(root, env=os.environ), port)
    except OSError as exc:
        raise ConfigError(
            f"--port {port}: cannot listen on 127.0.0.1:{port} ({exc.strerror}); pass another --port"
        ) from None
    server.start()
    note(f"dashboard at {server.url} (127.0.0.1 only; Ctrl-C stops it)")
    return server
