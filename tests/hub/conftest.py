"""Hub test fixtures: a Hub on every backend (SQLite in memory, SQLite file, PostgreSQL when
``GISKARD_NB_TEST_PG_URL`` is set, e.g. by ``eval "$(bash .ci/postgres.sh)"``), and a local HTTP agent."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from giskard_nb.hub import Hub

PG_URL = os.environ.get("GISKARD_NB_TEST_PG_URL")
PG_SKIP_REASON = (
    "PostgreSQL Hub tests skipped: GISKARD_NB_TEST_PG_URL is not set "
    '(run `eval "$(bash .ci/postgres.sh)"` first to start a throwaway server)'
)
BACKENDS = [
    "sqlite-memory",
    "sqlite-file",
    pytest.param("postgresql", marks=pytest.mark.skipif(not PG_URL, reason=PG_SKIP_REASON)),
]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if PG_URL:
        line = f"hub: tests also ran against PostgreSQL ({PG_URL.rsplit('@', 1)[-1]})"
    else:
        line = "hub: " + PG_SKIP_REASON
    terminalreporter.write_line(line)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def hub_url(backend: str, tmp_path: Any) -> Iterator[str]:
    """A database URL for the backend, cleaned up after the test."""
    if backend == "sqlite-memory":
        yield ":memory:"
    elif backend == "sqlite-file":
        yield str(tmp_path / "hub.db")
    else:
        assert PG_URL
        _drop(PG_URL)
        yield PG_URL
        _drop(PG_URL)


def _drop(url: str) -> None:
    hub = Hub(url)
    hub._db.drop_all()
    hub.close()


@pytest.fixture
def hub(hub_url: str) -> Iterator[Hub]:
    """A fresh Hub on each backend."""
    h = Hub(hub_url, actor="tester")
    yield h
    h.close()


@pytest.fixture
def mem_hub() -> Iterator[Hub]:
    """A fresh in-memory Hub (for tests where the backend does not matter)."""
    h = Hub(":memory:", actor="tester")
    yield h
    h.close()


def rule_case(question: str, keyword: str, **extra: Any) -> dict[str, Any]:
    """A test case item with one string_match check."""
    return {
        "messages": [{"role": "user", "content": question}],
        "checks": [{"identifier": "string_match", "params": {"keyword": keyword}}],
        **extra,
    }


@pytest.fixture
def setup(mem_hub: Hub) -> Callable[..., tuple[Any, Any]]:
    """``setup(hub=None, items=None)`` -> (project, dataset) with a few rule test cases."""

    def make(hub: Hub | None = None, items: list[dict[str, Any]] | None = None):
        h = hub or mem_hub
        project = h.projects.create("support")
        dataset = h.datasets.upload(
            project.id,
            items
            or [
                rule_case("What are your opening hours?", "Monday"),
                rule_case("Can I get a refund?", "30 days"),
                rule_case("Do you ship abroad?", "worldwide"),
            ],
            name="faq",
        )
        return project, dataset

    return make


# -- a local HTTP agent ---------------------------------------------------------------------------------


class AgentServer:
    """A threaded HTTP server on 127.0.0.1 whose paths answer in the shapes the Hub must handle."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.hits: dict[str, int] = {}
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    server.requests.append(
                        {"path": self.path, "body": body, "headers": dict(self.headers)}
                    )
                    server.hits[self.path] = server.hits.get(self.path, 0) + 1
                    hits = server.hits[self.path]
                status, ctype, payload = server.route(self.path, body, dict(self.headers), hits)
                data = payload.encode() if isinstance(payload, str) else payload
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, path: str) -> str:
        return self.base + path

    def route(self, path: str, body: dict, headers: dict, hits: int) -> tuple[int, str, str]:
        messages = body.get("messages", [])
        last = messages[-1]["content"] if messages else ""
        answer = reply_for(last, len(messages))
        js = "application/json"
        if path.startswith("/hub"):
            payload = {
                "response": {"role": "assistant", "content": answer},
                "metadata": {"n": len(messages)},
            }
            return 200, js, json.dumps(payload)
        if path == "/openai":
            payload = {
                "id": "chatcmpl-1",
                "model": "fake-model",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": answer},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
            }
            return 200, js, json.dumps(payload)
        if path == "/text":
            return 200, "text/plain", answer
        if path == "/message":
            return 200, js, json.dumps({"role": "assistant", "content": answer})
        if path == "/flaky":
            if hits <= 1:
                return 503, "text/plain", "busy, try again"
            return 200, js, json.dumps({"response": {"role": "assistant", "content": answer}})
        if path == "/error500":
            return 500, "text/plain", "internal error: database down"
        if path == "/bad-request":
            return 400, js, json.dumps({"detail": "bad request"})
        if path == "/slow":
            time.sleep(1.5)
            return 200, js, json.dumps({"response": {"role": "assistant", "content": answer}})
        if path == "/malformed":
            return 200, js, '{"response": {"role": "assistant", "content": "oops"'
        if path == "/weird":
            return 200, js, json.dumps({"foo": [1, 2, 3]})
        if path == "/auth":
            if headers.get("Authorization") != "Bearer s3cret-token":
                return 401, js, json.dumps({"detail": "unauthorized"})
            return 200, js, json.dumps({"response": {"role": "assistant", "content": answer}})
        return 404, "text/plain", "no such path"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def reply_for(question: str, n_messages: int = 1) -> str:
    """The deterministic support agent used by the tests (local and remote)."""
    text = question.lower()
    if "hours" in text:
        return "We are open Monday to Friday, 9am to 6pm."
    if "refund" in text:
        return "Refunds are possible within 30 days."
    if "ship" in text:
        return "I'm sorry, but I can't help with shipping questions."
    if "again" in text:
        return f"As I said (turn {n_messages}), we are open Monday to Friday."
    return "I do not know."


@pytest.fixture(scope="session")
def _agent_server() -> Iterator[AgentServer]:
    server = AgentServer()
    yield server
    server.close()


@pytest.fixture
def agent_server(_agent_server: AgentServer) -> AgentServer:
    """The local HTTP agent, with its request log cleared."""
    with _agent_server.lock:
        _agent_server.requests.clear()
        _agent_server.hits.clear()
    return _agent_server


async def interrupt_when_stored(hub: Hub, task: asyncio.Task, count: int) -> str:
    """Cancel ``task`` (a local evaluation, as a kernel interrupt would) once ``count`` of its results
    are stored, or after about five seconds; wait for the cancellation and return the evaluation id."""
    evaluation_id = None
    for _ in range(500):
        await asyncio.sleep(0.01)
        listed = hub.evaluations.list()
        if listed:
            evaluation_id = listed[0].id
            if len(hub.evaluations.results.list(evaluation_id)) == count:
                break
    assert evaluation_id is not None
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return evaluation_id
