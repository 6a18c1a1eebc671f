"""giskard-checks' public helpers at their ported import paths: ``checks.export`` (``to_junit_xml``,
``to_hub_format``), ``checks.utils.normalization`` and ``checks.settings.get_settings``."""

from __future__ import annotations

import json
import unicodedata
import xml.etree.ElementTree as ET
from collections import defaultdict, namedtuple

import pytest

from giskard_nb import Equals, Scenario, Suite, SuiteResult
from giskard_nb.checks.export import to_hub_format
from giskard_nb.checks.export.hub import to_hub_format as hub_to_hub_format
from giskard_nb.checks.export.junit import to_junit_xml
from giskard_nb.checks.settings import get_settings, set_default_generator
from giskard_nb.checks.utils.normalization import normalize_data, normalize_string
from giskard_nb.errors import GiskardValidationError

NFD_CAFE = "cafe\u0301"


class Opaque:
    """An agent's own object in a trace: JSON cannot hold it."""

    def __repr__(self) -> str:
        return "<Opaque order=1234>"


def _suite_result() -> SuiteResult:
    passing = Scenario("passes").interact("q", "a").check(Equals(expected_value="a"))
    failing = Scenario("fails").interact("q", {"obj": Opaque()}).check(Equals(expected_value="b"))
    return Suite(name="helpers", scenarios=[passing, failing]).run_sync()


def test_to_junit_xml_function_matches_the_method_and_writes_nested_paths(tmp_path):
    result = _suite_result()
    target = tmp_path / "reports" / "ci" / "junit.xml"
    xml = to_junit_xml(result, path=target)
    assert target.read_text(encoding="utf-8") == xml
    root = ET.fromstring(xml)
    assert (root.attrib["tests"], root.attrib["failures"]) == ("2", "1")
    assert [c.attrib["name"] for c in root.iter("testcase")] == ["passes", "fails"]
    method = ET.fromstring(result.to_junit_xml())
    assert method.attrib["assertions"] == root.attrib["assertions"] == "2"
    one = ET.fromstring(to_junit_xml(result.results[1]))  # a scenario: a suite of one
    assert (one.attrib["name"], one.attrib["tests"], one.attrib["failures"]) == ("fails", "1", "1")


def test_export_functions_name_what_they_take():
    with pytest.raises(GiskardValidationError, match="to_junit_xml takes a SuiteResult or a Scen"):
        to_junit_xml({"results": []})
    with pytest.raises(GiskardValidationError, match="to_hub_format takes a SuiteResult"):
        to_hub_format("not a result")


def test_to_hub_format_is_plain_json_with_counts_and_safe_values():
    result = _suite_result()
    payload = to_hub_format(result)
    assert hub_to_hub_format is to_hub_format
    assert payload == result.to_hub_format()
    assert json.loads(json.dumps(payload)) == payload  # plain JSON data, nothing left to coerce
    assert (payload["passed_count"], payload["failed_count"], payload["pass_rate"]) == (1, 1, 0.5)
    scenarios = payload["results"]
    assert [s["scenario_name"] for s in scenarios] == ["passes", "fails"]
    outputs = scenarios[1]["final_trace"]["interactions"][0]["outputs"]
    assert "Opaque order=1234" in json.dumps(outputs)
    assert to_hub_format(SuiteResult())["pass_rate"] is None  # nothing judged


def test_normalize_string_forms_and_whitespace():
    assert (
        normalize_string(NFD_CAFE, "NFC") == "café" and len(normalize_string(NFD_CAFE, "NFC")) == 4
    )
    assert normalize_string("café", "NFD") == NFD_CAFE
    assert normalize_string("café", "NFKC") == normalize_string(NFD_CAFE, "NFKC")
    assert normalize_string("ﬁ", "NFKC") == "fi" and normalize_string("ﬁ", "NFC") == "ﬁ"
    assert normalize_string(NFD_CAFE, None) == NFD_CAFE != normalize_string("café")
    assert normalize_string("  a \t\n b  ", "NFC") == "a b"
    assert unicodedata.is_normalized("NFC", normalize_string(NFD_CAFE, "NFC"))
    with pytest.raises(GiskardValidationError, match="normalization_form must be one of"):
        normalize_string("x", "NFX")
    with pytest.raises(GiskardValidationError, match="normalize_string takes a str"):
        normalize_string(["x"], "NFC")


def test_normalize_data_keeps_container_types_and_leaves_the_input_alone():
    point = namedtuple("Point", ["label", "value"])
    data = {
        "a": [NFD_CAFE, "  x  y "],
        "p": point(label=NFD_CAFE, value=1),
        "d": defaultdict(list, {"k": " v "}),
        "s": {" z "},
        "n": 3,
    }
    out = normalize_data(data, "NFC")
    assert out["a"] == ["café", "x y"] and out["n"] == 3 and out["s"] == {"z"}
    assert isinstance(out["p"], point) and out["p"] == point(label="café", value=1)
    assert isinstance(out["d"], defaultdict) and out["d"].default_factory is list
    assert out["d"] == {"k": "v"}
    assert data["a"][0] == NFD_CAFE and data["d"]["k"] == " v "  # a copy: the input is unchanged
    assert normalize_data(NFD_CAFE, "NFC") == normalize_data("café", "NFC")


def test_equals_compares_named_tuples_after_normalizing():
    """The comparison checks share this normalization: a named tuple in the trace is compared, not
    turned into an error."""
    point = namedtuple("Point", ["label", "value"])
    result = (
        Scenario("nt")
        .interact("q", point(label=NFD_CAFE, value=1))
        .check(Equals(expected_value=point(label="café", value=1)))
        .run_sync()
    )
    assert result.status == "pass", result.steps[0].results[0].message


def test_get_settings_reads_the_environment_on_every_call(monkeypatch):
    for name in ("GISKARD_NB_MODEL", "GISKARD_CHECKS_DEFAULT_MODEL", "GISKARD_NB_EMBEDDING_MODEL"):
        monkeypatch.delenv(name, raising=False)
    assert get_settings().default_model is None
    monkeypatch.setenv("GISKARD_CHECKS_DEFAULT_MODEL", "openai/gpt-4o-mini")
    assert get_settings().default_model == "openai/gpt-4o-mini"
    monkeypatch.setenv("GISKARD_NB_MODEL", "ollama/llama3.1")  # giskard-nb's own variable wins
    assert get_settings().default_model == "ollama/llama3.1"
    for raw, expected in (("3", 3), ("0", 0), ("invalid", None), ("-1", None), ("true", None)):
        monkeypatch.setenv("GISKARD_CHECKS_MAX_REPORTED_FAILURES", raw)
        assert get_settings().max_reported_failures == expected, raw
    monkeypatch.setenv("GISKARD_CHECKS_DISABLE_RICH_PRETTY", "true")
    assert get_settings().disable_rich_pretty is True
    monkeypatch.setenv("GISKARD_CHECKS_DISABLE_RICH_PRETTY", "no")
    assert get_settings().disable_rich_pretty is False
    with pytest.raises(Exception, match="frozen"):
        get_settings().default_model = "x"  # type: ignore[misc]
    assert callable(set_default_generator)


def test_max_reported_failures_caps_the_suite_report(monkeypatch, capsys):
    scenarios = [
        Scenario(f"s{i}").interact("q", "a").check(Equals(expected_value="b")) for i in range(3)
    ]
    result = Suite(name="capped", scenarios=scenarios).run_sync()
    monkeypatch.setenv("GISKARD_CHECKS_MAX_REPORTED_FAILURES", "1")
    result.print_report()
    out = capsys.readouterr().out
    assert "s0 (FAIL)" in out and "s1 (FAIL)" not in out and "... and 2 more" in out
    monkeypatch.delenv("GISKARD_CHECKS_MAX_REPORTED_FAILURES")
    result.print_report()
    out = capsys.readouterr().out
    assert all(f"s{i} (FAIL)" in out for i in range(3)) and "more" not in out


def test_the_literal_import_rewrite_finds_every_public_name() -> None:
    """``from giskard.checks import X`` rewritten to ``from giskard_nb.checks import X`` works for every
    public name of giskard_nb, and an unknown name is still an AttributeError."""
    import giskard_nb
    import giskard_nb.checks as checks

    for name in giskard_nb.__all__:
        assert getattr(checks, name) is getattr(giskard_nb, name), name
    with pytest.raises(AttributeError, match="no attribute 'NotAName'"):
        checks.NotAName  # noqa: B018
