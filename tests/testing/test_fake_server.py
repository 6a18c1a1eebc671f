"""The fake OpenAI-compatible server, spoken to over plain HTTP (no litellm needed)."""

from __future__ import annotations

import http.client
import json
import socket
import threading

import pytest
from pydantic import BaseModel

from giskard_nb.testing import FakeLLMServer, FakeReply, FakeRequest, hashed_embedding, schema_stub


def post(server: FakeLLMServer, path: str, body: dict, timeout: float = 5.0):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        conn.request(
            "POST",
            path,
            json.dumps(body),
            {"Content-Type": "application/json", "Authorization": "Bearer sk-secret-1234"},
        )
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def chat(server: FakeLLMServer, content: str = "hi", **extra) -> tuple[int, dict, bytes]:
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": content}], **extra}
    return post(server, "/v1/chat/completions", body)


def content_of(raw: bytes) -> str:
    return json.loads(raw)["choices"][0]["message"]["content"]


def test_fixed_reply_and_openai_shaped_payload():
    with FakeLLMServer(reply="Bonjour") as server:
        status, _, raw = chat(server, "Say hi in French")
        payload = json.loads(raw)
    assert status == 200 and content_of(raw) == "Bonjour"
    assert (
        payload["object"] == "chat.completion" and payload["choices"][0]["finish_reason"] == "stop"
    )
    usage = payload["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > 0


def test_structured_values_are_sent_as_json_text():
    class Verdict(BaseModel):
        passed: bool

    with FakeLLMServer(reply=Verdict(passed=False)) as server:
        assert json.loads(content_of(chat(server)[2])) == {"passed": False}
        server.reply = {"a": [1, 2]}
        assert json.loads(content_of(chat(server)[2])) == {"a": [1, 2]}


def test_queue_then_function_reply_and_recorded_requests():
    def echo(request: FakeRequest) -> str:
        return f"echo: {request.last_user_message}"

    with FakeLLMServer(reply=echo, replies=["first"]) as server:
        server.queue("second")
        answers = [content_of(chat(server, f"m{i}")[2]) for i in range(4)]
        requests = server.requests
        assert server.chat_requests == requests and server.embedding_requests == []
    assert answers == ["first", "second", "echo: m2", "echo: m3"]
    assert len(requests) == 4 and requests[0].kind == "chat" and requests[0].model == "gpt-4o-mini"
    assert requests[0].prompt == "user: m0"
    assert requests[0].headers["authorization"] == "***1234"  # the secret is not kept


def test_errors_with_retry_after_and_malformed_bodies():
    with FakeLLMServer() as server:
        server.queue(
            FakeReply.fail(429, "slow down", retry_after=2),
            FakeReply.fail(500),
            FakeReply.malformed(),
        )
        status, headers, raw = chat(server)
        assert status == 429 and headers["Retry-After"] == "2"
        assert json.loads(raw)["error"]["message"] == "slow down"
        assert chat(server)[0] == 500
        status, _, raw = chat(server)
        assert status == 200
        with pytest.raises(ValueError):
            json.loads(raw)


def test_a_failing_reply_function_is_a_500_with_the_reason():
    def broken(request):
        raise KeyError("oops")

    with FakeLLMServer(reply=broken) as server:
        status, _, raw = chat(server)
    assert status == 500 and "KeyError" in json.loads(raw)["error"]["message"]


def test_auto_reply_fills_the_requested_schema():
    schema = {
        "type": "object",
        "properties": {
            "reason": {"type": "string"},
            "passed": {"type": "boolean"},
            "score": {"anyOf": [{"type": "number"}, {"type": "null"}]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "level": {"enum": ["low", "high"]},
            "inner": {"$ref": "#/$defs/Inner"},
        },
        "$defs": {"Inner": {"type": "object", "properties": {"n": {"type": "integer"}}}},
    }
    fmt = {"type": "json_schema", "json_schema": {"name": "Verdict", "schema": schema}}
    with FakeLLMServer() as server:
        reply = json.loads(content_of(chat(server, response_format=fmt)[2]))
        assert server.requests[0].schema_name == "Verdict"
        assert content_of(chat(server)[2]) == "fake reply"
    assert reply == {
        "reason": "fake reason",
        "passed": True,
        "score": 1.0,
        "tags": [],
        "level": "low",
        "inner": {"n": 1},
    }
    assert schema_stub({"type": ["null", "string"]}, name="x") == "fake x"


def test_embeddings_default_and_custom():
    with FakeLLMServer() as server:
        status, _, raw = post(
            server, "/v1/embeddings", {"model": "m", "input": ["cat sat", "cat sat", "dog"]}
        )
        data = json.loads(raw)["data"]
        assert status == 200 and [d["index"] for d in data] == [0, 1, 2]
        assert data[0]["embedding"] == data[1]["embedding"] == hashed_embedding("cat sat")
        assert server.embedding_requests[0].inputs == ["cat sat", "cat sat", "dog"]
    with FakeLLMServer(embed=lambda text: [float(len(text)), 0.0]) as server:
        raw = post(server, "/v1/embeddings", {"model": "m", "input": "abc"})[2]
        assert json.loads(raw)["data"][0]["embedding"] == [3.0, 0.0]


def test_slow_replies_time_out_clients():
    with FakeLLMServer(reply=FakeReply.slow(5.0, "late")) as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=0.2)
        conn.request("POST", "/v1/chat/completions", json.dumps({"messages": []}))
        with pytest.raises(socket.timeout):
            conn.getresponse()
        conn.close()


def test_max_in_flight_counts_overlapping_requests():
    with FakeLLMServer(delay=0.2) as server:
        threads = [threading.Thread(target=chat, args=(server,)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert server.max_in_flight >= 2
        server.reset()
        assert server.requests == [] and server.max_in_flight == 0


def test_stop_closes_kept_alive_connections_and_routes():
    server = FakeLLMServer(reply="ok").start()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=2)
    body = json.dumps({"messages": [{"role": "user", "content": "x"}]})
    conn.request("POST", "/v1/chat/completions", body)
    assert conn.getresponse().read()
    conn.request("GET", "/v1/models")
    assert json.loads(conn.getresponse().read())["data"][0]["id"] == "gpt-4o-mini"
    conn.request("POST", "/v1/unknown", body)
    assert conn.getresponse().status == 404
    server.stop()
    assert not server.running
    with pytest.raises((ConnectionError, http.client.HTTPException, OSError)):
        conn.request("POST", "/v1/chat/completions", body)
        conn.getresponse()
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.url
    server.stop()  # idempotent


def test_generator_and_embedding_model_helpers_point_at_the_server():
    with FakeLLMServer(
        model="openai/gpt-4o", embedding_model="openai/text-embedding-3-large"
    ) as server:
        gen = server.generator(temperature=0.1)
        emb = server.embedding_model(batch_size=8)
        assert gen.api_base == server.url == emb.api_base
        assert gen.model == "openai/gpt-4o" and gen.temperature == 0.1
        assert emb.model == "openai/text-embedding-3-large" and emb.batch_size == 8
        assert "fake-key" not in repr(gen) and "running" not in repr(server)
