from __future__ import annotations

import math

import pytest

from giskard_nb import (
    MRR,
    NDCG,
    AveragePrecision,
    Check,
    CheckStatus,
    HitRateAtK,
    Interaction,
    PrecisionAtK,
    Readability,
    RecallAtK,
    Trace,
    UnsafeOutput,
)
from giskard_nb.checks.readability import flesch_reading_ease, text_counts


def _trace(outputs, **metadata):
    return Trace(interactions=[Interaction(inputs="q", outputs=outputs, metadata=metadata)])


# --- Readability -----------------------------------------------------------------------------


def test_readability_counts_and_hand_computed_score():
    text = "The cat sat on the mat. It was happy."
    assert text_counts(text) == (2, 9, 10)
    expected = 206.835 - 1.015 * (9 / 2) - 84.6 * (10 / 9)
    assert flesch_reading_ease(text) == pytest.approx(expected)


def test_readability_easy_text_passes_and_hard_text_fails():
    easy = _trace("The cat sat on the mat. It was happy.")
    hard = _trace(
        "Notwithstanding institutional considerations, interdisciplinary collaboration "
        "necessitates comprehensive organizational restructuring."
    )
    check = Readability(min_score=60)
    ok = check.run(easy)
    assert ok.status is CheckStatus.PASS
    assert ok.metric("flesch_reading_ease") == ok.details["score"]
    bad = check.run(hard)
    assert bad.status is CheckStatus.FAIL and "below the minimum" in bad.message
    grade = Readability(metric="flesch_kincaid_grade", max_score=8).run(hard)
    assert grade.status is CheckStatus.FAIL and "above the maximum" in grade.message


@pytest.mark.parametrize("outputs", [None, 42, "", "... !!! 123"])
def test_readability_errors_on_non_text(outputs):
    assert Readability(min_score=0).run(_trace(outputs)).status is CheckStatus.ERROR


def test_readability_bounds_are_validated_and_round_trip():
    with pytest.raises(ValueError, match="min_score must be less than or equal to max_score"):
        Readability(min_score=50, max_score=10)
    check = Readability(min_score=30, metric="flesch_kincaid_grade")
    again = Check.model_validate(check.model_dump())
    assert isinstance(again, Readability) and again.metric == "flesch_kincaid_grade"


# --- Retrieval metrics -----------------------------------------------------------------------

RANKED = ["d3", "d1", "d7", "d2", "d9"]
RELEVANT = ["d1", "d2", "d4"]


@pytest.mark.parametrize(
    ("cls", "k", "expected"),
    [
        (RecallAtK, 3, 1 / 3),
        (RecallAtK, 5, 2 / 3),
        (PrecisionAtK, 2, 1 / 2),
        (PrecisionAtK, 5, 2 / 5),
        (HitRateAtK, 1, 0.0),
        (HitRateAtK, 2, 1.0),
        (MRR, None, 1 / 2),
        # DCG = 1/log2(3) + 1/log2(5); ideal with 3 relevant = 1 + 1/log2(3) + 1/2
        (NDCG, None, (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3) + 0.5)),
        # AP = (1/2 + 2/4) / 3
        (AveragePrecision, None, (1 / 2 + 2 / 4) / 3),
    ],
)
def test_retrieval_metrics_hand_computed(cls, k, expected):
    result = cls(relevant=RELEVANT, k=k, threshold=0.0).run(_trace("a", retrieved=RANKED))
    assert result.status is CheckStatus.PASS
    assert result.details["score"] == pytest.approx(expected, abs=1e-6)
    assert result.metrics[0].value == pytest.approx(expected, abs=1e-6)


def test_retrieval_threshold_fails_and_dict_items_and_custom_key():
    trace = _trace({"docs": [{"id": 1}, {"id": 5}]}, retrieved=["x"])
    assert RecallAtK(relevant=[1], threshold=1.0).run(trace).status is CheckStatus.FAIL
    custom = RecallAtK(relevant=[1, 5], retrieved_key="trace.last.outputs.docs")
    assert custom.run(trace).status is CheckStatus.PASS
    assert MRR(relevant=["zz"], threshold=0.1).run(trace).status is CheckStatus.FAIL


@pytest.mark.parametrize("retrieved", ["d1,d2", [["d1"]], {"id": "d1"}, [None]])
def test_retrieval_errors_on_bad_shapes(retrieved):
    result = RecallAtK(relevant=["d1"]).run(_trace("a", retrieved=retrieved))
    assert result.status is CheckStatus.ERROR


def test_retrieval_errors_when_nothing_retrieved_and_validates_params():
    assert RecallAtK(relevant=["d1"]).run(_trace("a")).status is CheckStatus.ERROR
    with pytest.raises(ValueError, match="at least one id"):
        RecallAtK(relevant=[])
    with pytest.raises(ValueError):
        RecallAtK(relevant=["a"], k=0)
    again = Check.model_validate(NDCG(relevant=["a"], k=3).model_dump())
    assert isinstance(again, NDCG) and again.k == 3


# --- UnsafeOutput ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Hello <script>alert(1)</script>",
        "< ScRiPt src=//x.example/a.js>",
        '<img src=x onerror="alert(1)">',
        '<a href="javascript:alert(1)">click</a>',
        "[click](javascript:alert(1))",
        "<iframe src='//evil'></iframe>",
        "<svg onload=alert(1)>",
        '<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>',
    ],
)
def test_unsafe_output_flags_live_markup(text):
    result = UnsafeOutput().run(_trace(text))
    assert result.status is CheckStatus.FAIL
    assert result.details["kinds"]


@pytest.mark.parametrize(
    "text",
    [
        "Use `<script>` tags carefully.",
        "```html\n<script>alert(1)</script>\n```",
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "The onerror attribute is dangerous; 2 < 3 and 4 > 1.",
        "<b>bold</b> and <a href='https://example.com'>a link</a>",
    ],
)
def test_unsafe_output_passes_harmless_text(text):
    assert UnsafeOutput().run(_trace(text)).status is CheckStatus.PASS


def test_unsafe_output_errors_on_non_text():
    assert UnsafeOutput().run(_trace({"a": 1})).status is CheckStatus.ERROR


# --- RegoPolicy ------------------------------------------------------------------------------

POLICY = 'package demo\ndefault allow := false\nallow if input.role == "admin"\n'


def test_rego_policy_without_regorus_is_error_naming_the_extra(monkeypatch):
    import sys

    from giskard_nb import RegoPolicy

    monkeypatch.setitem(sys.modules, "regorus", None)  # import regorus -> ImportError
    check = RegoPolicy(policy=POLICY, rule="data.demo.allow")
    result = check.run(_trace({"role": "admin"}))
    assert result.status is CheckStatus.ERROR
    assert "pip install 'giskard-nb[rego]'" in result.message
    again = Check.model_validate(check.model_dump())
    assert isinstance(again, RegoPolicy) and again.rule == "data.demo.allow"
    with pytest.raises(ValueError, match="must start with 'data.'"):
        RegoPolicy(policy=POLICY, rule="demo.allow")


def test_rego_policy_with_the_engine():
    pytest.importorskip("regorus", reason="the optional regorus engine is not installed (.[rego])")
    from giskard_nb import RegoPolicy

    check = RegoPolicy(policy=POLICY, rule="data.demo.allow")
    assert check.run(_trace({"role": "admin"})).status is CheckStatus.PASS
    assert check.run(_trace({"role": "user"})).status is CheckStatus.FAIL
    undefined = RegoPolicy(
        policy='package demo\nallow if input.role == "admin"\n', rule="data.demo.allow"
    )
    assert (
        undefined.run(_trace({"role": "user"})).status is CheckStatus.FAIL
    )  # undefined is not a pass
    not_bool = RegoPolicy(policy='package demo\nlevel := "high"\n', rule="data.demo.level")
    assert not_bool.run(_trace({"role": "user"})).status is CheckStatus.ERROR
    with pytest.raises(Exception):  # noqa: B017 - the engine's own syntax error, raised at build time
        RegoPolicy(policy="package demo\nallow if {", rule="data.demo.allow")
