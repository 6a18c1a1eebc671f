"""Calling agents: remote ones over HTTP (httpx, async) and local Python functions.

A remote agent receives ``POST <url>`` with ``{"messages": [{"role", "content"}, ...]}`` and may answer:

- ``{"response": {"role": "assistant", "content": "..."}, "metadata": {...}}`` (the Hub's shape;
  ``"message"`` is accepted for ``"response"``, and ``"response"`` may be a plain string);
- an OpenAI chat completion (``{"choices": [{"message": {...}}], "usage": {...}}``): the content is the
  reply, and model, usage, finish reason and tool calls go to the metadata;
- ``{"role", "content"}``, a JSON string, or plain text.

``Agent.timeout`` is a deadline for each attempt as a whole (connecting, sending and reading the entire
reply), not a per-read timeout: a server trickling bytes fails at the deadline. Connection errors,
timeouts, 408, 429 and 5xx are retried (``Agent.max_retries``, exponential backoff,
``Retry-After`` honoured up to 10 s); other 4xx, malformed JSON and unknown shapes raise ``AgentError``
at once. Header values are never shown: they are masked in every message, and a reply echoing one (or a
query-string credential) comes back with it replaced by ``[secret:<name>]``.

The exchange itself (``giskard_nb.hub.http_reply``) is bounded: a reply over ``Agent.max_reply_bytes``
(on the wire or decompressed) is an ``AgentError`` at once, never retried; redirects are followed only to
the same origin, and a redirect elsewhere, to a non-http(s) URL or in a loop is an ``AgentError`` at once.

A local agent is a function (sync or async) taking the list of ``{role, content}`` dicts (or, when its
first parameter is annotated ``str`` or named like text, the last user message: the one agent
convention, ``giskard_nb.core.agent_call``) and returning a string, a ``{role, content}`` dict,
``{"response": ..., "metadata": ...}`` or an object with ``response`` and ``metadata`` attributes. Sync
functions run on the core worker pool (``giskard_nb.core.workers``): slow ones run concurrently, and a
timeout abandons a hung one at once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from giskard_nb.core.agent_call import timed_call_agent
from giskard_nb.core.agent_convention import agent_input
from giskard_nb.core.inject import Injector, injector
from giskard_nb.core.reply import (
    AgentOutput,
    ChatMessage,
    reply_text,
    to_agent_output,
    with_content,
)
from giskard_nb.core.sanitize import valid_unicode
from giskard_nb.errors import AgentError, ConfigError, GiskardValidationError
from giskard_nb.hub.http_reply import exchange
from giskard_nb.hub.models.agent import Agent
from giskard_nb.hub.secrets import mask_text, mask_url, resolve_refs
from giskard_nb.secrets import quiet_http_logs, redact_secrets

__all__ = [
    "ConnectionReport",
    "LocalAgent",
    "RemoteAgent",
    "parse_payload",
    "parse_reply",
    "test_connection",
]

_RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
_SNIPPET = 300


def _messages(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """The conversation an agent receives: ``{role, content}`` dicts, with an assistant message's
    ``tool_calls`` and a tool message's ``tool_call_id`` (OpenAI format) when they have some."""
    out = []
    for m in messages:
        if isinstance(m, ChatMessage):
            out.append(m.model_dump())  # role, content, and the tool fields that are set
        elif isinstance(m, dict) and "role" in m and "content" in m:
            m = with_content(m)
            message = {"role": str(m["role"]), "content": valid_unicode(str(m["content"]))}
            if m.get("tool_calls") or m.get("tool_call_id") is not None:
                message = ChatMessage.model_validate({**message, **_tool_fields(m)}).model_dump()
            out.append(message)
        else:
            raise GiskardValidationError(
                f"a message is a {{'role', 'content'}} dict or a ChatMessage, got {m!r:.100}"
            )
    return out


def _tool_fields(message: dict[str, Any]) -> dict[str, Any]:
    keep = {k: message[k] for k in ("tool_calls", "tool_call_id") if message.get(k) is not None}
    if "tool_call_id" in keep:
        keep["tool_call_id"] = str(keep["tool_call_id"])
    return keep


@agent_input("messages")
class RemoteAgent:
    """An async callable sending a conversation to a registered agent. Use as an async context manager
    (it owns an ``httpx.AsyncClient``) or pass a shared ``client``."""

    def __init__(self, agent: Agent, *, client: Any = None, backoff: float = 0.25):
        self.agent = agent
        self.backoff = backoff
        self._client = client
        self._owns_client = client is None

    async def __aenter__(self) -> RemoteAgent:
        if self._client is None:
            import httpx

            self._client = httpx.AsyncClient(follow_redirects=False)
        return self

    async def __aexit__(self, *exc: Any) -> None:
        if self._owns_client and self._client is not None:
            await self._client.aclose()
            self._client = None

    @property
    def name(self) -> str:
        return self.agent.name

    async def __call__(self, messages: Sequence[Any]) -> AgentOutput:
        import httpx

        if self._client is None:
            async with self:
                return await self(messages)
        agent = self.agent
        secrets = agent.secret_headers()
        headers = {
            k: resolve_refs(v, what=f"header {k!r} of agent {agent.name!r}")
            for k, v in secrets.items()
        }
        url = agent.call_url()
        named = agent.named_secrets()
        known = [v for values in named.values() for v in values]  # masked in errors
        payload = {"messages": _messages(messages)}
        where = mask_url(agent.url)
        who = f"agent {agent.name!r} at {where}"
        last: AgentError | None = None
        for attempt in range(agent.max_retries + 1):
            delay = self.backoff * 2**attempt
            try:
                # ``timeout`` is a deadline for the whole request (connect, send, every read, the
                # redirects): httpx's own timeout is per operation, so a trickle would never trip it.
                async with asyncio.timeout(agent.timeout):
                    with quiet_http_logs():  # httpx logs request URLs at INFO
                        response = await exchange(
                            self._client,
                            url,
                            payload=payload,
                            headers=headers,
                            timeout=agent.timeout,
                            limit=agent.max_reply_bytes,
                            who=who,
                        )
            except (TimeoutError, httpx.TimeoutException):
                last = AgentError(
                    f"agent {agent.name!r} at {where} did not answer within {agent.timeout} s "
                    "(the timeout bounds the whole request: connecting, sending and reading the "
                    "entire reply)"
                )
            except httpx.TransportError as exc:
                text = mask_text(f"{type(exc).__name__}: {exc}", known)
                last = AgentError(f"cannot reach agent {agent.name!r} at {where}: {text}")
            except (httpx.HTTPError, httpx.InvalidURL) as exc:  # not worth a retry
                text = mask_text(f"{type(exc).__name__}: {exc}", known)
                raise AgentError(f"{who}: the request failed: {text}") from None
            except AgentError as exc:  # too large, a redirect elsewhere: not retried
                raise AgentError(mask_text(str(exc), known)) from None
            else:
                code = response.status_code
                if code < 400:
                    try:
                        out = parse_reply(response, agent_name=agent.name)
                    except AgentError as exc:  # its message quotes the reply: mask echoed secrets
                        raise AgentError(mask_text(str(exc), known)) from None
                    return _redacted(out, named)
                body = mask_text(response.text[:_SNIPPET], known)
                last = AgentError(f"agent {agent.name!r} at {where} answered HTTP {code}: {body}")
                if code not in _RETRY_STATUSES:
                    raise last
                delay = max(delay, _retry_after(response))
            if attempt < agent.max_retries:
                await asyncio.sleep(min(delay, 10.0))
        assert last is not None
        if agent.max_retries:
            raise AgentError(f"{last} (after {agent.max_retries + 1} attempts)")
        raise last


def _redacted(out: AgentOutput, named: dict[str, list[str]]) -> AgentOutput:
    """The reply with every configured header or query-string secret it echoes shown as
    ``[secret:<name>]`` (it is stored, exported and shown: it must not carry the agent's keys)."""
    dump = out.model_dump(mode="json")
    masked = redact_secrets(dump, named)
    return out if masked == dump else AgentOutput.model_validate(masked)


def _retry_after(response: Any) -> float:
    try:
        return min(float(response.headers.get("retry-after", 0)), 10.0)
    except ValueError:
        return 0.0


def parse_reply(response: Any, *, agent_name: str = "agent") -> AgentOutput:
    """The ``AgentOutput`` in an HTTP response (JSON in one of the accepted shapes, or plain text)."""
    ctype = response.headers.get("content-type", "").lower()
    text = response.text
    stripped = text.lstrip()
    if "json" in ctype or stripped.startswith(("{", "[", '"')):
        try:
            data = response.json()
        except RecursionError:
            raise AgentError(
                f"agent {agent_name!r} replied with JSON nested too deeply to read"
            ) from None
        except ValueError as exc:
            if "json" in ctype:
                raise AgentError(
                    f"agent {agent_name!r} replied with malformed JSON ({exc}): {text[:_SNIPPET]!r}"
                ) from None
        else:
            return parse_payload(data, agent_name=agent_name)
    if not stripped:
        raise AgentError(f"agent {agent_name!r} sent an empty reply")
    return AgentOutput(response=ChatMessage(role="assistant", content=text))


def parse_payload(data: Any, *, agent_name: str = "agent") -> AgentOutput:
    """The ``AgentOutput`` in a decoded JSON reply: an OpenAI chat completion, an ``{"error": ...}``
    report, or any shape the core's normaliser reads (``giskard_nb.core.reply.to_agent_output``)."""
    if isinstance(data, dict):
        if "choices" in data:
            return _openai(data, agent_name)
        if data.get("error") and not any(k in data for k in ("response", "message", "content")):
            raise AgentError(f"agent {agent_name!r} reported an error: {data['error']!r:.300}")
    if isinstance(data, str | dict):
        try:
            return to_agent_output(data, agent_name=f"agent {agent_name!r}")
        except AgentError:
            pass
    raise AgentError(
        f"agent {agent_name!r} replied with an unsupported shape: {str(data)[:_SNIPPET]!r}. Expected "
        '{"response": {"role": "assistant", "content": "..."}, "metadata": {...}}, an OpenAI chat '
        "completion, a {role, content} message, or plain text."
    )


def _openai(data: dict[str, Any], agent_name: str) -> AgentOutput:
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise AgentError(f"agent {agent_name!r} sent a chat completion without choices")
    choice = choices[0]
    message = choice.get("message") or {}
    if not isinstance(message, dict) or (
        message.get("content") is None and not message.get("tool_calls")
    ):
        raise AgentError(f"agent {agent_name!r} sent a chat completion without content")
    metadata = {
        k: v
        for k, v in {
            "model": data.get("model"),
            "usage": data.get("usage"),
            "finish_reason": choice.get("finish_reason"),
        }.items()
        if v is not None
    }
    message = {"content": message.get("content"), "tool_calls": message.get("tool_calls")}
    return to_agent_output(
        {"response": message, "metadata": metadata}, agent_name=f"agent {agent_name!r}"
    )


@agent_input("messages")
class LocalAgent:
    """An async callable wrapping a Python function used as an agent. The function receives the
    conversation, or its last user message when its first parameter is annotated ``str`` or named
    like text (the agent convention, ``giskard_nb.core.agent_call``)."""

    def __init__(self, fn: Callable[..., Any], *, name: str | None = None):
        if not callable(fn):
            raise GiskardValidationError(
                "a local agent is a function taking the conversation (a list of {role, content} "
                f"messages) or, with a `str` first parameter, the last user message; got "
                f"{type(fn).__name__}"
            )
        self.fn = fn
        self.name = name or getattr(fn, "__name__", None) or type(fn).__name__
        self._plan: Injector | None = None  # how to call fn, read from its signature once

    async def __call__(self, messages: Sequence[Any]) -> AgentOutput:
        out = await self.reply(_messages(messages))
        return out if isinstance(out, AgentOutput) else to_agent_output(out)

    async def reply(self, conversation: list[dict[str, Any]]) -> AgentOutput | str:
        """The function's reply to a conversation already in the shape agents receive (plain
        ``{role, content}`` dicts of valid text, such as a stored test case's ``conversation``;
        ``__call__`` makes that shape from any messages): a string reply as the text an
        ``AgentOutput`` would hold (``core.reply.reply_text``: no model built for the commonest
        reply), any other as an ``AgentOutput``."""
        if self._plan is None:  # a signature that does not fit raises at each call, as before
            self._plan = injector(self.fn, ("inputs",))
        out = (await timed_call_agent(self.fn, conversation, {}, self._plan))[0]
        if type(out) is str:
            return reply_text(out)
        return to_agent_output(out, agent_name=f"local agent {self.name!r}")


class ConnectionReport(BaseModel):
    """What ``test_connection`` found: ``ok``, the latency, the reply or the error."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    url: str
    latency_ms: float
    reply: str | None = None
    error: str | None = None

    def __repr__(self) -> str:
        if self.ok:
            return f"<ConnectionReport OK {self.url} {self.latency_ms:.0f} ms: {self.reply!r:.60}>"
        return f"<ConnectionReport FAILED {self.url}: {self.error}>"


async def test_connection(agent: Agent) -> ConnectionReport:
    """Send one short user message to ``agent``; never raises for a failing agent."""
    start = time.perf_counter()
    try:
        async with RemoteAgent(agent) as remote:
            out = await remote([{"role": "user", "content": "Hello! (giskard-nb connection test)"}])
    except (AgentError, ConfigError) as exc:
        return ConnectionReport(
            ok=False,
            url=mask_url(agent.url),
            latency_ms=(time.perf_counter() - start) * 1000,
            error=str(exc),
        )
    return ConnectionReport(
        ok=True,
        url=mask_url(agent.url),
        latency_ms=(time.perf_counter() - start) * 1000,
        reply=out.content,
    )


test_connection.__test__ = False  # type: ignore[attr-defined]
