"""``giskard-nb view``: a read-only web viewer of a whole Hub on 127.0.0.1 (standard library
``ThreadingHTTPServer``), built on the report's page templates.

What it answers: ``GET`` only (any other method gets 405 and ``Allow: GET``); the pages of
``report.hub_pages`` and nothing else (no file is ever served, so no path can reach one); an unknown
path or id gets a 404 page; a request whose ``Host`` is not this server's gets 400 (a page of another
site cannot read the Hub through DNS rebinding). Every page carries a Content-Security-Policy (nothing
loaded from anywhere, only the page's own style and script, by nonce), ``X-Content-Type-Options:
nosniff``, ``X-Frame-Options: DENY`` and ``Cache-Control: no-store``."""

from __future__ import annotations

import re
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from giskard_nb.errors import GiskardNBError, NotFoundError
from giskard_nb.report.hub_pages import PAGES, RECORD_PAGES, error_page, result
from giskard_nb.report.page import csp

__all__ = ["HOST", "Viewer"]

#: The only address the viewer listens on.
HOST = "127.0.0.1"
_ID = r"[A-Za-z0-9_.-]{1,100}"
_RECORD = re.compile(rf"^/(projects|datasets|evaluations|scans)/({_ID})/?$")
_RESULT = re.compile(rf"^/evaluations/({_ID})/results/({_ID})/?$")


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "giskard-nb-view"
    sys_version = ""
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if not self._host_ok():
            self._send(
                *error_page(400, "Bad request", "This viewer answers its own address only."),
                status=400,
            )
            return
        parts = urlsplit(self.path)
        try:
            query = dict(parse_qsl(parts.query, max_num_fields=20))
        except ValueError:
            self._send(*error_page(400, "Bad request", "Too many query parameters."), status=400)
            return
        try:
            with self.server.lock:  # one reader of the Hub at a time
                page = self._route(parts.path, query)
        except NotFoundError as exc:
            self._send(*error_page(404, "Not found", _first_line(exc)), status=404)
            return
        except GiskardNBError as exc:
            self._send(*error_page(400, "Bad request", _first_line(exc)), status=400)
            return
        except Exception as exc:  # never a traceback on the page
            self.log_error("%s: %s", type(exc).__name__, _first_line(exc))
            self._send(
                *error_page(500, "Error", f"The page could not be built ({type(exc).__name__})."),
                status=500,
            )
            return
        if page is None:
            self._send(*error_page(404, "Not found", "No page at this address."), status=404)
        else:
            self._send(*page)

    def _route(self, path: str, query: dict[str, str]) -> tuple[str, str] | None:
        hub = self.server.hub
        if path in PAGES:
            return PAGES[path](hub, query)
        found = _RESULT.match(path)
        if found:
            return result(hub, found[1], found[2], query)
        found = _RECORD.match(path)
        if found:
            return RECORD_PAGES[found[1]](hub, found[2], query)
        return None

    def _host_ok(self) -> bool:
        host = (self.headers.get("Host") or "").lower()
        port = self.server.server_address[1]
        return host in (f"{HOST}:{port}", f"localhost:{port}")

    def _send(self, html: str, nonce: str, *, status: int = 200) -> None:
        body = html.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self._security_headers(nonce)
        self.end_headers()
        self.wfile.write(body)

    def _security_headers(self, nonce: str | None) -> None:
        policy = csp(nonce) if nonce else "default-src 'none'"
        self.send_header("Content-Security-Policy", f"{policy}; frame-ancestors 'none'")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")

    def _refuse(self) -> None:
        body = b"405 Method Not Allowed: this viewer is read-only (GET only)\n"
        self.send_response(HTTPStatus.METHOD_NOT_ALLOWED)
        self.send_header("Allow", "GET")
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self._security_headers(None)
        self.end_headers()
        self.close_connection = True
        self.wfile.write(body)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("do_"):  # POST, PUT, DELETE, HEAD, any other method: refused
            return self._refuse
        raise AttributeError(name)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.log:
            super().log_message(format, *args)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:500]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, hub: Any, port: int, *, log: bool):
        self.hub = hub
        self.lock = threading.Lock()
        self.log = log
        super().__init__((HOST, port), _Handler)


class Viewer:
    """The viewer of ``hub`` on ``http://127.0.0.1:port`` (``port=0``: any free port).

    ``serve_forever()`` blocks until ``shutdown()`` (or Ctrl-C in the CLI); ``start()`` serves from
    a background thread (tests, notebooks). ``close()`` stops and releases the port."""

    def __init__(self, hub: Any, port: int = 8765, *, log: bool = False):
        if not 0 <= int(port) <= 65535:
            raise GiskardNBError(f"port {port}: give a number from 0 to 65535 (0: any free port)")
        try:
            self._server = _Server(hub, int(port), log=log)
        except OSError as exc:
            raise GiskardNBError(
                f"cannot listen on {HOST}:{port} ({exc.strerror or exc}): choose another --port "
                "(0 picks a free one)"
            ) from None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self._server.server_address[1]}/"

    def serve_forever(self) -> None:
        self._server.serve_forever(poll_interval=0.2)

    def start(self) -> Viewer:
        self._thread = threading.Thread(
            target=self.serve_forever, daemon=True, name="giskard-nb-view"
        )
        self._thread.start()
        return self

    def shutdown(self) -> None:
        self._server.shutdown()

    def close(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> Viewer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Viewer {self.url}>"
