"""The HTTP server every emulator runs on: a `ThreadingHTTPServer` whose close also ends the
connections clients kept alive.

Why: real clients (requests' pools behind PyGithub and atlassian-python-api, the anthropic SDK's
httpx) keep connections open after a test, and the standard server's handler thread waits on such
a connection until the client lets go, which for a pool nobody closes is never. Those threads
outlived their servers by the hundred in a whole-suite run, and a process with another thread
never forks a counting or parsing child (`homeostat.adapters.count_worker.may_fork`), so the tests
of that split failed only when run after the emulator tests.
"""

from __future__ import annotations

import socket
import threading
from http.server import ThreadingHTTPServer
from typing import Any


class ClosingServer(ThreadingHTTPServer):
    """Handler threads are daemons (a stopped test never waits on one), and closing ends them."""

    daemon_threads = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(*args, **kwargs)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def server_close(self) -> None:
        """Stop listening, then end each open connection: its handler reads end-of-file and its
        thread returns."""
        super().server_close()
        with self._open_lock:
            still_open = list(self._open)
        for connection in still_open:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                continue  # the handler closed it meanwhile
