"""to_safe_data: any Python value becomes JSON-safe data, capped, with visible markers."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import math
import uuid
from decimal import Decimal
from pathlib import Path

from pydantic import BaseModel
from pydantic_core import from_json

from giskard_nb.core.sanitize import to_safe_data, valid_unicode, valid_unicode_data


def _round_trips(value):
    """The sanitized value is JSON that pydantic's strict reader accepts."""
    text = json.dumps(value, allow_nan=False)
    assert from_json(text) == json.loads(text)
    return value


class _Color(enum.Enum):
    RED = "red"


class _Model(BaseModel):
    name: str
    inner: object = None


@dataclasses.dataclass
class _Point:
    x: int
    y: object


class _BadRepr:
    def __repr__(self):
        raise RuntimeError("no repr for you")


def test_plain_data_is_unchanged():
    value = {"a": "b", "n": [1, 2.5, True, None], "nested": {"k": "v"}}
    assert to_safe_data(value) == value
    assert to_safe_data("hello") == "hello"


def test_unknown_objects_become_their_repr_and_a_raising_repr_is_guarded():
    out = _round_trips(to_safe_data({"o": object(), "bad": _BadRepr()}))
    assert out["o"].startswith("<object object at")
    assert out["bad"] == "<unrepresentable _BadRepr>"


def test_cycles_and_depth_are_cut_with_a_marker():
    cyc: dict = {}
    cyc["self"] = cyc
    lst: list = []
    lst.append(lst)
    deep: dict = {}
    cur = deep
    for _ in range(2000):
        cur["x"] = {}
        cur = cur["x"]
    out = _round_trips(to_safe_data({"cyc": cyc, "lst": lst, "deep": deep}, max_depth=10))
    assert out["cyc"] == {"self": "<cycle: dict>"}
    assert out["lst"] == ["<cycle: list>"]
    text = json.dumps(out["deep"])
    assert "<truncated: deeper than 10 levels>" in text
    assert text.count("{") <= 10


def test_shared_references_are_not_cycles():
    shared = {"k": 1}
    assert to_safe_data([shared, shared]) == [{"k": 1}, {"k": 1}]


def test_scalars_of_every_kind():
    out = _round_trips(
        to_safe_data(
            {
                "bytes": b"\x00\xff",
                "set": {3, 1, 2},
                "tuple": (1, "a"),
                "when": dt.datetime(2024, 5, 1, 12, 30, tzinfo=dt.UTC),
                "day": dt.date(2024, 5, 1),
                "dec": Decimal("1.50"),
                "uuid": uuid.UUID(int=1),
                "path": Path("/tmp/x"),
                "enum": _Color.RED,
                "nan": math.nan,
                "inf": math.inf,
                "ninf": -math.inf,
                "big": 10**5000,
                "model": _Model(name="m", inner=object()),
                "dc": _Point(1, {2}),
                1: "int key",
                (1, 2): "tuple key",
                None: "none key",
            }
        )
    )
    assert out["bytes"] == {"$bytes_base64": "AP8=", "length": 2}
    assert out["set"] == [1, 2, 3]
    assert out["tuple"] == [1, "a"]
    assert out["when"] == "2024-05-01T12:30:00+00:00"
    assert out["day"] == "2024-05-01"
    assert out["dec"] == "1.50"
    assert out["uuid"] == str(uuid.UUID(int=1))
    assert out["path"] == str(Path("/tmp/x"))
    assert out["enum"] == "red"
    assert (out["nan"], out["inf"], out["ninf"]) == ("NaN", "Infinity", "-Infinity")
    assert out["big"].startswith("<int of ")
    assert out["model"]["name"] == "m" and out["model"]["inner"].startswith("<object")
    assert out["dc"] == {"x": 1, "y": [2]}
    assert out["1"] == "int key" and out["(1, 2)"] == "tuple key" and out["None"] == "none key"


def test_lone_surrogates_are_replaced_and_pairs_kept():
    assert valid_unicode("a\ud800b") == "a\ufffdb"
    assert valid_unicode("\ud83d\ude00") == "\U0001f600"
    assert valid_unicode("ok é") == "ok é"
    out = _round_trips(to_safe_data({"k\udfff": ["x\ud800"]}))
    assert out == {"k\ufffd": ["x\ufffd"]}
    assert valid_unicode_data({"a": ["\ud800", 1]}) == {"a": ["\ufffd", 1]}
    json.dumps(out).encode("utf-8")


def test_valid_unicode_data_keeps_plain_data_and_objects_as_they_are():
    plain = {"messages": [{"role": "user", "content": "ok é \U0001f600"}], "n": (1, 2.5, None)}
    assert valid_unicode_data(plain) is plain  # nothing to replace: the same object back

    class Opaque:  # not plain data: kept, and the text around it still made valid
        pass

    thing = Opaque()
    out = valid_unicode_data({"k\udfff": [thing, "x\ud800"], 3: b"\xff"})
    assert out == {"k\ufffd": [thing, "x\ufffd"], 3: b"\xff"}
    cycle: list = []
    cycle.append(cycle)
    assert valid_unicode_data(cycle) is cycle
    turns = (m for m in [{"role": "user", "content": "hi"}])  # not read: the model reads it
    assert valid_unicode_data({"messages": turns})["messages"] is turns
    assert list(turns) == [{"role": "user", "content": "hi"}]


def test_one_cap_from_the_environment(monkeypatch):
    from giskard_nb.core.sanitize import LIMITS, limit_from_env

    monkeypatch.delenv("GISKARD_NB_MAX_STRING", raising=False)
    assert limit_from_env("max_string") == LIMITS.max_string
    monkeypatch.setenv("GISKARD_NB_MAX_STRING", "7")
    monkeypatch.setenv("GISKARD_NB_MAX_ITEMS", "3")
    assert limit_from_env("max_string") == 7 and limit_from_env("max_items") == 3
    assert limit_from_env("max_depth") == LIMITS.max_depth
    monkeypatch.setenv("GISKARD_NB_MAX_STRING", "0")
    assert limit_from_env("max_string") == 1
    monkeypatch.setenv("GISKARD_NB_MAX_STRING", "not a number")
    assert limit_from_env("max_string") == LIMITS.max_string


def test_sizes_are_capped_with_visible_markers():
    assert to_safe_data("a" * 20, max_string=5) == "aaaaa…<truncated: 15 more characters>"
    assert to_safe_data(list(range(10)), max_items=3) == [0, 1, 2, "<truncated: 7 more items>"]
    assert to_safe_data({str(i): i for i in range(5)}, max_items=2) == {
        "0": 0,
        "1": 1,
        "<truncated>": "3 more items",
    }
    out = to_safe_data(["x" * 10] * 100, max_total=35)
    assert out[-1] == "<truncated: 96 more items>"
    assert out[3].startswith("x") and "<truncated:" in out[3]
    assert len(json.dumps(out)) < 200
    blob = to_safe_data(b"\x01" * 100, max_string=8)
    assert blob["length"] == 100 and blob["truncated"] == "94 more bytes"


def test_caps_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("GISKARD_NB_MAX_STRING", "4")
    assert to_safe_data("abcdefgh") == "abcd…<truncated: 4 more characters>"
    assert to_safe_data("abcdefgh", max_string=100) == "abcdefgh"
    monkeypatch.setenv("GISKARD_NB_MAX_STRING", "not a number")
    assert to_safe_data("abcdefgh") == "abcdefgh"


def test_terminal_text_removes_what_a_terminal_acts_on() -> None:
    from giskard_nb.core.sanitize import terminal_text

    hostile = {
        "\x1b]0;pwned\x07title": "title",  # OSC: the window title, ended by BEL
        "\x1b]8;;https://evil.example\x1b\\Click\x1b]8;;\x1b\\": "Click",  # OSC 8 hyperlink, ST
        "a\x1b[8mhidden\x1b[0m\x1b[2K\x1b[1A b": "ahidden b",  # CSI: conceal, erase, cursor up
        "x\x9b31my \x9d0;t\x9c z": "xy  z",  # the 8-bit CSI and OSC
        "\x1bPq#0;2;0;0;0\x1b\\sixel": "sixel",  # DCS
        "\x1bc reset": " reset",  # a two-byte escape (RIS)
        "unterminated \x1b]0;abc": "unterminated 0;abc",  # nothing swallowed after it
        "bidi \u202eabc\u2066d\u2069": "bidi abcd",  # Trojan-source overrides and isolates
        "bell\x07 back\x08 cr\r del\x7f": "bell back cr del",
        "lone \ud800": "lone \ufffd",
    }
    for text, shown in hostile.items():
        assert terminal_text(text) == shown, repr(text)
    kept = "tab\there\nnext line, héllo 日本 👍🏽 \\x1b[31m written out"
    assert terminal_text(kept) == kept
    assert terminal_text(" a\n\tb  c\r\n", one_line=True) == "a b c"
