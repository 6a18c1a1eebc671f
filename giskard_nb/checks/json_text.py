"""Reading JSON from agent output in bounded time and stack: any valid JSON text is read as valid.

``json.loads`` recurses once per nesting level (a valid document nested ~1,000 deep raises
``RecursionError``) and refuses integers over 4,300 digits (``ValueError``). ``load_json`` gives the
parsed value of documents nested at most ``MAX_PARSE_DEPTH`` levels (integers of any length: very long
ones as ``Decimal``); deeper documents are checked by ``json_syntax_depth``, an iterative scanner
(linear time, constant stack), and reported valid or invalid without a parsed value.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

__all__ = ["MAX_PARSE_DEPTH", "JsonTooDeep", "json_syntax_depth", "load_json"]

#: Deepest nesting parsed into Python values (and so checked against a schema and kept in details).
MAX_PARSE_DEPTH = 100
_MAX_INT_DIGITS = 4000  # below Python's 4,300-digit limit on int(str)

_WS = re.compile(r"[ \t\n\r]*+")
# One token after optional whitespace. The string body is an unrolled loop (no alternation inside a
# repetition), so each token is read in time linear in its length.
_TOKEN = re.compile(
    r"""[ \t\n\r]*+(?:
      (?P<open>[\[{]) | (?P<close>[\]}]) | (?P<comma>,) | (?P<colon>:)
    | (?P<string>"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*")
    | (?P<scalar>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?
                 |true|false|null|NaN|Infinity|-Infinity)
    )""",
    re.VERBOSE,
)
_PAIRS = {"]": "[", "}": "{"}


class JsonTooDeep(Exception):
    """Valid JSON nested deeper than ``MAX_PARSE_DEPTH``: ``depth`` levels (no parsed value)."""

    def __init__(self, depth: int):
        super().__init__(f"valid JSON nested {depth} levels deep")
        self.depth = depth


def _parse_int(text: str) -> int | Decimal:
    return int(text) if len(text) <= _MAX_INT_DIGITS else Decimal(text)


def load_json(text: str | bytes) -> Any:
    """The parsed value of a JSON text (``json.JSONDecodeError`` if it is not JSON, ``JsonTooDeep``
    if it is valid but nested deeper than ``MAX_PARSE_DEPTH``)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if text.count("[") + text.count("{") > MAX_PARSE_DEPTH:  # maybe deep: measure first
        depth = json_syntax_depth(text)
        if depth > MAX_PARSE_DEPTH:
            raise JsonTooDeep(depth)
    return json.loads(text, parse_int=_parse_int)


def json_syntax_depth(text: str) -> int:
    """The nesting depth of a JSON text, read iteratively (``json.JSONDecodeError`` if it is not JSON,
    with the position, as ``json.loads`` reports it)."""
    stack: list[str] = []
    expect = "value"  # value | first_value | first_key | key | colon | after
    deepest, pos, end = 0, 0, len(text)
    while True:
        m = _TOKEN.match(text, pos)
        if m is None:
            pos = _WS.match(text, pos).end()
            if pos == end and expect == "after" and not stack:
                return deepest
            raise json.JSONDecodeError(_expected(expect, stack), text, pos)
        kind = m.lastgroup or ""
        token, start, pos = m.group(kind), m.start(kind), m.end()
        if expect == "after" and not stack:
            raise json.JSONDecodeError("Extra data", text, start)
        if kind == "close":
            ok = stack and stack[-1] == _PAIRS[token]
            ok = ok and (
                expect == "after" or expect == f"first_{'value' if token == ']' else 'key'}"
            )
            if not ok:
                raise json.JSONDecodeError(_expected(expect, stack), text, start)
            stack.pop()
            expect = "after"
        elif expect in ("value", "first_value"):
            if kind == "open":
                stack.append(token)
                deepest = max(deepest, len(stack))
                expect = "first_value" if token == "[" else "first_key"
            elif kind in ("string", "scalar"):
                expect = "after"
            else:
                raise json.JSONDecodeError("Expecting value", text, start)
        elif expect in ("key", "first_key"):
            if kind != "string":
                raise json.JSONDecodeError(_expected(expect, stack), text, start)
            expect = "colon"
        elif expect == "colon":
            if kind != "colon":
                raise json.JSONDecodeError("Expecting ':' delimiter", text, start)
            expect = "value"
        elif kind == "comma" and stack:  # after a value inside a container
            expect = "key" if stack[-1] == "{" else "value"
        else:
            raise json.JSONDecodeError(_expected(expect, stack), text, start)


def _expected(expect: str, stack: list[str]) -> str:
    if expect == "colon":
        return "Expecting ':' delimiter"
    if expect in ("key", "first_key"):
        return "Expecting property name enclosed in double quotes"
    if expect == "after" and stack:
        return f"Expecting ',' delimiter or '{']' if stack[-1] == '[' else '}'}'"
    return "Expecting value" if expect != "after" else "Extra data"
