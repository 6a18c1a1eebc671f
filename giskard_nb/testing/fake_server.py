"""``FakeLLMServer``: an OpenAI-compatible HTTP server on 127.0.0.1, scripted from Python, for offline tests.

::

    with FakeLLMServer(reply={"passed": True, "reason": "fine"}) as server:
        set_default_generator(server.generator())
        server.queue(FakeReply.fail(429, retry_after=0.1))   # the next request is rate limited...
        ...                                                 # ...then the default reply again
        assert len(server.chat_requests) == 2

Replies come first from the queue (``replies=[...]`` or ``queue(...)``, one per request, in order), then
from ``reply`` (fixed, or a function of the ``FakeRequest``). With no ``reply`` the server answers a
structured request with a minimal valid instance of the requested schema (booleans true) and anything else
with "fake reply". Embedding requests get ``embed(text)`` vectors (by default a deterministic bag-of-words
hash: texts sharing words are similar). ``delay`` adds latency to every reply. Requests are recorded in
``requests``; ``max_in_flight`` is the highest number of requests served at the same time.

Real litellm calls go through it: ``server.generator()`` is a ``Generator`` for the model ``server.model``
(default ``openai/gpt-4o-mini``, so litellm's price table yields real-looking costs) pointed at
``server.url``. ``stop()`` (or leaving the ``with`` block) closes every connection, so a later call fails
like a provider that is down.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from giskard_nb.testing.replies import (
    FakeReply,
    FakeRequest,
    as_reply,
    chat_payload,
    embedding_payload,
    error_type,
    hashed_embedding,
    schema_stub,
)

__all__ = ["FakeLLMServer"]

_AUTO = object()


class FakeLLMServer:
    """An OpenAI-compatible server (``/v1/chat/completions``, ``/v1/embeddings``) scripted from Python."""

    def __init__(
        self,
        reply: Any = _AUTO,
        *,
        replies: Iterable[Any] = (),
        delay: float = 0.0,
        embed: Callable[[str], list[float]] | None = None,
        model: str = "openai/gpt-4o-mini",
        embedding_model: str = "openai/text-embedding-3-small",
    ):
        self.reply = reply
        self.delay = delay
        self.embed = embed or hashed_embedding
        self.model = model
        self.embedding_model_name = embedding_model
        self._queue: deque[Any] = deque(replies)
        self._requests: list[FakeRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._sockets: set[Any] = set()
        self._in_flight = 0
        self.max_in_flight = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------------

    def start(self) -> FakeLLMServer:
        if self._server is not None:
            return self
        self._stopping.clear()
        server = _Server(("127.0.0.1", 0), _Handler)
        server.fake = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="giskard-nb-fake-llm",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close every open connection (idempotent)."""
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        with self._lock:
            sockets, self._sockets = list(self._sockets), set()
        for sock in sockets:
            _close(sock)
        if self._thread is not None:
            self._thread.join(timeout=5)

    close = stop

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError(
                "the fake server is not running: use it in a `with` block or call start()"
            )
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """The OpenAI-style base URL (``http://127.0.0.1:PORT/v1``) to use as ``api_base``."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting and inspection ----------------------------------------------------------------------

    def queue(self, *replies: Any) -> FakeLLMServer:
        """Serve these replies, one per request, before falling back to ``reply``."""
        with self._lock:
            self._queue.extend(replies)
        return self

    @property
    def requests(self) -> list[FakeRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[FakeRequest]:
        return [r for r in self.requests if r.kind == "chat"]

    @property
    def embedding_requests(self) -> list[FakeRequest]:
        return [r for r in self.requests if r.kind == "embedding"]

    def reset(self) -> None:
        """Forget the recorded requests, the queue and ``max_in_flight``."""
        with self._lock:
            self._requests.clear()
            self._queue.clear()
            self.max_in_flight = 0

    def generator(self, **params: Any) -> Any:
        """A ``giskard_nb.Generator`` for ``self.model`` pointed at this server."""
        from giskard_nb.llm.generator import Generator

        params = {"model": self.model, "api_base": self.url, "api_key": "fake-key", **params}
        return Generator(**params)

    def embedding_model(self, **params: Any) -> Any:
        """A ``giskard_nb.llm.EmbeddingModel`` for ``embedding_model_name`` pointed at this server."""
        from giskard_nb.llm.embeddings import EmbeddingModel

        params = {
            "model": self.embedding_model_name,
            "api_base": self.url,
            "api_key": "fake-key",
            **params,
        }
        return EmbeddingModel(**params)

    def __repr__(self) -> str:
        where = self.url if self.running else "stopped"
        return f"<FakeLLMServer {where} requests={len(self._requests)}>"

    # -- serving (called from handler threads) ---------------------------------------------------------

    def _next_reply(self, request: FakeRequest) -> FakeReply:
        with self._lock:
            scripted = self._queue.popleft() if self._queue else _AUTO
        if scripted is _AUTO:
            scripted = self.reply
        if scripted is _AUTO:
            if request.kind == "embedding":
                return FakeReply()
            schema = request.schema
            return FakeReply(content=json.dumps(schema_stub(schema)) if schema else "fake reply")
        if callable(scripted) and not isinstance(scripted, FakeReply):
            scripted = scripted(request)
        return as_reply(scripted)

    def _enter(self, request: FakeRequest) -> None:
        with self._lock:
            self._requests.append(request)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    fake: FakeLLMServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (timeout, stop) is normal here: stay quiet."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # otherwise delayed ACKs add ~40 ms to every reply
    server: _Server

    def setup(self) -> None:
        super().setup()
        with self.server.fake._lock:
            self.server.fake._sockets.add(self.connection)

    def finish(self) -> None:
        with self.server.fake._lock:
            self.server.fake._sockets.discard(self.connection)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        fake = self.server.fake
        if self.path.rstrip("/").endswith("/models"):
            data = [
                {"id": m.split("/", 1)[-1], "object": "model"}
                for m in (fake.model, fake.embedding_model_name)
            ]
            self._send(200, {"object": "list", "data": data})
        else:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(
                400,
                {"error": {"message": "request body is not JSON", "type": "invalid_request_error"}},
            )
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        if "authorization" in headers:
            headers["authorization"] = "***" + headers["authorization"][-4:]
        request = FakeRequest(
            path=self.path, body=body if isinstance(body, dict) else {}, headers=headers
        )
        if request.kind == "other":
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        fake._enter(request)
        try:
            try:
                reply = fake._next_reply(request)
            except Exception as exc:  # a scripted function raised: answer 500 with the reason
                reply = FakeReply.fail(
                    500, f"the fake server's reply function raised {type(exc).__name__}: {exc}"
                )
            wait = fake.delay + reply.delay
            if wait > 0 and fake._stopping.wait(wait):
                return
            self._answer(request, reply)
        finally:
            fake._leave()

    def _answer(self, request: FakeRequest, reply: FakeReply) -> None:
        if reply.body is not None:
            self._send_bytes(reply.status, reply.body, reply.headers)
        elif reply.error is not None or reply.status >= 400:
            error = {
                "message": reply.error or "error",
                "type": error_type(reply.status),
                "code": reply.status,
            }
            self._send(reply.status, {"error": error}, reply.headers)
        elif request.kind == "embedding":
            self._send(200, embedding_payload(request, self.server.fake.embed), reply.headers)
        else:
            self._send(200, chat_payload(request, reply.content or ""), reply.headers)

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self._send_bytes(status, json.dumps(payload).encode("utf-8"), headers)

    def _send_bytes(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)


def _close(sock: Any) -> None:
    import socket

    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()
