from __future__ import annotations

import pytest

from giskard_nb import CheckStatus, RegexMatching, StringMatching


@pytest.mark.parametrize(
    ("kwargs", "outputs", "status"),
    [
        ({"keyword": "Paris"}, "The capital is Paris.", CheckStatus.PASS),
        ({"keyword": "paris"}, "The capital is Paris.", CheckStatus.FAIL),
        ({"keyword": "paris", "case_sensitive": False}, "The capital is PARIS.", CheckStatus.PASS),
        ({"keyword": "ﬁle"}, "a file here", CheckStatus.PASS),  # NFKC: ligature ﬁ == fi
        ({"keyword": "ﬁle", "normalization_form": None}, "a file here", CheckStatus.FAIL),
        ({"keyword": "new  york"}, "in New   York\ncity", CheckStatus.FAIL),
        ({"keyword": "New York"}, "in New   York\ncity", CheckStatus.PASS),
        ({"keyword": "New York", "collapse_whitespace": False}, "New   York", CheckStatus.FAIL),
        ({"keyword": "x"}, {"not": "a string"}, CheckStatus.ERROR),
        ({"keyword": "x", "text_key": "trace.last.outputs.missing"}, {"a": 1}, CheckStatus.ERROR),
        (
            {"keyword": "Paris", "answer_key": "trace.last.outputs.a"},
            {"a": "Paris"},
            CheckStatus.PASS,
        ),
        ({"keyword": "Paris", "key": "trace.last.outputs.a"}, {"a": "Rome"}, CheckStatus.FAIL),
        ({"keyword_key": "trace.last.inputs"}, "say q please", CheckStatus.PASS),
        ({"keyword_key": "trace.last.metadata.kw"}, "anything", CheckStatus.ERROR),
        ({"keyword": "direct", "text": "a direct text"}, "ignored", CheckStatus.PASS),
    ],
)
def test_string_matching(trace_of, kwargs, outputs, status):
    result = StringMatching(**kwargs).run(trace_of(outputs))
    assert result.status is status, result.message
    assert result.message


@pytest.mark.parametrize(
    ("kwargs", "outputs", "status"),
    [
        ({"pattern": r"\b\d{3}-\d{4}\b"}, "call 555-1234 now", CheckStatus.PASS),
        ({"pattern": r"^\d+$"}, "abc", CheckStatus.FAIL),
        ({"pattern": r"(?i)paris"}, "PARIS", CheckStatus.PASS),
        ({"pattern_key": "trace.last.inputs"}, "xx q xx", CheckStatus.PASS),
        ({"pattern_key": "trace.last.metadata.p"}, "x", CheckStatus.ERROR),
        ({"pattern": "a"}, 42, CheckStatus.ERROR),
    ],
)
def test_regex_matching(trace_of, kwargs, outputs, status):
    assert RegexMatching(**kwargs).run(trace_of(outputs)).status is status


def test_regex_invalid_pattern_from_a_key_is_an_error(trace_of):
    result = RegexMatching(pattern_key="trace.last.inputs").run(trace_of("x", inputs="("))
    assert result.errored and "invalid regular expression" in result.message


def test_regex_timeout_is_an_error(trace_of):
    check = RegexMatching(pattern=r"(a|aa)+$", match_timeout_seconds=0.05)
    result = check.run(trace_of("a" * 60 + "b"))
    assert result.errored and "did not finish" in result.message
