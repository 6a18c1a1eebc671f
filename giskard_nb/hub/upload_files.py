"""Reading upload files one item at a time: ``.jsonl`` (streamed line by line), ``.json``, ``.csv``.

Files are UTF-8, with or without a byte-order mark. JSONL lines end with ``\\n`` (or ``\\r\\n``) only:
U+0085, U+2028 and U+2029 inside a JSON string are text, not line ends (``str.splitlines`` would cut
a line there). A JSONL file is never read whole: items are yielded as they are parsed, so an upload's
memory does not grow with the file. CSV rows become dicts keyed by the header (see
``giskard_nb.hub.upload`` for how a row becomes a test case).

Uploads are untrusted and bounded (``UploadLimits``, from ``GISKARD_NB_UPLOAD_MAX_ITEM_MB``,
``GISKARD_NB_UPLOAD_MAX_JSON_MB``, ``GISKARD_NB_UPLOAD_MAX_DEPTH``): one item (a JSONL line, a CSV
row's cell) holds at most ``max_item_bytes`` and is never read whole past that; a ``.json`` file (read
at once) or an open file at most ``max_json_bytes``; an item nests at most ``max_depth`` levels; a
number has at most 4,300 digits; an object names each key once. Each breach is an error naming the
line or item, never a ``RecursionError`` or a memory blow-up. CSV fields may be as large as one item.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from giskard_nb.errors import GiskardValidationError

__all__ = ["FileError", "LINE_SEPARATORS", "UploadLimits", "dump_jsonl", "iter_items", "parse_json"]

#: Characters ``str.splitlines`` treats as line ends besides ``\n``/``\r``; escaped in exports.
LINE_SEPARATORS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
_ESCAPES = str.maketrans({c: f"\\u{ord(c):04x}" for c in LINE_SEPARATORS})
_SUFFIXES = (".jsonl", ".json", ".csv")
#: CSV columns whose cells may hold JSON (a list of messages, checks, an object...).
_JSON_CELLS = (
    "messages",
    "checks",
    "metadata",
    "demo_output",
    "chat_history",
    "expected_tool_calls",
)


_MB = 1024 * 1024
_CHUNK = 64 * 1024
_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class UploadLimits:
    """How much one upload may hold (see the module's docstring)."""

    max_item_bytes: int = 16 * _MB
    max_json_bytes: int = 64 * _MB
    max_depth: int = 64

    @classmethod
    def from_env(cls) -> UploadLimits:
        def number(name: str, default: int, scale: int = 1) -> int:
            raw = os.environ.get(f"GISKARD_NB_UPLOAD_{name}", "").strip()
            try:
                return max(1, int(float(raw) * scale)) if raw else default
            except ValueError:
                raise GiskardValidationError(
                    f"GISKARD_NB_UPLOAD_{name} must be a number, got {raw!r}"
                ) from None

        base = cls()
        return cls(
            max_item_bytes=number("MAX_ITEM_MB", base.max_item_bytes, _MB),
            max_json_bytes=number("MAX_JSON_MB", base.max_json_bytes, _MB),
            max_depth=number("MAX_DEPTH", base.max_depth),
        )


class FileError(Exception):
    """A line or item that cannot be parsed at all (not valid JSON); the upload reports it."""

    def __init__(self, location: str, message: str):
        self.location, self.message = location, message
        super().__init__(f"{location}: {message}")


def iter_items(data: Any) -> tuple[Iterator[tuple[str, Any]], str]:
    """``(iterator of (location, raw item or FileError), description of the source)``.

    ``data``: a list of dicts (or one dict), a path, or an open file (text or bytes). Raises
    ``GiskardValidationError`` for input that is not readable at all (no such file, a broken .json).
    """
    limits = UploadLimits.from_env()
    if isinstance(data, str | os.PathLike):
        path = Path(data).expanduser()
        if not path.is_file():
            raise GiskardValidationError(
                f"no file at {str(path)!r}: give the path of a .jsonl, .json or .csv file, or a "
                "list of dicts"
            )
        return _from_path(path, limits), f"file {path.name!r}"
    if hasattr(data, "read"):
        name = Path(str(getattr(data, "name", "") or "data.jsonl"))
        text = data.read(limits.max_json_bytes + 1)
        if len(text) > limits.max_json_bytes:
            raise GiskardValidationError(
                f"{name.name} was rejected, nothing was imported: an open file is read whole and "
                f"may hold at most {_size(limits.max_json_bytes)}; upload it by path (a .jsonl file "
                "is streamed) or raise GISKARD_NB_UPLOAD_MAX_JSON_MB"
            )
        if isinstance(text, bytes):
            text = _decode(text, name.name)
        handle = io.StringIO(text.removeprefix("\ufeff"), newline="")
        items = _from_handle(handle, name.suffix.lower(), name.name, limits)
        return items, f"file {name.name!r}"
    if isinstance(data, dict):
        data = [data]
    if isinstance(data, Iterable) and not isinstance(data, str | bytes):
        return _checked(enumerate(data, 1), limits), "the data"
    raise GiskardValidationError(
        "upload data must be a list of dicts, the path of a .jsonl/.json/.csv file or an open file, "
        f"got {type(data).__name__}"
    )


def _decode(raw: bytes, name: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GiskardValidationError(
            f"{name} was rejected, nothing was imported: byte {exc.start} is not UTF-8 — save the "
            "file as UTF-8"
        ) from None


def _checked(items: Iterable[tuple[int, Any]], limits: UploadLimits) -> Iterator[tuple[str, Any]]:
    for number, item in items:
        location = f"item {number}"
        problem = _too_deep(item, limits.max_depth)
        yield location, FileError(location, problem) if problem else item


def _from_path(path: Path, limits: UploadLimits) -> Iterator[tuple[str, Any]]:
    suffix = path.suffix.lower()
    if suffix == ".json" and path.stat().st_size > limits.max_json_bytes:
        raise GiskardValidationError(
            f"{path.name} was rejected, nothing was imported: a .json file is read whole and may "
            f"hold at most {_size(limits.max_json_bytes)} (this one: {_size(path.stat().st_size)}); "
            "write it as .jsonl (one test case a line, streamed) or raise GISKARD_NB_UPLOAD_MAX_JSON_MB"
        )
    # newline="": lines end at \n, \r\n or \r only, and csv sees quoted newlines intact
    with path.open(encoding="utf-8-sig", newline="") as handle:
        try:
            yield from _from_handle(handle, suffix, path.name, limits)
        except UnicodeDecodeError as exc:
            raise GiskardValidationError(
                f"{path.name} was rejected, nothing was imported: it is not UTF-8 text ({exc.reason}) "
                "— save the file as UTF-8"
            ) from None


def _from_handle(
    handle: IO[str], suffix: str, name: str, limits: UploadLimits
) -> Iterator[tuple[str, Any]]:
    head = ""
    if suffix not in _SUFFIXES:
        head = handle.read(4096)
        if head.lstrip().startswith("["):
            return _from_json(_read_json(handle, head, name, limits), name, limits)
        suffix = ".jsonl"
    if suffix == ".json":
        return _from_json(_read_json(handle, head, name, limits), name, limits)
    if suffix == ".csv":
        return _from_csv(handle, name, limits)
    return _from_jsonl(handle, head, limits)


def _read_json(handle: IO[str], head: str, name: str, limits: UploadLimits) -> str:
    text = head + handle.read(limits.max_json_bytes + 1 - len(head))
    if len(text) > limits.max_json_bytes:
        raise GiskardValidationError(
            f"{name} was rejected, nothing was imported: a .json file is read whole and may hold at "
            f"most {_size(limits.max_json_bytes)}; write it as .jsonl (streamed) or raise "
            "GISKARD_NB_UPLOAD_MAX_JSON_MB"
        )
    return text


def _lines(handle: IO[str], head: str, limit: int) -> Iterator[str | None]:
    """The lines of ``head`` + ``handle`` (ends: \\n, \\r\\n, \\r), read in chunks; a line longer
    than ``limit`` characters is skipped without being kept and yields ``None``."""
    pending, skipping = "", False
    chunks = itertools.chain([head] if head else [], iter(lambda: handle.read(_CHUNK), ""))
    for chunk in chunks:
        pending += chunk
        start = 0
        for end in _LINE_END.finditer(pending):
            if end.group() == "\r" and end.end() == len(pending):
                break  # maybe the first half of \r\n: decide with the next chunk
            if skipping:
                skipping = False
            else:
                yield pending[start : end.start()]
            start = end.end()
        pending = pending[start:]
        if len(pending) > limit:
            if not skipping:
                yield None
            pending, skipping = "", True
    if pending and not skipping:
        yield pending


def _from_jsonl(handle: IO[str], head: str, limits: UploadLimits) -> Iterator[tuple[str, Any]]:
    for number, line in enumerate(_lines(handle, head, limits.max_item_bytes), 1):
        location = f"line {number}"
        if line is None:
            yield location, FileError(location, _too_big(limits))
        elif line.strip():
            yield location, parse_json(line, location, limits)


def parse_json(text: str, location: str, limits: UploadLimits | None = None) -> Any:
    """``text`` parsed as JSON, or a ``FileError`` saying why not: invalid JSON, a key given twice,
    a number of over 4,300 digits, nesting deeper than ``limits.max_depth``."""
    limits = limits or UploadLimits.from_env()
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}: " if "\n" in text or location == "the file" else ""
        return FileError(location, f"{where}not valid JSON ({exc.msg}, column {exc.colno})")
    except RecursionError:
        return FileError(location, f"nested deeper than {limits.max_depth} levels")
    except _DuplicateKey as exc:
        return FileError(location, f"the key {exc.args[0]!r} appears twice in one object")
    except ValueError as exc:  # an integer too long to convert
        if "digits" not in str(exc):
            raise
        return FileError(location, "a number has more than 4,300 digits: write it as a string")
    problem = _too_deep(value, limits.max_depth)
    return FileError(location, problem) if problem else value


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _too_deep(value: Any, max_depth: int) -> str | None:
    """Why ``value`` nests too deep (an explicit stack: no recursion), or ``None``."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            if depth > max_depth:
                return (
                    f"nested deeper than {max_depth} levels (raise GISKARD_NB_UPLOAD_MAX_DEPTH "
                    "if this is expected)"
                )
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return None


def _too_big(limits: UploadLimits) -> str:
    return (
        f"longer than {_size(limits.max_item_bytes)} (one test case); shorten it or raise "
        "GISKARD_NB_UPLOAD_MAX_ITEM_MB"
    )


def _size(n: int) -> str:
    return f"{n / _MB:.0f} MB" if n >= _MB else f"{n:,} bytes"


def _from_json(text: str, name: str, limits: UploadLimits) -> Iterator[tuple[str, Any]]:
    payload = parse_json(text, "the file", limits)
    if isinstance(payload, FileError):
        raise GiskardValidationError(
            f"{name} was rejected, nothing was imported: {payload.message}"
        )
    if isinstance(payload, dict):
        for key in ("test_cases", "items", "data"):
            if isinstance(payload.get(key), list):
                payload = payload[key]
                break
        else:
            payload = [payload]
    if not isinstance(payload, list):
        raise GiskardValidationError(
            f"{name} was rejected: a .json file holds a list of test cases (or one object)"
        )
    return ((f"item {i}", item) for i, item in enumerate(payload, 1))


def _from_csv(handle: IO[str], name: str, limits: UploadLimits) -> Iterator[tuple[str, Any]]:
    # a cell may be as large as one item (the csv module's default is 128 KiB: an honest long answer)
    csv.field_size_limit(max(csv.field_size_limit(), limits.max_item_bytes))
    reader = csv.DictReader(handle)
    header = [h.strip() for h in reader.fieldnames or []]
    if not header or not any(header):
        raise GiskardValidationError(f"{name} was rejected: the CSV file has no header row")
    reader.fieldnames = header
    rows = iter(reader)
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except csv.Error as exc:
            location = f"line {reader.line_num}"
            raise GiskardValidationError(
                f"{name} was rejected, nothing was imported: {location}: not valid CSV ({exc}); "
                f"a cell may hold at most {_size(limits.max_item_bytes)} "
                "(GISKARD_NB_UPLOAD_MAX_ITEM_MB)"
            ) from None
        location = f"line {reader.line_num}"
        if None in row:  # more cells than header columns
            yield location, FileError(location, f"has more cells than the {len(header)} columns")
            continue
        item: dict[str, Any] = {}
        for key, value in row.items():
            if not key or value is None or value == "":
                continue
            item[key] = _cell(key, value, f"{location}, column {key!r}", limits)
        bad = next((v for v in item.values() if isinstance(v, FileError)), None)
        if bad is not None:
            yield location, bad
        elif item:
            yield location, item


def _cell(key: str, value: str, location: str, limits: UploadLimits) -> Any:
    if key in _JSON_CELLS and value.lstrip()[:1] in ("[", "{"):
        parsed = parse_json(value, location, limits)
        if isinstance(parsed, FileError) and "not valid JSON" in parsed.message:
            return value  # text that merely starts with a bracket
        return parsed
    if key == "tags":
        return [t.strip() for t in value.split(",") if t.strip()]
    return value


def dump_jsonl(items: Iterable[dict[str, Any]], handle: IO[str]) -> int:
    """Write one JSON object per line (UTF-8 text kept, line separators escaped); the count."""
    count = 0
    for item in items:
        handle.write(json.dumps(item, ensure_ascii=False).translate(_ESCAPES) + "\n")
        count += 1
    return count
