"""``TrickleServer``: an HTTP agent on 127.0.0.1 that answers one byte at a time (for deadline tests).

Every ``POST`` gets ``200`` with a ``Content-Length`` of ``size`` bytes, then the body trickles out one
byte every ``interval`` seconds: leading spaces, then a valid Hub reply (``{"response": "..."}``). Each
reply is a bounded loop (``size`` bytes) that also stops as soon as the client hangs up, so the server
never outlives a test by more than one interval. Use it as a context manager::

    with TrickleServer(interval=1.0, size=20) as server:
        hub.agents.create(project.id, "slow", server.url, timeout=5, max_retries=0)
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["TrickleServer"]

_BODY = b'{"response": "trickled"}'


class TrickleServer:
    """A threaded HTTP server sending ``size`` bytes per reply, one every ``interval`` seconds."""

    def __init__(self, *, interval: float = 1.0, size: int = 60):
        if interval <= 0 or size < len(_BODY):
            raise ValueError(f"interval must be > 0 and size >= {len(_BODY)}")
        self.interval, self.size = interval, size
        self.requests = 0
        self.bytes_sent = 0
        self.stopped = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                server.requests += 1
                body = b" " * (server.size - len(_BODY)) + _BODY
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.flush()
                for i in range(len(body)):  # bounded: at most ``size`` bytes, then done
                    if server.stopped.wait(server.interval):
                        return
                    try:
                        self.wfile.write(body[i : i + 1])
                        self.wfile.flush()
                    except OSError:  # the client gave up: stop trickling
                        return
                    server.bytes_sent += 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        self.started = time.perf_counter()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/agent"

    def stop(self) -> None:
        self.stopped.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> TrickleServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
