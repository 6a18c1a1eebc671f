"""Recording the calls of a real tool provider and replaying them offline.

``MockTools.record(provider)`` wraps any tool provider (``specs`` and ``call(name, arguments)``, sync
or async: a ``MockTools``, an MCP session's ``giskard_nb.mcp.McpTools``, your own object) and records
each call with its result or error; ``save(path)`` writes them as JSON, atomically, with secret-named
fields and key-shaped strings masked. ``MockTools.replay(path)`` answers the same calls from the file
with no provider: a call is matched by its tool name and its exact arguments (as JSON, key order
aside; secret-named argument values compared masked); identical calls replay their recorded answers
in order, the last one repeating. A call the recording does not hold is an error result naming the
nearest recorded call, never a guess. The agent-level ``giskard_nb.llm.recording`` files complement
this: they replay an agent's replies, these replay the tools an agent calls.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from giskard_nb.core.files import write_text_atomic
from giskard_nb.core.sync import run_sync
from giskard_nb.errors import GiskardValidationError, SerializationError
from giskard_nb.secrets import mask_credentials, mask_values
from giskard_nb.tools.mock import MockTools, ToolError, as_spec

__all__ = ["FORMAT", "RecordingTools", "ReplayTools", "load_replay", "save_recording"]

#: The ``format`` field of a tool recording file.
FORMAT = "giskard-nb/tool-calls"
VERSION = 1


def _masked(value: Any) -> Any:
    """``value`` as it is written to disk: secret-named fields and key-shaped strings masked."""
    value = mask_values(value)
    if isinstance(value, str):
        return mask_credentials(value)
    if isinstance(value, dict):
        return {k: _masked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return value


def _match_key(name: str, arguments: Any) -> str:
    return name + "\x00" + json.dumps(_masked(arguments), sort_keys=True, default=str)


class RecordingTools(MockTools):
    """A ``MockTools`` whose answers come from a real provider (see the module docstring)."""

    def __init__(self, provider: Any):
        specs = getattr(provider, "specs", None)
        if specs is None or not callable(getattr(provider, "call", None)):
            raise GiskardValidationError(
                f"MockTools.record needs a tool provider (an object with `specs` and "
                f"`call(name, arguments)`), got {type(provider).__name__}"
            )
        super().__init__(specs=list(specs))
        self.provider = provider

    def _answer(self, name: str, arguments: Any) -> tuple[Any, str | None]:
        try:
            return self.provider.call(name, arguments), None
        except Exception as exc:
            return None, self._error(name, exc)

    def _error(self, name: str, exc: BaseException) -> str:
        """The provider's error as it said it (a ``ToolError``'s message as is)."""
        return str(exc) if isinstance(exc, ToolError) else f"{type(exc).__name__}: {exc}"

    def _settle(self, name: str, awaitable: Any) -> tuple[Any, str | None]:
        """A sync call of an async provider: run it to completion."""
        try:
            result = run_sync(_awaited(awaitable))  # an awaitable the provider returned, not a twin
        except Exception as exc:
            return None, self._error(name, exc)
        return result, None


async def _awaited(value: Any) -> Any:
    return await value


class ReplayTools(MockTools):
    """A ``MockTools`` answering from a recording (see the module docstring)."""

    def __init__(self, specs: list[Any], entries: list[dict[str, Any]], source: str = ""):
        super().__init__(specs=specs)
        self.source = source
        self.entries = entries
        self._by_key: dict[str, list[dict[str, Any]]] = {}
        for entry in entries:
            key = _match_key(entry["name"], entry["arguments"])
            self._by_key.setdefault(key, []).append(entry)
        self._cursor: dict[str, int] = {}
        for entry in entries:  # a recorded call of a tool absent from the specs is still known
            if entry["name"] not in self.names:
                self.specs.append(as_spec({"name": entry["name"]}))

    def _answer(self, name: str, arguments: Any) -> tuple[Any, str | None]:
        key = _match_key(name, arguments)
        answers = self._by_key.get(key)
        if not answers:
            return None, self._miss(name, arguments)
        with self._lock:
            index = self._cursor.get(key, 0)
            self._cursor[key] = index + 1
        entry = answers[min(index, len(answers) - 1)]
        return entry.get("result"), entry.get("error")

    def reset(self) -> None:
        super().reset()
        with self._lock:
            self._cursor = {}

    def _miss(self, name: str, arguments: Any) -> str:
        args = json.dumps(arguments, sort_keys=True, default=str)
        where = f" in {self.source}" if self.source else ""
        if not self.entries:
            return f"the recording{where} holds no call: record one with MockTools.record(provider)"
        same = [e for e in self.entries if e["name"] == name]
        pool = same or self.entries

        def likeness(entry: dict[str, Any]) -> float:
            text = json.dumps(entry["arguments"], sort_keys=True, default=str)
            return difflib.SequenceMatcher(None, args, text).ratio()

        near = max(pool, key=likeness)
        shown = json.dumps(near["arguments"], sort_keys=True, default=str)[:200]
        what = "these arguments" if same else "this tool"
        return (
            f"no recorded call of {name}({args[:200]}){where}: the recording has no call with "
            f"{what}; the nearest recorded call is {near['name']}({shown}). Record again with "
            "MockTools.record(provider) to add it"
        )


def save_recording(tools: MockTools, path: Any) -> Path:
    """Write ``tools``' specs and calls as a recording file (see the module docstring)."""
    data = {
        "format": FORMAT,
        "version": VERSION,
        "specs": [s.model_dump(mode="json") for s in tools.specs],
        "calls": [
            _masked(
                {
                    "name": c.name,
                    "arguments": c.arguments,
                    "result": c.result,
                    "error": c.error,
                    "duration_s": c.duration_s,
                }
            )
            for c in tools.calls
        ],
    }
    return write_text_atomic(path, json.dumps(data, ensure_ascii=False, indent=1, default=str))


def load_replay(path: Any) -> ReplayTools:
    """A ``ReplayTools`` from a file written by ``save`` (a clear error for anything else)."""
    where = str(path)
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        raise GiskardValidationError(
            f"cannot read the tool recording {where}: {exc.strerror or exc}"
        ) from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SerializationError(f"{where} is not a tool recording (invalid JSON: {exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SerializationError(
            f"{where} is not a tool recording (expected a JSON object with format {FORMAT!r}, as "
            "written by MockTools.save)"
        )
    if data.get("version") != VERSION:
        raise SerializationError(
            f"{where} is a tool recording of version {data.get('version')!r}; this giskard-nb "
            f"reads version {VERSION}"
        )
    specs, calls = data.get("specs"), data.get("calls")
    if not isinstance(specs, list) or not isinstance(calls, list):
        raise SerializationError(f"{where}: `specs` and `calls` must be lists")
    entries = []
    for i, c in enumerate(calls):
        if not isinstance(c, dict) or not isinstance(c.get("name"), str) or not c["name"].strip():
            raise SerializationError(f"{where}: call #{i + 1} has no tool name")
        error = c.get("error")
        entries.append(
            {
                "name": c["name"].strip(),
                "arguments": c.get("arguments") if c.get("arguments") is not None else {},
                "result": c.get("result"),
                "error": None if error is None else str(error),
            }
        )
    try:
        parsed = [as_spec(s) for s in specs]
    except GiskardValidationError as exc:
        raise SerializationError(f"{where}: {exc}") from None
    return ReplayTools(parsed, entries, source=where)
