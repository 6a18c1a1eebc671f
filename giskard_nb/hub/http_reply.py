"""One HTTP exchange with a remote agent, safe against a hostile server.

- **Bounded reply**: the body is streamed and reading stops past ``limit`` bytes, counted both on the
  wire and decompressed (a 300 KB gzip bomb or an endless chunked reply is refused after ``limit``
  bytes, without ever holding more). A declared ``Content-Length`` over the limit is refused before
  reading. Only ``gzip`` and ``deflate`` are asked for and read (each layer decompressed with a bound).
- **Same-origin redirects only**: a redirect is followed only to the same scheme, host and port (at
  most ``MAX_REDIRECTS``), so the agent's headers never reach another origin; a redirect elsewhere, to a
  non-http(s) scheme, or a redirect loop is an ``AgentError`` at once (never retried).

The caller bounds the whole exchange in time (``Agent.timeout``): a trickling server cannot hold it.
"""

from __future__ import annotations

import zlib
from typing import Any

from giskard_nb.errors import AgentError
from giskard_nb.secrets import mask_url

__all__ = ["DEFAULT_MAX_REPLY_BYTES", "MAX_REDIRECTS", "exchange"]

#: The default cap on an agent's reply, on the wire and decompressed (``Agent.max_reply_bytes``).
DEFAULT_MAX_REPLY_BYTES = 10_000_000
#: Same-origin redirects followed before a reply counts as a redirect loop.
MAX_REDIRECTS = 5
#: How much of an error reply (4xx/5xx) is read: only a snippet of it is shown.
_ERROR_BODY = 64_000
_ACCEPT_ENCODING = "gzip, deflate"
_DROPPED = frozenset({"content-encoding", "content-length", "transfer-encoding"})


async def exchange(
    client: Any,
    url: str,
    *,
    payload: Any,
    headers: dict[str, str],
    timeout: float,
    limit: int,
    who: str,
) -> Any:
    """POST ``payload`` to ``url`` and return the reply as a fully read ``httpx.Response`` (its body
    decoded, at most ``limit`` bytes). ``who`` names the agent in errors (``agent 'x' at <url>``)."""
    import httpx

    request = client.build_request(
        "POST",
        url,
        json=payload,
        headers={**headers, "Accept-Encoding": _ACCEPT_ENCODING},
        timeout=timeout,
    )
    origin = _origin(request.url)
    for _ in range(MAX_REDIRECTS + 1):
        response = await client.send(request, stream=True, follow_redirects=False)
        try:
            following = response.next_request
            if following is None:
                error = response.status_code >= 400
                cap = min(limit, _ERROR_BODY) if error else limit
                body = await _read(response, cap, truncate=error, who=who)
                kept = [(k, v) for k, v in response.headers.multi_items() if k not in _DROPPED]
                return httpx.Response(
                    response.status_code, headers=kept, content=body, request=request
                )
        finally:
            await response.aclose()
        _check_redirect(following, origin, who)
        request = following
    raise AgentError(
        f"{who} redirected more than {MAX_REDIRECTS} times (a redirect loop): fix the agent's URL or "
        "the server's redirects"
    )


def _origin(url: Any) -> tuple[str, str, int | None]:
    default = {"http": 80, "https": 443}.get(url.scheme)
    return url.scheme, url.host, url.port or default


def _check_redirect(request: Any, origin: tuple[str, str, int | None], who: str) -> None:
    shown = mask_url(str(request.url))
    if request.url.scheme not in ("http", "https"):
        raise AgentError(
            f"{who} redirected to {shown!r}, which is not an http(s) URL: giskard-nb follows only "
            "same-origin http(s) redirects. Fix the agent's URL or the server"
        )
    if _origin(request.url) != origin:
        raise AgentError(
            f"{who} redirected to another origin ({shown!r}): giskard-nb follows redirects only to "
            "the same scheme, host and port, so the agent's headers are never sent elsewhere. If you "
            "trust that address, register it as the agent's URL"
        )


def _too_large(who: str, limit: int) -> AgentError:
    return AgentError(
        f"{who}: the agent's reply exceeded {limit / 1e6:g} MB ({limit:,} bytes, on the wire or "
        f"decompressed) and was not read further; raise max_reply_bytes= on the agent (for example "
        f"hub.agents.update(agent_id, max_reply_bytes={limit * 10})) if this is expected"
    )


async def _read(response: Any, limit: int, *, truncate: bool, who: str) -> bytes:
    """The decoded body, at most ``limit`` bytes on the wire and decoded; past it, an error (or, with
    ``truncate``, the first ``limit`` bytes)."""
    declared = response.headers.get("content-length", "")
    if not truncate and declared.strip().isdigit() and int(declared) > limit:
        raise _too_large(who, limit)
    decoder = _Decoder(response.headers.get_list("content-encoding", split_commas=True), who)
    wire = 0
    body = bytearray()
    async for chunk in response.aiter_raw():
        over = wire + len(chunk) > limit
        if over and not truncate:
            raise _too_large(who, limit)
        body += decoder.feed(chunk[: limit - wire], limit - len(body))
        wire += len(chunk)
        if over or len(body) > limit:
            if truncate:
                return bytes(body[:limit])
            raise _too_large(who, limit)
    body += decoder.finish(limit - len(body))
    if len(body) > limit:
        if truncate:
            return bytes(body[:limit])
        raise _too_large(who, limit)
    return bytes(body)


class _Decoder:
    """Content-Encoding layers (``gzip``, ``deflate``), each decompressed with a bounded output."""

    def __init__(self, encodings: list[str], who: str):
        self.who = who
        self.layers: list[_Layer] = []
        for raw in reversed(encodings):  # the last encoding applied is undone first
            name = raw.strip().lower()
            if name in ("", "identity"):
                continue
            if name not in ("gzip", "x-gzip", "deflate"):
                raise AgentError(
                    f"{who} replied with Content-Encoding {name!r}, which giskard-nb does not read "
                    f"(it asks for {_ACCEPT_ENCODING}): configure the server to send those or none"
                )
            self.layers.append(_Layer(name))

    def feed(self, data: bytes, room: int) -> bytes:
        """``data`` decoded, at most ``room + 1`` bytes (more than ``room`` means over the limit)."""
        try:
            for layer in self.layers:
                if not data:
                    return b""
                data = layer.decompress(data, room + 1)
                if len(data) > room:
                    return data
        except zlib.error as exc:
            raise AgentError(f"{self.who} sent a corrupt compressed reply ({exc})") from None
        return data

    def finish(self, room: int) -> bytes:
        data = b""
        try:
            for layer in self.layers:
                data = layer.decompress(data, room + 1) if data else b""
                if len(data) > room:
                    return data
                data += layer.flush(room + 1 - len(data))
        except zlib.error as exc:
            raise AgentError(f"{self.who} sent a corrupt compressed reply ({exc})") from None
        return data


class _Layer:
    def __init__(self, name: str):
        self.deflate = name == "deflate"
        self.started = False
        wbits = zlib.MAX_WBITS if self.deflate else zlib.MAX_WBITS | 16
        self.obj = zlib.decompressobj(wbits)

    def decompress(self, data: bytes, max_length: int) -> bytes:
        first, self.started = not self.started, True
        try:
            return self.obj.decompress(data, max_length)
        except zlib.error:
            if not (self.deflate and first):
                raise
            self.obj = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, without the zlib header
            return self.obj.decompress(data, max_length)

    def flush(self, max_length: int) -> bytes:
        if self.obj.unconsumed_tail:  # only when max_length was reached
            return self.obj.decompress(self.obj.unconsumed_tail, max_length)
        return self.obj.flush()
