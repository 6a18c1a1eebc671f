"""One MCP client session held open on a thread of its own, usable from any event loop or none.

An MCP session (the official SDK's ``ClientSession`` over stdio or streamable HTTP) is bound to the
event loop that opened it. Notebook cells, ``run_sync`` threads and async agents each have their own
loop, so the session lives on a dedicated daemon thread with its own loop, and ``await
holder.run(fn)`` runs ``fn(session)`` there and waits for it from wherever it is called; cancelling the
waiter cancels the work. ``close()`` ends the session (and stops a stdio server process).

The SDK is imported only here, inside functions: ``import giskard_nb.mcp`` does not need it.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from giskard_nb.errors import ConfigError, GiskardNBError
from giskard_nb.secrets import mask_credentials

__all__ = ["INSTALL_HINT", "McpConnectionError", "SessionThread", "require_sdk"]

T = TypeVar("T")
INSTALL_HINT = "pip install 'giskard-nb[mcp]'"


class McpConnectionError(GiskardNBError):
    """The MCP server could not be started, reached or initialised."""


def require_sdk() -> None:
    """``ConfigError`` naming the ``mcp`` extra unless the MCP SDK is installed."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise ConfigError(
            f"connecting to an MCP server needs the MCP Python SDK: {INSTALL_HINT}"
        ) from None


class SessionThread:
    """An initialised MCP ``ClientSession`` on a daemon thread (see the module docstring)."""

    def __init__(self, transport: dict[str, Any], describe: str, timeout: float) -> None:
        self._transport = transport
        self._describe = describe
        self._timeout = timeout
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        # the server's stderr, quoted when it fails to start (closed by close())
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        self.session: Any = None
        self.server_info: Any = None

    def start(self) -> None:
        require_sdk()
        self._thread = threading.Thread(
            target=lambda: asyncio.run(self._main()), name="giskard-nb-mcp", daemon=True
        )
        self._thread.start()
        if not self._ready.wait(self._timeout + 5):
            self.close()
            raise McpConnectionError(
                f"the MCP server {self._describe} did not answer within {self._timeout:g} s: check "
                "the command (or URL) and that it speaks MCP"
            )
        if self._error is not None:
            message, self._error = self._explain(self._error), None
            self.close()
            raise McpConnectionError(message) from None

    def _explain(self, error: BaseException) -> str:
        errors = getattr(error, "exceptions", None)
        while errors:  # anyio task groups wrap the cause
            error = errors[0]
            errors = getattr(error, "exceptions", None)
        detail = f"{type(error).__name__}: {str(error)[:300]}"
        self._stderr.seek(0)
        tail = "".join(self._stderr.readlines()[-8:]).strip()[-1200:]
        said = f"; the server printed:\n{tail}" if tail else ""
        return mask_credentials(
            f"could not connect to the MCP server {self._describe} ({detail}){said}"
        )

    async def _open(self) -> Any:
        stack = contextlib.AsyncExitStack()
        try:
            return stack, await self._enter(stack)
        except BaseException:
            with contextlib.suppress(BaseException):
                await stack.aclose()  # in this task: anyio scopes must exit where entered
            raise

    async def _enter(self, stack: contextlib.AsyncExitStack) -> Any:
        from mcp import ClientSession

        kind = self._transport["kind"]
        if kind == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(
                command=self._transport["command"],
                args=self._transport["args"],
                env=self._transport["env"],
                cwd=self._transport["cwd"],
                encoding_error_handler="replace",
            )
            read, write = await stack.enter_async_context(stdio_client(params, self._stderr))
        else:
            read, write = await stack.enter_async_context(self._http())
        from datetime import timedelta

        session = await stack.enter_async_context(
            ClientSession(read, write, read_timeout_seconds=timedelta(seconds=self._timeout))
        )
        init = await asyncio.wait_for(session.initialize(), self._timeout)
        self.server_info = getattr(init, "serverInfo", None)
        return session

    def _http(self) -> Any:
        import httpx
        from mcp.client import streamable_http as http

        url, headers = self._transport["url"], self._transport["headers"]
        if hasattr(http, "streamable_http_client"):
            client = httpx.AsyncClient(
                headers=headers, timeout=httpx.Timeout(self._timeout, read=300)
            )
            return _two(http.streamable_http_client(url, http_client=client), client)
        return _two(http.streamablehttp_client(url, headers=headers, timeout=self._timeout), None)

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            stack, self.session = await self._open()
        except BaseException as exc:  # reported to the caller of start()
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            with contextlib.suppress(BaseException):
                await stack.aclose()  # in this task: anyio scopes must exit where entered

    async def run(self, fn: Callable[[Any], Awaitable[T]]) -> T:
        """``await fn(session)`` on the session's loop, awaited from the caller's loop."""
        if self._loop is None or self.session is None or self._loop.is_closed():
            raise McpConnectionError(f"the MCP session with {self._describe} is closed")
        future = asyncio.run_coroutine_threadsafe(_call(fn, self.session), self._loop)
        return await asyncio.wrap_future(future)

    def close(self) -> None:
        """End the session and stop the server process (stdio); idempotent."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(10)
        self.session = None
        with contextlib.suppress(OSError):
            self._stderr.close()


async def _call(fn: Callable[[Any], Awaitable[T]], session: Any) -> T:
    return await fn(session)


@contextlib.asynccontextmanager
async def _two(transport: Any, client: Any) -> Any:
    """The (read, write) streams of an HTTP transport that yields three values."""
    try:
        async with transport as streams:
            yield streams[0], streams[1]
    finally:
        if client is not None:
            await client.aclose()
