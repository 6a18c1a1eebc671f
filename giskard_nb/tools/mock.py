"""``MockTools``: scripted tools for deterministic, offline runs of a tool-using agent.

::

    tools = MockTools(
        specs=[ToolSpec(name="get_balance", description="The balance of an account")],
        results={"get_balance": {"balance": 1250.0}},           # a value for every call
        errors={"send_email": "SMTP server unavailable"},        # this tool fails
    )
    tools.call("get_balance", {"account": "checking"})          # {"balance": 1250.0}
    tools.calls                                                  # [ToolCall(name="get_balance", ...)]

A scripted result is a value (returned for every call), a callable (``fn(arguments)``; what it
raises is the tool's error), or a list of values (the n-th call gets the n-th value, the last one
repeats: to return a list itself, wrap it in a list or use a callable). ``on(name, arguments,
result=... | error=...)`` scripts one exact set of arguments, before the per-tool scripts.

A tool provider (TOOLS-COMMON contract) is any object with ``specs: list[ToolSpec]`` and
``call(name, arguments) -> Any`` that raises for a tool error: ``MockTools`` is one. ``call`` raises
``ToolError`` for an error (an unknown tool, a scripted error, a script that raised); ``run`` makes
the same call and returns the recorded ``ToolCall`` instead of raising, which is what an agent loop
feeds back to its model. Every call is recorded in ``calls`` (with its result or error, status and
duration); ``reset()`` forgets them and restarts the per-call lists.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from giskard_nb.core.tools import ToolCall, ToolSpec
from giskard_nb.errors import GiskardNBError, GiskardValidationError

__all__ = ["MockTools", "ToolError", "as_spec"]

_UNSET: Any = object()


class ToolError(GiskardNBError):
    """A tool call failed (the tool is unknown, scripted to fail, or raised): the message says why."""


def as_spec(value: Any) -> ToolSpec:
    """A ``ToolSpec`` from a spec, its dict, or an OpenAI / Anthropic / MCP tool definition."""
    if isinstance(value, ToolSpec):
        return value
    if isinstance(value, Mapping):
        if "function" in value or value.get("type") == "function":
            return ToolSpec.from_openai(value)
        if "inputSchema" in value:
            return ToolSpec.from_mcp(value)
        try:
            return ToolSpec.model_validate(dict(value))
        except ValueError as exc:
            raise GiskardValidationError(
                f"cannot read the tool definition {str(value)[:120]!r}: {exc}. Give a ToolSpec, "
                "its fields as a dict, or an OpenAI, Anthropic or MCP tool definition"
            ) from None
    raise GiskardValidationError(
        f"a tool spec is a ToolSpec or a dict, got {type(value).__name__}: {str(value)[:80]!r}"
    )


def _key(arguments: Any) -> str:
    """Arguments compared as canonical JSON (key order does not matter)."""
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


class MockTools:
    """Scripted tools: see the module docstring. ``default`` answers a known tool without a script
    (without it, such a call is an error saying how to script it)."""

    def __init__(
        self,
        specs: Iterable[Any] = (),
        results: Mapping[str, Any] | None = None,
        errors: Mapping[str, str] | None = None,
        latency_s: Mapping[str, float] | None = None,
        default: Any = _UNSET,
    ):
        self.specs: list[ToolSpec] = [as_spec(s) for s in specs]
        self.results: dict[str, Any] = dict(results or {})
        self.errors: dict[str, str] = {k: str(v) for k, v in (errors or {}).items()}
        self.latency_s: dict[str, float] = {}
        for name, seconds in (latency_s or {}).items():
            if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds < 0:
                raise GiskardValidationError(
                    f"latency_s[{name!r}] must be a number of seconds >= 0, got {seconds!r}"
                )
            self.latency_s[name] = float(seconds)
        self.default = default
        self._wrap: Callable[[ToolCall, ToolSpec | None], Any] | None = None
        self._rules: list[tuple[str, str, Any, str | None]] = []
        self._lock = threading.Lock()
        self._count: dict[str, int] = {}
        self.calls: list[ToolCall] = []
        known = {s.name for s in self.specs}
        for name in [*self.results, *self.errors]:  # a scripted tool without a spec gets one
            if name not in known:
                known.add(name)
                self.specs.append(ToolSpec(name=name))

    # -- scripting ----------------------------------------------------------------------------------

    def on(
        self, name: str, arguments: Any, *, result: Any = None, error: str | None = None
    ) -> MockTools:
        """Answer ``name`` called with exactly ``arguments`` by ``result`` (or fail with ``error``);
        checked before the per-tool scripts. Returns ``self``, so calls chain."""
        if name not in self.names:
            self.specs.append(ToolSpec(name=name))
        self._rules.append((name, _key(arguments), result, None if error is None else str(error)))
        return self

    @property
    def names(self) -> list[str]:
        """The names of the known tools, in order."""
        return [s.name for s in self.specs]

    def spec(self, name: str) -> ToolSpec | None:
        """The spec of the tool ``name`` (``None`` if unknown)."""
        return next((s for s in self.specs if s.name == name), None)

    def copy(self, wrap: Callable[[ToolCall, ToolSpec | None], Any] | None = None) -> MockTools:
        """A fresh copy (same scripts, no calls recorded). ``wrap(call, spec)``, when given, returns
        the result to give instead of each successful call's result (a scan plants text with it)."""
        new = type(self).__new__(type(self))
        new.__dict__.update({k: v for k, v in self.__dict__.items() if k != "_lock"})
        new._lock, new._count, new.calls = threading.Lock(), {}, []
        new._rules, new.results, new.specs = list(self._rules), dict(self.results), list(self.specs)
        new.errors, new.latency_s = dict(self.errors), dict(self.latency_s)
        new._wrap = wrap
        if isinstance(getattr(new, "_cursor", None), dict):  # a replay restarts its answers
            new._cursor = {}
        return new

    def reset(self) -> None:
        """Forget the calls made and restart the per-call result lists."""
        with self._lock:
            self.calls = []
            self._count = {}

    # -- calling ------------------------------------------------------------------------------------

    def call(self, name: str, arguments: Any = None) -> Any:
        """Call a tool: its result, or ``ToolError`` when it fails (the call is recorded either way)."""
        done = self.run(name, arguments)
        if done.failed:
            raise ToolError(done.error or f"the tool {name!r} failed")
        return copy.deepcopy(done.result)  # the agent may change it; the record stays as returned

    async def acall(self, name: str, arguments: Any = None) -> Any:
        """``call`` for async agents (latency waits with ``asyncio.sleep``)."""
        done = await self.arun(name, arguments)
        if done.failed:
            raise ToolError(done.error or f"the tool {name!r} failed")
        return copy.deepcopy(done.result)  # the agent may change it; the record stays as returned

    def run(self, name: str, arguments: Any = None) -> ToolCall:
        """Call a tool and return the recorded ``ToolCall`` (result or error): never raises."""
        start = time.perf_counter()
        delay = self.latency_s.get(str(name), 0.0)
        if delay:
            time.sleep(delay)
        result, error = self._answer(str(name), {} if arguments is None else arguments)
        if inspect.isawaitable(result):
            result, error = self._settle(str(name), result)
        return self._record(str(name), arguments, result, error, time.perf_counter() - start)

    async def arun(self, name: str, arguments: Any = None) -> ToolCall:
        """``run`` for async agents."""
        start = time.perf_counter()
        delay = self.latency_s.get(str(name), 0.0)
        if delay:
            await asyncio.sleep(delay)
        result, error = self._answer(str(name), {} if arguments is None else arguments)
        if inspect.isawaitable(result):
            try:
                result = await result
            except Exception as exc:
                result, error = None, self._error(str(name), exc)
        return self._record(str(name), arguments, result, error, time.perf_counter() - start)

    def _answer(self, name: str, arguments: Any) -> tuple[Any, str | None]:
        """The scripted ``(result, error)`` of one call (an error names what to do)."""
        if name not in self.names:
            known = ", ".join(self.names) or "none"
            return None, f"unknown tool {name!r}: the known tools are {known}"
        key = _key(arguments)
        for rule_name, rule_key, result, error in self._rules:
            if rule_name == name and rule_key == key:
                return copy.deepcopy(result), error
        if name in self.errors:
            return None, self.errors[name]
        with self._lock:
            index = self._count.get(name, 0)
            self._count[name] = index + 1
        if name in self.results:
            script = self.results[name]
        elif self.default is not _UNSET:
            script = self.default
        else:
            return None, (
                f"no result scripted for the tool {name!r}: give results={{{name!r}: ...}} or "
                "default=... to MockTools"
            )
        if callable(script):
            try:
                return script(arguments), None
            except Exception as exc:
                return None, self._error(name, exc)
        if isinstance(script, list):
            if not script:
                return None, f"the result list of {name!r} is empty"
            return copy.deepcopy(script[min(index, len(script) - 1)]), None
        return copy.deepcopy(script), None

    def _error(self, name: str, exc: BaseException) -> str:
        """The error of a call whose script raised ``exc``."""
        return f"the tool {name!r} failed: {type(exc).__name__}: {exc}"

    def _settle(self, name: str, awaitable: Any) -> tuple[Any, str | None]:
        """What a sync call makes of an awaitable answer: an error (``RecordingTools`` runs it)."""
        if inspect.iscoroutine(awaitable):
            awaitable.close()  # never awaited: close it rather than leak a warning
        return None, f"the script of {name!r} is async: call it with acall or arun"

    def _record(
        self, name: str, arguments: Any, result: Any, error: str | None, seconds: float
    ) -> ToolCall:
        if self._wrap is not None and error is None:
            seen = ToolCall(
                name=name, arguments={} if arguments is None else arguments, result=result
            )
            result = self._wrap(seen, self.spec(name))
        with self._lock:
            call = ToolCall(
                id=f"call_{len(self.calls) + 1}",
                name=name,
                arguments={} if arguments is None else arguments,
                result=None if error is not None else result,
                error=error,
                status="error" if error is not None else "ok",
                duration_s=max(seconds, 0.0),
            )
            self.calls.append(call)
        return call

    # -- definitions for model APIs -----------------------------------------------------------------

    def openai_tools(self) -> list[dict[str, Any]]:
        """The tools as OpenAI chat-completions definitions (``tools=`` of a request)."""
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

    def anthropic_tools(self) -> list[dict[str, Any]]:
        """The tools as Anthropic Messages definitions (``tools=`` of a request)."""
        return [
            {
                "name": s.name,
                "description": s.description,
                "input_schema": s.input_schema or {"type": "object", "properties": {}},
            }
            for s in self.specs
        ]

    # -- record and replay (giskard_nb.tools.recording) ---------------------------------------------

    @classmethod
    def record(cls, provider: Any) -> MockTools:
        """A ``MockTools`` that calls ``provider`` (any tool provider: ``specs`` and ``call``) and
        records every call; ``save(path)`` writes them for ``MockTools.replay(path)``."""
        from giskard_nb.tools.recording import RecordingTools

        return RecordingTools(provider)

    @classmethod
    def replay(cls, path: Any) -> MockTools:
        """A ``MockTools`` answering the calls recorded in ``path`` (a ``save``d file), offline:
        the same tool with the same arguments gets the recorded result or error, in order."""
        from giskard_nb.tools.recording import load_replay

        return load_replay(path)

    def save(self, path: Any) -> Any:
        """Write the specs and the calls made so far to ``path`` (JSON, written atomically; secret-named
        fields and key-shaped strings masked); returns the path."""
        from giskard_nb.tools.recording import save_recording

        return save_recording(self, path)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} tools={self.names} calls={len(self.calls)}>"
