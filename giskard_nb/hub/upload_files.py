"""Reading upload files one item at a time: ``.jsonl`` (streamed line by line), ``.json``, ``.csv``.

Files are UTF-8, with or without a byte-order mark. JSONL lines end with ``\\n`` (or ``\\r\\n``) only:
U+0085, U+2028 and U+2029 inside a JSON string are text, not line ends (``str.splitlines`` would cut
a line there). A JSONL file is never read whole: items are yielded as they are parsed, so an upload's
memory does not grow with the file. CSV rows become dicts keyed by the header (see
``giskard_nb.hub.upload`` for how a row becomes a test case).
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from giskard_nb.errors import GiskardValidationError

__all__ = ["FileError", "LINE_SEPARATORS", "dump_jsonl", "iter_items"]

#: Characters ``str.splitlines`` treats as line ends besides ``\n``/``\r``; escaped in exports.
LINE_SEPARATORS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
_ESCAPES = str.maketrans({c: f"\\u{ord(c):04x}" for c in LINE_SEPARATORS})
_SUFFIXES = (".jsonl", ".json", ".csv")
#: CSV columns whose cells may hold JSON (a list of messages, checks, an object...).
_JSON_CELLS = ("messages", "checks", "metadata", "demo_output", "chat_history")


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
    if isinstance(data, str | os.PathLike):
        path = Path(data).expanduser()
        if not path.is_file():
            raise GiskardValidationError(
                f"no file at {str(path)!r}: give the path of a .jsonl, .json or .csv file, or a "
                "list of dicts"
            )
        return _from_path(path), f"file {path.name!r}"
    if hasattr(data, "read"):
        name = Path(str(getattr(data, "name", "") or "data.jsonl"))
        text = data.read()
        if isinstance(text, bytes):
            text = _decode(text, name.name)
        handle = io.StringIO(text.removeprefix("\ufeff"), newline="")
        return _from_handle(handle, name.suffix.lower(), name.name), f"file {name.name!r}"
    if isinstance(data, dict):
        data = [data]
    if isinstance(data, Iterable) and not isinstance(data, str | bytes):
        return ((f"item {i}", item) for i, item in enumerate(data, 1)), "the data"
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


def _from_path(path: Path) -> Iterator[tuple[str, Any]]:
    # newline="": lines end at \n, \r\n or \r only, and csv sees quoted newlines intact
    with path.open(encoding="utf-8-sig", newline="") as handle:
        try:
            yield from _from_handle(handle, path.suffix.lower(), path.name)
        except UnicodeDecodeError as exc:
            raise GiskardValidationError(
                f"{path.name} was rejected, nothing was imported: it is not UTF-8 text ({exc.reason}) "
                "— save the file as UTF-8"
            ) from None


def _from_handle(handle: IO[str], suffix: str, name: str) -> Iterator[tuple[str, Any]]:
    if suffix not in _SUFFIXES:
        head = handle.read(4096)
        rest = handle.read() if head.lstrip().startswith("[") else None
        if rest is not None:
            return _from_json(head + rest, name)
        handle = _Chained(head, handle)
        suffix = ".jsonl"
    if suffix == ".json":
        return _from_json(handle.read(), name)
    if suffix == ".csv":
        return _from_csv(handle, name)
    return _from_jsonl(handle)


def _from_jsonl(handle: Iterable[str]) -> Iterator[tuple[str, Any]]:
    for number, line in enumerate(handle, 1):
        if not line.strip():
            continue
        try:
            yield f"line {number}", json.loads(line)
        except json.JSONDecodeError as exc:
            yield (
                f"line {number}",
                FileError(f"line {number}", f"not valid JSON ({exc.msg}, column {exc.colno})"),
            )


def _from_json(text: str, name: str) -> Iterator[tuple[str, Any]]:
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GiskardValidationError(
            f"{name} was rejected, nothing was imported: line {exc.lineno}: not valid JSON "
            f"({exc.msg}, column {exc.colno})"
        ) from None
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


def _from_csv(handle: IO[str], name: str) -> Iterator[tuple[str, Any]]:
    reader = csv.DictReader(handle)
    header = [h.strip() for h in reader.fieldnames or []]
    if not header or not any(header):
        raise GiskardValidationError(f"{name} was rejected: the CSV file has no header row")
    reader.fieldnames = header
    for row in reader:
        location = f"line {reader.line_num}"
        if None in row:  # more cells than header columns
            yield location, FileError(location, f"has more cells than the {len(header)} columns")
            continue
        item: dict[str, Any] = {}
        for key, value in row.items():
            if not key or value is None or value == "":
                continue
            item[key] = _cell(key, value)
        if item:
            yield location, item


def _cell(key: str, value: str) -> Any:
    if key in _JSON_CELLS and value.lstrip()[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    if key == "tags":
        return [t.strip() for t in value.split(",") if t.strip()]
    return value


class _Chained:
    """Lines of ``head`` + the rest of ``handle`` (after peeking at a file of unknown type)."""

    def __init__(self, head: str, handle: IO[str]):
        self._head, self._handle = head, handle

    def __iter__(self) -> Iterator[str]:
        pending = ""
        for line in io.StringIO(self._head, newline=""):
            pending = line
            if line.endswith(("\n", "\r")):
                yield line
                pending = ""
        first = next(iter(self._handle), "")
        if pending or first:
            yield pending + first
        yield from self._handle


def dump_jsonl(items: Iterable[dict[str, Any]], handle: IO[str]) -> int:
    """Write one JSON object per line (UTF-8 text kept, line separators escaped); the count."""
    count = 0
    for item in items:
        handle.write(json.dumps(item, ensure_ascii=False).translate(_ESCAPES) + "\n")
        count += 1
    return count
