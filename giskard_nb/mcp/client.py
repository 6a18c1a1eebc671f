"""``McpTools``: an MCP server as a tool provider (``specs`` and ``call(name, arguments)``).

    tools = McpTools.stdio("python", ["my_server.py"])          # or McpTools.http("https://…/mcp")
    tools.specs                      # ToolSpec objects from the server's tool list
    tools.call("add", {"a": 1, "b": 2})   # the result; a tool error raises McpToolError
    tools.close()                    # or use it as a (async) context manager

The connection is made on first use and kept open (``giskard_nb.mcp.session``). Calls work from a plain
script, a notebook cell (``run_sync``) or async code (``await tools.acall(...)``). Every call is
recorded in ``tools.calls`` as a ``ToolCall`` with its result or error and duration.

Untrusted by default: a stdio server gets only the environment given in ``env`` (plus the SDK's safe
minimum: ``PATH``, ``HOME``…), never the caller's secrets; an HTTP server gets only the ``headers``
given; each call has a ``timeout``; results are cut at ``max_result_chars``; the repr masks headers.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from giskard_nb.core.sync import run_sync, sync_twin
from giskard_nb.core.tools import ToolCall, ToolSpec
from giskard_nb.errors import GiskardNBError, GiskardValidationError
from giskard_nb.mcp.session import SessionThread
from giskard_nb.secrets import mask_credentials, mask_url

__all__ = ["McpToolError", "McpTools"]

#: The most tools read from one server and the most calls kept in ``calls``.
MAX_TOOLS = 1000
MAX_RECORDED = 10_000


class McpToolError(GiskardNBError):
    """An MCP tool returned an error (``isError``), timed out or was refused by the server."""


class McpTools:
    """An MCP server's tools (see the module docstring). Build with ``McpTools.stdio`` or ``.http``."""

    def __init__(
        self,
        transport: dict[str, Any],
        *,
        name: str | None = None,
        timeout: float = 30.0,
        max_result_chars: int = 100_000,
    ) -> None:
        if not isinstance(timeout, int | float) or not 0 < timeout <= 3600:
            raise GiskardValidationError("timeout is a number of seconds between 0 and 3600")
        self._transport = transport
        self._name = name
        self.timeout = float(timeout)
        self.max_result_chars = max(int(max_result_chars), 100)
        self._holder: SessionThread | None = None
        self._lock = threading.Lock()
        self._specs: list[ToolSpec] | None = None
        self.calls: list[ToolCall] = []

    # -- construction -----------------------------------------------------------------------------

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        name: str | None = None,
        timeout: float = 30.0,
        max_result_chars: int = 100_000,
    ) -> McpTools:
        """A server started as ``command args…`` and spoken to over stdin/stdout. ``env`` is the
        only environment it gets beyond ``PATH``, ``HOME`` and the like (the caller's API keys are
        not passed on)."""
        if not isinstance(command, str) or not command.strip():
            raise GiskardValidationError("command is the program that starts the MCP server")
        if isinstance(args, str) or not all(isinstance(a, str) for a in args):
            raise GiskardValidationError("args is a list of strings, e.g. ['server.py', '--flag']")
        if env is not None and not all(
            isinstance(k, str) and isinstance(v, str) for k, v in env.items()
        ):
            raise GiskardValidationError("env is a dict of strings (variable name → value)")
        transport = {
            "kind": "stdio",
            "command": command,
            "args": list(args),
            "env": dict(env) if env is not None else None,
            "cwd": None if cwd is None else os.fspath(cwd),
        }
        return cls(transport, name=name, timeout=timeout, max_result_chars=max_result_chars)

    @classmethod
    def http(
        cls,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        name: str | None = None,
        timeout: float = 30.0,
        max_result_chars: int = 100_000,
    ) -> McpTools:
        """A server reached over streamable HTTP at ``url``, sent only the ``headers`` given."""
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise GiskardValidationError(
                "url is the http(s) address of a streamable HTTP MCP server"
            )
        transport = {"kind": "http", "url": url, "headers": dict(headers or {})}
        return cls(transport, name=name, timeout=timeout, max_result_chars=max_result_chars)

    def __repr__(self) -> str:
        t = self._transport
        if t["kind"] == "stdio":
            where = " ".join([t["command"], *t["args"]])[:200]
        else:
            where = mask_url(t["url"]) + (
                f" headers={sorted(t['headers'])}" if t["headers"] else ""
            )
        state = "connected" if self._holder is not None else "not connected"
        return f"<McpTools {self.name!r} {t['kind']}: {where} ({state})>"

    @property
    def name(self) -> str:
        """The server's name: given, else what the server says, else the command or host."""
        if self._name:
            return self._name
        info = self._holder.server_info if self._holder is not None else None
        if info is not None and getattr(info, "name", None):
            return str(info.name)[:100]
        t = self._transport
        return (
            os.path.basename(t["args"][-1] if t.get("args") else t.get("command", "mcp"))[:100]
            if t["kind"] == "stdio"
            else mask_url(t["url"])[:100]
        )

    # -- the connection ---------------------------------------------------------------------------

    def _session(self) -> SessionThread:
        with self._lock:
            if self._holder is None:
                t = self._transport
                describe = repr(t["command"]) if t["kind"] == "stdio" else mask_url(t["url"])
                holder = SessionThread(t, describe, self.timeout)
                holder.start()
                self._holder = holder
                weakref.finalize(self, holder.close)  # a forgotten close() stops the server
            return self._holder

    async def aconnect(self) -> McpTools:
        """Start (or reach) the server and initialise the session; returns ``self``."""
        await asyncio.to_thread(self._session)
        return self

    def connect(self) -> McpTools:
        """Blocking twin of ``aconnect``."""
        self._session()
        return self

    def close(self) -> None:
        """Close the session (a stdio server process is stopped)."""
        holder, self._holder = self._holder, None
        if holder is not None:
            holder.close()

    async def aclose(self) -> None:
        """Close the session from async code."""
        await asyncio.to_thread(self.close)

    def __enter__(self) -> McpTools:
        return self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> McpTools:
        return await self.aconnect()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- the tool-provider contract ---------------------------------------------------------------

    async def alist_specs(self, *, refresh: bool = False) -> list[ToolSpec]:
        """The server's tools as ``ToolSpec`` objects (listed once, then cached)."""
        if self._specs is not None and not refresh:
            return list(self._specs)
        holder = await asyncio.to_thread(self._session)

        async def listing(session: Any) -> list[Any]:
            tools, cursor = [], None
            while len(tools) < MAX_TOOLS:
                page = await session.list_tools(cursor) if cursor else await session.list_tools()
                tools += page.tools
                cursor = getattr(page, "nextCursor", None)
                if not cursor:
                    break
            return tools[:MAX_TOOLS]

        tools = await asyncio.wait_for(holder.run(listing), self.timeout)
        self._specs = [ToolSpec.from_mcp(t.model_dump(), server=self.name) for t in tools]
        return list(self._specs)

    @property
    def specs(self) -> list[ToolSpec]:
        """The server's tools (``alist_specs`` run to completion)."""
        if self._specs is None:
            run_sync(self.alist_specs())
        return list(self._specs or [])

    def to_openai(self) -> list[dict[str, Any]]:
        """The tools as OpenAI tool definitions (``{"type": "function", "function": {...}}``)."""
        return [
            {
                "type": "function",
                "function": {
                    "name": s.name,
                    "description": s.description,
                    "parameters": s.input_schema or {"type": "object", "properties": {}},
                },
            }
            for s in self.specs
        ]

    async def acall(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """Call tool ``name`` with ``arguments``; its result (structured content, else the text).
        A tool error, a timeout or a refused call raises ``McpToolError``; each call is recorded in
        ``calls``."""
        if not isinstance(name, str) or not name:
            raise GiskardValidationError("name is the name of one of the server's tools")
        if arguments is not None and not isinstance(arguments, Mapping):
            raise GiskardValidationError(
                f"the arguments of {name!r} are a dict, got {type(arguments).__name__}"
            )
        args = dict(arguments or {})
        holder = await asyncio.to_thread(self._session)
        started = time.perf_counter()
        timeout = timedelta(seconds=self.timeout)

        async def calling(session: Any) -> Any:
            return await session.call_tool(name, args, read_timeout_seconds=timeout)

        try:
            raw = await asyncio.wait_for(holder.run(calling), self.timeout + 1)
            error, result = self._read(raw)
        except TimeoutError:
            error, result = f"the tool {name!r} did not answer within {self.timeout:g} s", None
        except McpToolError as exc:
            error, result = str(exc), None
        except Exception as exc:  # the SDK's McpError and transport errors
            if getattr(getattr(exc, "error", None), "code", None) == 408:  # the SDK's timeout
                error = f"the tool {name!r} did not answer within {self.timeout:g} s"
            else:
                error = mask_credentials(f"{type(exc).__name__}: {str(exc)[:2000]}")
            result = None
        duration = time.perf_counter() - started
        if len(self.calls) < MAX_RECORDED:
            self.calls.append(
                ToolCall(
                    name=name,
                    arguments=args,
                    result=result,
                    error=error,
                    status="error" if error else "ok",
                    duration_s=duration,
                    server=self.name,
                )
            )
        if error is not None:
            raise McpToolError(f"MCP tool {name!r} failed: {error}")
        return result

    call = sync_twin(acall)  # from a script or a notebook cell

    def _read(self, raw: Any) -> tuple[str | None, Any]:
        """``(error, result)`` of a ``CallToolResult``, cut to ``max_result_chars``."""
        texts, other = [], []
        for block in getattr(raw, "content", None) or []:
            if getattr(block, "type", None) == "text":
                texts.append(str(block.text))
            else:
                other.append(
                    {
                        "type": getattr(block, "type", "?"),
                        "mimeType": getattr(block, "mimeType", None),
                    }
                )
        text = "\n".join(texts)
        if getattr(raw, "isError", False):
            return self._cut(text or "the tool reported an error") or "error", None
        structured = getattr(raw, "structuredContent", None)
        if isinstance(structured, dict) and structured:
            value = structured["result"] if set(structured) == {"result"} else structured
            if isinstance(value, str):
                return None, self._cut(value)
            size = len(json.dumps(value, default=str))
            if size <= self.max_result_chars:
                return None, value
            return None, self._cut(json.dumps(value, default=str))
        if other and not texts:
            return None, other
        return None, self._cut(text)

    def _cut(self, text: str) -> str:
        if len(text) <= self.max_result_chars:
            return text
        dropped = len(text) - self.max_result_chars
        return f"{text[: self.max_result_chars]}…[{dropped} more characters cut]"
