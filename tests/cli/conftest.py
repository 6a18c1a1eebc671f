"""Fixtures of the command-line tests: a local HTTP agent that echoes the question."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@pytest.fixture
def http_agent() -> Iterator[str]:
    """The URL of an agent answering ``{"messages": [...]}`` with "Hello: <last question>"."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            question = body["messages"][-1]["content"]
            reply = json.dumps({"response": {"role": "assistant", "content": f"Hello: {question}"}})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(reply.encode())

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/chat"
    server.shutdown()
    server.server_close()
