"""A hostile HTTP agent for the security tests: a threaded server on 127.0.0.1 whose routes write raw
replies (gzip bombs, endless bodies, trickles, redirects, echoed headers). Every endless writer stops
when the client hangs up, after ``MAX_BYTES`` or after ``MAX_SECONDS``, so a failing test cannot hang."""

from __future__ import annotations

import contextlib
import gzip
import json
import threading
import time
import zlib
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_BYTES = 64_000_000
MAX_SECONDS = 5.0
Route = Callable[[BaseHTTPRequestHandler, dict[str, Any]], None]


class HostileServer:
    """Routes are ``path -> fn(handler, request)``; ``requests`` records what came in, ``hits`` how
    often each path was asked for, ``sent`` how many body bytes each route wrote."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[dict[str, Any]] = []
        self.hits: dict[str, int] = {}
        self.sent: dict[str, int] = {}
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def handle(self) -> None:
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    super().handle()  # the client may hang up: what the size cap is for

            def _any(self) -> None:
                length = int(self.headers.get("content-length", 0) or 0)
                raw = self.rfile.read(length) if length else b""
                path = self.path.split("?", 1)[0]
                request = {
                    "method": self.command,
                    "path": self.path,
                    "headers": dict(self.headers),
                    "body": raw.decode("utf-8", "replace"),
                }
                with server.lock:
                    server.requests.append(request)
                    server.hits[path] = server.hits.get(path, 0) + 1
                route = server.routes.get(path)
                if route is None:
                    reply(self, 404, b"no such route")
                    return
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    route(self, request)

            do_POST = do_GET = _any

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}{path}"

    def count(self, path: str, n: int) -> None:
        with self.lock:
            self.sent[path] = self.sent.get(path, 0) + n

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def reply(
    handler: BaseHTTPRequestHandler,
    status: int,
    body: bytes,
    *,
    ctype: str = "application/json",
    headers: dict[str, str] | None = None,
) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Content-Length", str(len(body)))
    for k, v in (headers or {}).items():
        handler.send_header(k, v)
    handler.end_headers()
    handler.wfile.write(body)


def hub_reply(text: str) -> bytes:
    return json.dumps({"response": {"role": "assistant", "content": text}}).encode()


def gzip_bomb(size: int) -> bytes:
    """``size`` bytes of JSON-looking padding, gzipped (about 1,000 times smaller)."""
    return gzip.compress(b'{"response": "' + b" " * size + b'"}', compresslevel=9)


def deflate(body: bytes) -> bytes:
    return zlib.compress(body)


def endless(
    server: HostileServer,
    path: str,
    *,
    declared: int | None = None,
    chunk: bytes = b"x" * 65536,
    pause: float = 0.0,
) -> Route:
    """A route writing ``chunk`` forever (chunked, or under a ``declared`` Content-Length) until the
    client hangs up (or the test bounds are reached)."""

    def route(handler: BaseHTTPRequestHandler, request: dict[str, Any]) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        if declared is not None:
            handler.send_header("Content-Length", str(declared))
        else:
            handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        start, total = time.monotonic(), 0
        while total < MAX_BYTES and time.monotonic() - start < MAX_SECONDS:
            data = chunk if declared is not None else b"%x\r\n%s\r\n" % (len(chunk), chunk)
            handler.wfile.write(data)
            handler.wfile.flush()
            total += len(chunk)
            server.count(path, len(chunk))
            if pause:
                time.sleep(pause)
        handler.close_connection = True

    return route
