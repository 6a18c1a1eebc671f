"""Posting spans to an OTLP/HTTP endpoint (protobuf) — only when asked, only to the URL given."""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from giskard_nb import Interaction, ScenarioResult, Trace
from giskard_nb.errors import ConfigError, GiskardNBError, GiskardValidationError
from giskard_nb.otel import export_otlp, traces_from_otlp

RESULT = ScenarioResult(
    scenario_name="case",
    final_trace=Trace(
        interactions=[
            Interaction(
                inputs="hi",
                outputs="hello",
                tool_calls=[{"name": "lookup", "arguments": {"q": "hi"}, "result": "ok"}],
            )
        ]
    ),
)


class _Collector(BaseHTTPRequestHandler):
    received: list[tuple[dict, bytes]] = []
    status = 200

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append((dict(self.headers), body))
        self.send_response(type(self).status)
        self.end_headers()
        self.wfile.write(b"nope" if type(self).status >= 300 else b"")

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def collector():
    _Collector.received, _Collector.status = [], 200
    server = HTTPServer(("127.0.0.1", 0), _Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1/traces"
    server.shutdown()
    server.server_close()


def test_spans_are_posted_as_protobuf_and_decode_to_the_same_trace(collector):
    pytest.importorskip("opentelemetry.proto", reason="needs the otel extra: giskard-nb[otel]")
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    export_otlp([RESULT], endpoint=collector, headers={"Authorization": "Bearer t0ken-123"})
    ((headers, body),) = _Collector.received
    assert headers["Content-Type"] == "application/x-protobuf"
    assert headers["Authorization"] == "Bearer t0ken-123"
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    (trace,) = traces_from_otlp(MessageToDict(request))
    assert trace.annotations["case"] == {"name": "case", "status": str(RESULT.status)}
    assert [(c.name, c.arguments, c.result) for c in trace.tool_calls] == [
        ("lookup", {"q": "hi"}, "ok")
    ]


def test_a_refusing_endpoint_and_a_bad_url_are_clear_errors(collector):
    pytest.importorskip("opentelemetry.proto", reason="needs the otel extra: giskard-nb[otel]")
    _Collector.status = 401
    with pytest.raises(GiskardNBError, match="refused the spans: HTTP 401"):
        export_otlp([RESULT], endpoint=collector)
    with pytest.raises(GiskardValidationError, match="http"):
        export_otlp([RESULT], endpoint="file:///etc/passwd")


def test_without_the_extra_the_error_names_it(monkeypatch, collector):
    monkeypatch.setitem(
        sys.modules, "opentelemetry.proto.collector.trace.v1.trace_service_pb2", None
    )
    with pytest.raises(ConfigError, match=r"giskard-nb\[otel\]"):
        export_otlp([RESULT], endpoint=collector)
    assert _Collector.received == []
