"""What the fake server receives (``FakeRequest``) and what it can be scripted to send (``FakeReply``).

A reply can be given as: a string (the assistant's text); a dict, list or pydantic model (sent as JSON
text); a ``FakeReply`` (full control: status, headers, delay, raw body); or a function of the
``FakeRequest`` returning any of these.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

__all__ = ["FakeReply", "FakeRequest", "hashed_embedding", "schema_stub"]


@dataclass(frozen=True)
class FakeRequest:
    """One HTTP request the fake server received.

    ``headers`` have lower-case names; the ``authorization`` value is masked to its last 4 characters.
    """

    path: str
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        """``"chat"``, ``"embedding"`` or ``"other"``."""
        if self.path.endswith("/chat/completions"):
            return "chat"
        if self.path.endswith("/embeddings"):
            return "embedding"
        return "other"

    @property
    def model(self) -> str | None:
        return self.body.get("model")

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    @property
    def prompt(self) -> str:
        """Every message's text, joined (handy for ``"some phrase" in request.prompt``)."""
        parts = []
        for m in self.messages:
            content = m.get("content")
            if isinstance(content, list):
                content = " ".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
            parts.append(f"{m.get('role')}: {content}")
        return "\n".join(parts)

    @property
    def last_user_message(self) -> str:
        users = [m for m in self.messages if m.get("role") == "user"]
        return str(users[-1].get("content", "")) if users else ""

    @property
    def schema(self) -> dict[str, Any] | None:
        """The JSON schema of the requested structured output (``response_format``), if any."""
        fmt = self.body.get("response_format")
        if isinstance(fmt, dict) and isinstance(fmt.get("json_schema"), dict):
            return fmt["json_schema"].get("schema")
        return None

    @property
    def schema_name(self) -> str | None:
        fmt = self.body.get("response_format")
        if isinstance(fmt, dict) and isinstance(fmt.get("json_schema"), dict):
            return fmt["json_schema"].get("name")
        return None

    @property
    def inputs(self) -> list[str]:
        """The texts of an embedding request."""
        value = self.body.get("input")
        return [value] if isinstance(value, str) else [str(v) for v in value or []]


@dataclass(frozen=True)
class FakeReply:
    """A scripted reply. Build one with the class methods."""

    content: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    body: bytes | None = None
    error: str | None = None

    @classmethod
    def text(cls, content: str, *, delay: float = 0.0) -> FakeReply:
        """The assistant answers ``content``."""
        return cls(content=content, delay=delay)

    @classmethod
    def json(cls, value: Any, *, delay: float = 0.0) -> FakeReply:
        """The assistant answers ``value`` as JSON text (a dict, a list or a pydantic model)."""
        return cls(content=to_text(value), delay=delay)

    @classmethod
    def fail(
        cls,
        status: int,
        message: str = "",
        *,
        retry_after: float | None = None,
        delay: float = 0.0,
    ) -> FakeReply:
        """An HTTP error (429 with ``retry_after`` for a rate limit, 500, 401, ...)."""
        headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
        return cls(
            status=status, headers=headers, error=message or f"fake error {status}", delay=delay
        )

    @classmethod
    def malformed(cls, body: bytes = b"this is not JSON {", *, delay: float = 0.0) -> FakeReply:
        """HTTP 200 whose body is not valid JSON (a broken proxy or server)."""
        return cls(body=body, delay=delay)

    @classmethod
    def slow(cls, seconds: float, reply: Any = "ok") -> FakeReply:
        """``reply`` after ``seconds`` (longer than the client's timeout to test timeouts)."""
        base = as_reply(reply)
        return FakeReply(
            content=base.content,
            status=base.status,
            headers=base.headers,
            delay=seconds,
            body=base.body,
            error=base.error,
        )


def to_text(value: Any) -> str:
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def as_reply(value: Any) -> FakeReply:
    if isinstance(value, FakeReply):
        return value
    return FakeReply(content=to_text(value))


def schema_stub(schema: dict[str, Any], defs: dict[str, Any] | None = None, name: str = "") -> Any:
    """A minimal valid instance of a JSON schema: true, "fake <field>", 1, [], nested objects."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return schema_stub(defs.get(schema["$ref"].rsplit("/", 1)[-1], {}), defs, name)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for combo in ("anyOf", "oneOf", "allOf"):
        if combo in schema:
            options = [s for s in schema[combo] if s.get("type") != "null"] or schema[combo]
            return schema_stub(options[0], defs, name)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {k: schema_stub(v, defs, k) for k, v in props.items()}
    return {
        "boolean": True,
        "integer": 1,
        "number": 1.0,
        "array": [],
        "null": None,
    }.get(kind, f"fake {name}".strip())


def hashed_embedding(text: str, dim: int = 64) -> list[float]:
    """A deterministic bag-of-words vector: texts sharing words have a high cosine similarity."""
    vector = [0.0] * dim
    for word in re.findall(r"\w+", text.lower()):
        digest = hashlib.sha256(word.encode("utf-8")).digest()
        index = int.from_bytes(digest[:4], "big") % dim
        vector[index] += 1.0 if digest[4] % 2 else -1.0
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0:
        vector[0] = 1.0
        return vector
    return [x / norm for x in vector]


# -- OpenAI-shaped response bodies -----------------------------------------------------------------


def error_type(status: int) -> str:
    return {
        400: "invalid_request_error",
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        429: "rate_limit_error",
    }.get(status, "server_error")


def fake_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def chat_payload(request: FakeRequest, content: str) -> dict[str, Any]:
    prompt_tokens = fake_tokens(request.prompt)
    completion_tokens = fake_tokens(content)
    return {
        "id": f"chatcmpl-fake-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.model or "fake",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def embedding_payload(request: FakeRequest, embed: Callable[[str], list[float]]) -> dict[str, Any]:
    texts = request.inputs
    tokens = sum(fake_tokens(t) for t in texts)
    return {
        "object": "list",
        "data": [
            {"object": "embedding", "index": i, "embedding": [float(x) for x in embed(t)]}
            for i, t in enumerate(texts)
        ],
        "model": request.model or "fake",
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }
