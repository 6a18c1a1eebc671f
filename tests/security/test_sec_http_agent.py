"""A remote agent is untrusted: its reply is capped (on the wire and decompressed), its redirects are
followed only to the same origin, and a hostile reply is a clear ``AgentError``, never retried, never a
raw httpx exception (security items 3, 5, 13)."""

from __future__ import annotations

import gzip
import tracemalloc
from collections.abc import Iterator

import pytest

from giskard_nb.errors import AgentError
from giskard_nb.hub import Agent, Hub, RemoteAgent
from giskard_nb.hub.agents import test_connection

from .sec_http_server import (
    HostileServer,
    deflate,
    endless,
    gzip_bomb,
    hub_reply,
    reply,
)

HELLO = [{"role": "user", "content": "Hello"}]
KEY = "sk-live-9f8e7d6c5b4a"


@pytest.fixture
def server() -> Iterator[HostileServer]:
    s = HostileServer()
    yield s
    s.close()


def _agent(url: str, **kw) -> Agent:
    return Agent(project_id="p", name="bot", url=url, **kw)


async def _call(agent: Agent):
    async with RemoteAgent(agent, backoff=0.01) as remote:
        return await remote(HELLO)


# -- item 3: the reply's size ----------------------------------------------------------------------


async def test_a_gzip_bomb_is_refused_without_inflating_it(server: HostileServer) -> None:
    bomb = gzip_bomb(20_000_000)  # ~20 KB on the wire, 20 MB inflated
    server.routes["/bomb"] = lambda h, r: reply(h, 200, bomb, headers={"Content-Encoding": "gzip"})
    agent = _agent(server.url("/bomb"), max_retries=2, max_reply_bytes=1_000_000)
    tracemalloc.start()
    try:
        with pytest.raises(AgentError) as info:
            await _call(agent)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert "exceeded 1 MB" in message and "max_reply_bytes=" in message
    assert server.hits["/bomb"] == 1  # not retried
    assert peak < 8_000_000  # the 20 MB were never inflated (before: 994 MB for a 300 KB bomb)


async def test_a_stacked_gzip_bomb_is_refused(server: HostileServer) -> None:
    bomb = gzip.compress(gzip_bomb(20_000_000))
    server.routes["/bomb2"] = lambda h, r: reply(
        h, 200, bomb, headers={"Content-Encoding": "gzip, gzip"}
    )
    with pytest.raises(AgentError, match="exceeded 1 MB"):
        await _call(_agent(server.url("/bomb2"), max_reply_bytes=1_000_000))


async def test_a_huge_declared_body_is_refused_before_reading(server: HostileServer) -> None:
    server.routes["/gib"] = endless(server, "/gib", declared=1 << 30)
    with pytest.raises(AgentError, match=r"exceeded 1 MB \(1,000,000 bytes") as info:
        await _call(_agent(server.url("/gib"), max_retries=2, max_reply_bytes=1_000_000))
    assert "raise max_reply_bytes=" in str(info.value)
    assert server.hits["/gib"] == 1


async def test_an_endless_chunked_reply_stops_at_the_cap(server: HostileServer) -> None:
    server.routes["/endless"] = endless(server, "/endless")
    tracemalloc.start()
    try:
        with pytest.raises(AgentError, match="exceeded 2 MB"):
            await _call(_agent(server.url("/endless"), max_retries=3, max_reply_bytes=2_000_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert server.hits["/endless"] == 1
    assert peak < 12_000_000


async def test_an_endless_trickle_is_bounded_by_the_timeout(server: HostileServer) -> None:
    server.routes["/trickle"] = endless(server, "/trickle", chunk=b"x", pause=0.02)
    agent = _agent(server.url("/trickle"), max_retries=0, timeout=0.3)
    with pytest.raises(AgentError, match=r"did not answer within 0\.3 s"):
        await _call(agent)


async def test_the_cap_is_configurable_and_honest_replies_pass(server: HostileServer) -> None:
    text = "a" * 600_000
    body = hub_reply(text)
    server.routes["/big"] = lambda h, r: reply(h, 200, body)
    server.routes["/gz"] = lambda h, r: reply(
        h, 200, gzip.compress(body), headers={"Content-Encoding": "gzip"}
    )
    server.routes["/deflate"] = lambda h, r: reply(
        h, 200, deflate(body), headers={"Content-Encoding": "deflate"}
    )
    with pytest.raises(AgentError, match="exceeded 0.5 MB"):
        await _call(_agent(server.url("/big"), max_reply_bytes=500_000))
    for path in ("/big", "/gz", "/deflate"):
        out = await _call(_agent(server.url(path), max_reply_bytes=1_000_000))
        assert out.content == text
    assert _agent(server.url("/big")).max_reply_bytes == 10_000_000  # the default: 10 MB

    hub = Hub(":memory:")
    try:
        project = hub.projects.create(name="p")
        stored = hub.agents.create(
            project.id, name="big", url=server.url("/big"), max_reply_bytes=1_000_000
        )
        assert hub.agents.retrieve(stored.id).max_reply_bytes == 1_000_000
        assert hub.agents.call(stored.id, HELLO).content == text
        hub.agents.update(stored.id, max_reply_bytes=500_000)
        with pytest.raises(AgentError, match="exceeded 0.5 MB"):
            hub.agents.call(stored.id, HELLO)
    finally:
        hub.close()


async def test_an_unsupported_content_encoding_is_a_clear_error(server: HostileServer) -> None:
    server.routes["/br"] = lambda h, r: reply(
        h, 200, b"\x1b\x00", headers={"Content-Encoding": "br"}
    )
    with pytest.raises(AgentError, match="Content-Encoding 'br'"):
        await _call(_agent(server.url("/br")))


# -- item 5: redirects never carry the headers elsewhere ------------------------------------------


async def test_a_cross_origin_redirect_never_receives_the_headers(server: HostileServer) -> None:
    other = HostileServer()  # another port: another origin
    try:
        other.routes["/steal"] = lambda h, r: reply(h, 200, hub_reply("stolen"))
        target = other.url("/steal")
        server.routes["/go"] = lambda h, r: reply(h, 307, b"", headers={"Location": target})
        agent = _agent(server.url("/go"), headers={"X-Api-Key": KEY}, max_retries=2)
        with pytest.raises(AgentError, match="redirected to another origin") as info:
            await _call(agent)
        assert other.requests == []  # the key never left for the other host
        assert server.hits["/go"] == 1  # not retried
        assert KEY not in str(info.value)
    finally:
        other.close()


async def test_a_same_origin_redirect_is_followed(server: HostileServer) -> None:
    server.routes["/old"] = lambda h, r: reply(h, 308, b"", headers={"Location": "/new"})
    server.routes["/new"] = lambda h, r: reply(h, 200, hub_reply("moved here"))
    out = await _call(_agent(server.url("/old"), headers={"X-Api-Key": KEY}))
    assert out.content == "moved here"
    new = next(r for r in server.requests if r["path"] == "/new")
    assert new["method"] == "POST" and '"messages"' in new["body"]
    assert new["headers"]["X-Api-Key"] == KEY


# -- item 13: redirect loops and non-http redirects ------------------------------------------------


async def test_a_redirect_loop_is_a_clear_error(server: HostileServer) -> None:
    server.routes["/loop"] = lambda h, r: reply(h, 307, b"", headers={"Location": "/loop"})
    agent = _agent(server.url("/loop"), max_retries=2)
    with pytest.raises(AgentError, match="redirect loop"):
        await _call(agent)
    assert server.hits["/loop"] == 6  # the first request and 5 redirects, once

    report = await test_connection(agent)  # documented never to raise
    assert not report.ok and "redirect loop" in report.error


def test_a_playground_chat_reports_a_redirect_loop(server: HostileServer) -> None:
    server.routes["/loop"] = lambda h, r: reply(h, 302, b"", headers={"Location": "/loop"})
    hub = Hub(":memory:")
    try:
        project = hub.projects.create(name="p")
        agent = hub.agents.create(project.id, name="loop", url=server.url("/loop"))
        chat = hub.playground_chats.create(project.id, agent_id=agent.id)
        with pytest.raises(AgentError, match="redirect loop"):
            hub.playground_chats.send(chat.id, "hello?")
        assert hub.playground_chats.retrieve(chat.id).messages == []  # nothing half-stored
        assert not hub.agents.test_connection(agent.id).ok
    finally:
        hub.close()


@pytest.mark.parametrize("location", ["file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://x/"])
async def test_a_redirect_to_another_scheme_fails_at_once(
    server: HostileServer, location: str
) -> None:
    server.routes["/file"] = lambda h, r: reply(h, 307, b"", headers={"Location": location})
    with pytest.raises(AgentError, match="not an http\\(s\\) URL"):
        await _call(_agent(server.url("/file"), max_retries=3))
    assert server.hits["/file"] == 1  # before: retried 3 times


def test_eight_concurrent_cases_against_an_endless_reply_are_error_results(
    server: HostileServer,
) -> None:
    server.routes["/endless"] = endless(server, "/endless")
    hub = Hub(":memory:")
    try:
        project = hub.projects.create(name="p")
        items = [
            {
                "messages": [{"role": "user", "content": f"question {i}"}],
                "checks": [{"identifier": "string_match", "params": {"keyword": "x"}}],
            }
            for i in range(8)
        ]
        dataset = hub.datasets.upload(project.id, items, name="eight")
        agent = hub.agents.create(
            project.id, name="endless", url=server.url("/endless"), max_reply_bytes=1_000_000
        )
        evaluation = hub.evaluations.create(project.id, agent.id, dataset.id, progress=False)
        assert evaluation.status == "finished" and evaluation.counts["error"] == 8
        for result in evaluation.results():
            assert "the agent's reply exceeded 1 MB" in result.error
        assert server.hits["/endless"] == 8  # one request per case: never retried
        assert sum(server.sent.values()) < 8 * 16_000_000  # each stopped soon after its cap
    finally:
        hub.close()
