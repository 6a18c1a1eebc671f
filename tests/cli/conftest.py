"""Fixtures of the command-line tests: a local HTTP agent that echoes the question, and a folder with
an importable agent module and a two-case dataset file."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

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


_BOTS = """
import os

def answer(messages):
    if os.environ.get("AGENT_DOWN"):
        raise RuntimeError("the agent was called while AGENT_DOWN was set")
    return "We are open on Monday."
"""


@pytest.fixture
def bots_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], Path]:
    """``bots_folder(module)``: the current folder, holding ``<module>.py`` (``answer``: says "Monday";
    raises when ``AGENT_DOWN`` is set, so a test shows the agent is not called) and ``cases.jsonl``
    (one case it passes, one it fails)."""

    def make(module: str) -> Path:
        (tmp_path / f"{module}.py").write_text(_BOTS, encoding="utf-8")
        monkeypatch.syspath_prepend(str(tmp_path))
        monkeypatch.chdir(tmp_path)
        cases = [
            {"question": "Open?", "must_contain": "Monday"},
            {"question": "Hi", "must_contain": "x"},
        ]
        (tmp_path / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in cases), "utf-8")
        return tmp_path

    return make
