"""A static scan of tool definitions (OWASP LLM01/LLM06): what a tool list says before anything is called.

``scan_tool_definitions(specs, previous=None)`` reads ``ToolSpec`` objects (or OpenAI, Anthropic or
MCP tool dicts) and returns ``ToolFinding`` objects, most severe first, for:

- ``hidden_unicode``: invisible characters in a name, description or schema: Unicode tag characters
  (U+E0000–U+E007F, which smuggle ASCII a model reads and a person does not; the evidence decodes
  them), zero-width characters and bidirectional overrides;
- ``instruction``: instruction-like text aimed at the model in a description or schema, in English,
  French, Spanish, German, Italian and Portuguese: overriding earlier instructions, hiding things
  from the user, sending data to a URL, reading credentials, ``<IMPORTANT>``-style markers;
- ``shadowing``: the same or a confusable name (homoglyphs, case, separators) on two servers, and a
  tool whose description names another server's tool (the tool-shadowing attack);
- ``changed_definition``: a tool whose definition (the sha256 of its canonical JSON) differs from the
  one recorded in ``previous`` (a "rug pull"), and ``new_tool`` for one that was not there.

``previous`` is a dict of ``fingerprints(specs)`` or the path of a file written by
``save_fingerprints``. Everything read is untrusted: the evidence is escaped and cut, never executed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from giskard_nb.core.files import write_text_atomic
from giskard_nb.core.tools import ToolSpec
from giskard_nb.errors import GiskardValidationError

__all__ = [
    "ToolFinding",
    "as_specs",
    "fingerprint",
    "fingerprints",
    "load_fingerprints",
    "save_fingerprints",
    "scan_tool_definitions",
]

Severity = Literal["high", "medium", "low"]
_RANK = {"high": 0, "medium": 1, "low": 2}
#: The most specs read and the longest evidence kept.
MAX_SPECS = 5000
MAX_EVIDENCE = 240


@dataclass(frozen=True)
class ToolFinding:
    """One problem in a tool definition: how bad (``severity``), what (``kind``), where (``tool``,
    ``server``, ``location``), the ``evidence`` (escaped) and ``fix`` (what to do about it)."""

    severity: Severity
    kind: str
    tool: str
    server: str | None
    evidence: str
    fix: str
    location: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The finding as a plain dict (JSON-ready)."""
        return asdict(self)

    def __str__(self) -> str:
        where = f"{self.server}/{self.tool}" if self.server else self.tool
        return f"[{self.severity}] {self.kind} in {where} {self.location}: {self.evidence}".strip()


# -- reading specs ---------------------------------------------------------------------------------


def as_specs(specs: Any) -> list[ToolSpec]:
    """``ToolSpec`` objects from specs or OpenAI / Anthropic / MCP tool definitions (dicts or SDK
    objects); a clear ``GiskardValidationError`` for anything else."""
    if isinstance(specs, ToolSpec | Mapping) or not isinstance(specs, Iterable):
        specs = [specs]
    out = []
    for i, item in enumerate(specs):
        if i >= MAX_SPECS:
            raise GiskardValidationError(
                f"more than {MAX_SPECS} tool definitions: scan them in smaller batches"
            )
        out.append(_spec(item, i))
    return out


def _spec(item: Any, index: int) -> ToolSpec:
    if isinstance(item, ToolSpec):
        return item
    dump = getattr(item, "model_dump", None)
    data = dump() if callable(dump) and not isinstance(item, type) else item
    if not isinstance(data, Mapping):
        raise GiskardValidationError(
            f"tool definition #{index} is a {type(item).__name__}: give ToolSpec objects or tool dicts "
            "(OpenAI {'type': 'function', 'function': {...}}, Anthropic or MCP {'name', ...})"
        )
    try:
        if "inputSchema" in data or "annotations" in data:
            return ToolSpec.from_mcp(data)
        if "function" in data or "parameters" in data:
            return ToolSpec.from_openai(data)
        if "input_schema" in data and "side_effect" not in data:
            return ToolSpec.from_anthropic(data)
        return ToolSpec.model_validate(dict(data))
    except ValueError as exc:
        raise GiskardValidationError(
            f"tool definition #{index} ({str(data.get('name'))[:60]!r}) is not a valid tool: {exc}"
        ) from None


# -- fingerprints ----------------------------------------------------------------------------------


def _key(spec: ToolSpec) -> str:
    return f"{spec.server}/{spec.name}" if spec.server else spec.name


def fingerprint(spec: ToolSpec) -> str:
    """The sha256 of the spec's canonical JSON (sorted keys, no spaces, UTF-8)."""
    data = spec.model_dump(mode="json")
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def fingerprints(specs: Any) -> dict[str, str]:
    """``{"server/name" (or "name"): sha256}`` for every spec."""
    return {_key(s): fingerprint(s) for s in as_specs(specs)}


def save_fingerprints(specs: Any, path: str | os.PathLike[str]) -> Path:
    """Write the fingerprints of ``specs`` to ``path`` (JSON, atomically); the path."""
    text = json.dumps({"tool_fingerprints": fingerprints(specs)}, indent=2, sort_keys=True)
    return write_text_atomic(path, text + "\n")


def load_fingerprints(previous: Any) -> dict[str, str]:
    """Fingerprints from a dict or a file written by ``save_fingerprints``."""
    if isinstance(previous, str | os.PathLike):
        path = Path(previous).expanduser()
        try:
            raw = path.read_text(encoding="utf-8")
            previous = json.loads(raw)
        except OSError as exc:
            raise GiskardValidationError(
                f"cannot read the fingerprint file {str(path)!r} ({exc.strerror or exc}): give the "
                "path save_fingerprints() wrote, or None for a first run"
            ) from None
        except ValueError:
            raise GiskardValidationError(
                f"{str(path)!r} is not JSON: give a file written by save_fingerprints()"
            ) from None
    if isinstance(previous, Mapping) and isinstance(previous.get("tool_fingerprints"), Mapping):
        previous = previous["tool_fingerprints"]
    if not isinstance(previous, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) and re.fullmatch(r"[0-9a-f]{64}", v)
        for k, v in previous.items()
    ):
        raise GiskardValidationError(
            "previous fingerprints are a {'tool name': 'sha256 hex'} dict or a file written by "
            "save_fingerprints()"
        )
    return dict(previous)


# -- the scan --------------------------------------------------------------------------------------


def scan_tool_definitions(specs: Any, previous: Any = None) -> list[ToolFinding]:
    """Findings in the tool definitions ``specs`` (see the module docstring), most severe first.

    ``previous``: fingerprints of an earlier run (``fingerprints(...)`` dict or a
    ``save_fingerprints`` file) to report changed and new definitions.
    """
    from giskard_nb.tools.static_rules import hidden_unicode, instructions, shadowing

    tools = as_specs(specs)
    findings: list[ToolFinding] = []
    for spec in tools:
        for location, text in _strings(spec):
            findings += hidden_unicode(spec, location, text)
            findings += instructions(spec, location, text)
    findings += shadowing(tools)
    if previous is not None:
        findings += _changes(tools, load_fingerprints(previous))
    unique = list(dict.fromkeys(findings))
    return sorted(unique, key=lambda f: (_RANK[f.severity], f.server or "", f.tool, f.kind))


def _strings(spec: ToolSpec) -> list[tuple[str, str]]:
    """Every text a model reads in a spec, with where it is: the name, the description, and each key
    and string of the input schema."""
    found = [("name", spec.name), ("description", spec.description)]

    def walk(value: Any, path: str, depth: int) -> None:
        if depth > 32 or len(found) > 2000:
            return
        if isinstance(value, str):
            found.append((path, value))
        elif isinstance(value, Mapping):
            for k, v in value.items():
                found.append((f"{path}.{k} (key)", str(k)))
                walk(v, f"{path}.{k}", depth + 1)
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{path}[{i}]", depth + 1)

    walk(spec.input_schema, "input_schema", 0)
    return [(where, text) for where, text in found if text]


def _changes(tools: list[ToolSpec], previous: dict[str, str]) -> list[ToolFinding]:
    findings = []
    for spec in tools:
        key, now = _key(spec), fingerprint(spec)
        before = previous.get(key)
        if before is None:
            findings.append(
                ToolFinding(
                    "low",
                    "new_tool",
                    spec.name,
                    spec.server,
                    f"{key!r} was not in the previous tool list",
                    "review the new tool's definition, then save the fingerprints again",
                )
            )
        elif before != now:
            findings.append(
                ToolFinding(
                    "high",
                    "changed_definition",
                    spec.name,
                    spec.server,
                    f"sha256 {before[:12]}… became {now[:12]}…",
                    "the definition changed since it was approved (a 'rug pull' changes a tool after "
                    "it is trusted): review the new description and schema, then save the "
                    "fingerprints again",
                )
            )
    return findings
