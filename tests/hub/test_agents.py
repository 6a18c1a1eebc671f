"""Remote agents against a local HTTP server (good replies, 5xx, timeouts, malformed JSON, secrets),
and local agents (sync, async, every return shape)."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest

from giskard_nb.errors import AgentError, ConfigError
from giskard_nb.hub import Agent, AgentOutput, Hub, LocalAgent, RemoteAgent

from .conftest import AgentServer

HELLO = [{"role": "user", "content": "What are your opening hours?"}]


def _agent(server: AgentServer, path: str, **kw) -> Agent:
    return Agent(project_id="p", name="bot", url=server.url(path), **kw)


async def _call(agent: Agent, messages=HELLO, backoff: float = 0.01) -> AgentOutput:
    async with RemoteAgent(agent, backoff=backoff) as remote:
        return await remote(messages)


@pytest.mark.parametrize("path", ["/hub", "/openai", "/text", "/message"])
async def test_reply_shapes(agent_server: AgentServer, path: str) -> None:
    out = await _call(_agent(agent_server, path))
    assert out.content == "We are open Monday to Friday, 9am to 6pm."
    assert out.response.role == "assistant"
    sent = agent_server.requests[-1]
    assert sent["body"] == {"messages": HELLO}
    if path == "/hub":
        assert out.metadata == {"n": 1}
    if path == "/openai":
        assert out.metadata["usage"]["total_tokens"] == 8 and out.metadata["model"] == "fake-model"


async def test_the_whole_conversation_is_sent(agent_server: AgentServer) -> None:
    conversation = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Opening hours?"},
        {"role": "assistant", "content": "Monday to Friday."},
        {"role": "user", "content": "Say it again"},
    ]
    out = await _call(_agent(agent_server, "/hub"), conversation)
    assert agent_server.requests[-1]["body"]["messages"] == conversation
    assert out.metadata == {"n": 4} and "turn 4" in out.content


async def test_retries_then_succeeds(agent_server: AgentServer) -> None:
    out = await _call(_agent(agent_server, "/flaky", max_retries=2))
    assert out.content.startswith("We are open")
    assert agent_server.hits["/flaky"] == 2


async def test_server_errors_after_retries(agent_server: AgentServer) -> None:
    with pytest.raises(AgentError, match=r"HTTP 500: internal error.*after 3 attempts"):
        await _call(_agent(agent_server, "/error500", max_retries=2))
    assert agent_server.hits["/error500"] == 3


async def test_client_errors_are_not_retried(agent_server: AgentServer) -> None:
    with pytest.raises(AgentError, match="HTTP 400"):
        await _call(_agent(agent_server, "/bad-request", max_retries=3))
    assert agent_server.hits["/bad-request"] == 1


async def test_timeout(agent_server: AgentServer) -> None:
    with pytest.raises(AgentError, match="did not answer within 0.2 s"):
        await _call(_agent(agent_server, "/slow", timeout=0.2, max_retries=0))


async def test_malformed_json_and_unknown_shapes(agent_server: AgentServer) -> None:
    with pytest.raises(AgentError, match="malformed JSON"):
        await _call(_agent(agent_server, "/malformed", max_retries=0))
    with pytest.raises(AgentError, match="unsupported shape"):
        await _call(_agent(agent_server, "/weird", max_retries=0))


async def test_unreachable_agent() -> None:
    agent = Agent(project_id="p", name="down", url="http://127.0.0.1:9/chat", max_retries=0)
    with pytest.raises(AgentError, match="cannot reach agent 'down'"):
        await _call(agent)


async def test_headers_are_sent_but_never_shown(agent_server: AgentServer, monkeypatch) -> None:
    agent = _agent(agent_server, "/auth", headers={"Authorization": "Bearer s3cret-token"})
    out = await _call(agent)
    assert out.content.startswith("We are open")
    assert agent_server.requests[-1]["headers"]["Authorization"] == "Bearer s3cret-token"
    # a wrong token: the error names the status, never the header value
    wrong = _agent(agent_server, "/auth", headers={"Authorization": "Bearer wrong-value"})
    with pytest.raises(AgentError) as info:
        await _call(wrong)
    assert "401" in str(info.value) and "wrong-value" not in str(info.value)
    # environment references are resolved at call time only
    monkeypatch.setenv("BOT_TOKEN", "s3cret-token")
    by_env = _agent(agent_server, "/auth", headers={"Authorization": "Bearer ${BOT_TOKEN}"})
    assert (await _call(by_env)).content.startswith("We are open")
    monkeypatch.delenv("BOT_TOKEN")
    with pytest.raises(ConfigError, match="BOT_TOKEN"):
        await _call(by_env)


def test_registered_agent_call_and_test_connection(mem_hub: Hub, agent_server: AgentServer) -> None:
    project = mem_hub.projects.create("p")
    agent = mem_hub.agents.create(
        project.id,
        name="bot",
        url=agent_server.url("/auth"),
        headers={"Authorization": "Bearer s3cret-token"},
    )
    assert mem_hub.agents.call(agent.id, HELLO).content.startswith("We are open")
    report = mem_hub.agents.test_connection(agent.id)
    assert report.ok and report.reply and report.latency_ms >= 0
    failing = mem_hub.agents.test_connection(url=agent_server.url("/error500"))
    assert not failing.ok and "HTTP 500" in failing.error and "FAILED" in repr(failing)
    assert "s3cret" not in repr(report)


async def test_local_agents_sync_and_async() -> None:
    def sync_agent(messages):
        return f"sync saw {len(messages)}"

    async def async_agent(messages):
        await asyncio.sleep(0)
        return {"role": "assistant", "content": "async", "metadata": {"k": 1}}

    class CallableAgent:
        async def __call__(self, messages):
            return {"response": {"role": "assistant", "content": "obj"}, "metadata": {"tool": "x"}}

    assert (await LocalAgent(sync_agent)(HELLO)).content == "sync saw 1"
    out = await LocalAgent(async_agent)(HELLO)
    assert out.content == "async" and out.metadata == {"k": 1}
    assert (await LocalAgent(CallableAgent())(HELLO)).metadata == {"tool": "x"}
    shaped = SimpleNamespace(
        response=SimpleNamespace(role="assistant", content="attr"), metadata={"a": 1}
    )
    shaped.response = {"role": "assistant", "content": "attr"}
    assert (await LocalAgent(lambda m: shaped)(HELLO)).content == "attr"
    assert (
        await LocalAgent(lambda m: AgentOutput(response={"role": "assistant", "content": "o"}))(
            HELLO
        )
    ).content == "o"
    with pytest.raises(AgentError, match="returned int"):
        await LocalAgent(lambda m: 42)(HELLO)
    received = []
    await LocalAgent(lambda m: received.append(m) or "ok")(HELLO)
    assert received == [HELLO] and received[0] is not HELLO  # the agent gets a copy


def test_agent_dumps_are_json_safe() -> None:
    agent = Agent(project_id="p", name="b", url="http://x", headers={"X-Key": "abc123456"})
    assert json.loads(agent.model_dump_json())["headers"] == {"X-Key": "***"}
    assert agent.model_dump(context={"reveal_secrets": True})["headers"] == {"X-Key": "abc123456"}


async def test_the_timeout_is_a_deadline_for_the_whole_reply() -> None:
    from giskard_nb.testing.trickle import TrickleServer

    with TrickleServer(
        interval=0.1, size=100
    ) as server:  # every read gets a byte well within 0.5 s
        agent = Agent(project_id="p", name="bot", url=server.url, timeout=0.5, max_retries=1)
        with pytest.raises(AgentError, match=r"did not answer within 0.5 s.*after 2 attempts"):
            await _call(agent)
        assert server.requests == 2 and server.bytes_sent < server.size


async def test_a_sync_local_agent_runs_on_a_worker_thread() -> None:
    import threading

    loop_thread = threading.current_thread()

    def agent(messages):
        return threading.current_thread().name

    out = await LocalAgent(agent)(HELLO)
    assert out.content.startswith("giskard-nb-worker") and out.content != loop_thread.name
