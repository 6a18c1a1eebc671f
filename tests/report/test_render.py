"""giskard_nb.report.render_html / write_report: structure, escaping, comparison, scan, in-memory
results, bad input."""

from __future__ import annotations

import re

import pytest

from giskard_nb.errors import GiskardValidationError, NotFoundError
from giskard_nb.report import find_record, render_html, write_report

from .conftest import XSS, assert_inert


def _case_blocks(html: str) -> dict[str, str]:
    """status -> the concatenated case blocks of that status."""
    blocks: dict[str, str] = {}
    for status, body in re.findall(
        r'<details class="case" id="case-[^"]+" data-filter-item data-status="(\w+)"'
        r".*?>(.*?)</details>",
        html,
        re.S,
    ):
        blocks[status] = blocks.get(status, "") + body
    return blocks


def test_an_evaluation_report_has_summary_categories_charts_and_every_transcript(hub, records):
    evaluation = hub.evaluations.retrieve(records.before.id)
    html = render_html(evaluation)
    page = assert_inert(html)
    text = " ".join(" ".join(page.text).split())
    # summary: the counts and the pass rate the Hub computes
    summary = hub.evaluations.summary(evaluation.id)
    assert (summary.passed, summary.failed, summary.errored) == (1, 1, 1)
    assert f"{summary.rate.percent()} pass rate {summary.rate.note()}" in text
    for status, n in (("pass", 1), ("fail", 1), ("error", 1), ("skip", 0)):
        assert re.search(rf'data-status-count="{status}"><b>{n}</b>', html)
    # failure categories and charts (SVG, no script library, nothing remote)
    assert "Failure categories" in text and page.count("svg") >= 2
    assert not re.search(r"(src|href)=\"https?:", html) and "plotly" not in html.lower()
    # one transcript per case: the question, the reply, each check with its status and reason
    blocks = _case_blocks(html)
    assert set(blocks) == {"pass", "fail", "error"}
    assert "Refunds? Never." in blocks["fail"] and "string_match" in blocks["fail"]
    failed = hub.evaluations.results.list(evaluation.id, status="fail")[0]
    assert failed.checks[0].message and failed.checks[0].message.split("'")[0] in blocks["fail"]
    assert "agent crashed on" in blocks["error"]
    assert "What are your opening hours?" in blocks["pass"] and "topic:Monday" in blocks["pass"]
    assert "Content-Security-Policy" in html and "'unsafe-inline'" not in html


def test_payloads_in_every_field_stay_text(hub, records):
    html = render_html(records.before.id, hub=hub)
    assert_inert(html)
    # the payload is shown, escaped, in the title, the dataset name, the question and the reply
    escaped = "&lt;script&gt;window.__xss=&#34;script&#34;&lt;/script&gt;"
    assert html.count(escaped) >= 4


def test_a_comparison_lists_regressions_and_fixes(hub, records):
    html = render_html(records.before.id, records.after.id, hub=hub)
    assert_inert(html)
    comparison = hub.evaluations.compare(records.before.id, records.after.id)
    assert len(comparison.regressions) == 1 and len(comparison.fixes) == 1
    regressions = html.split('id="regressions"')[1].split('id="fixes"')[0]
    fixes = html.split('id="fixes"')[1].split('id="other"')[0]
    assert "What are your opening hours?" in regressions and "refund" not in regressions
    assert "Can I get a refund?" in fixes
    other = html.split('id="other"')[1]
    assert "Do you ship abroad?" in other and 'data-change="error→pass"' in other
    # the same page from the comparison object, and from records
    assert "Regressions (1)" in render_html(comparison)
    before = hub.evaluations.retrieve(records.before.id)
    assert "Fixes (1)" in render_html(before, hub.evaluations.retrieve(records.after.id))


def test_a_scan_report_shows_the_grade_card_and_findings_with_evidence(hub, records):
    scan = hub.scans.retrieve(records.scan.id)
    html = render_html(scan)
    assert_inert(html)
    report = scan.report()
    assert f'id="grade">{report.grade}</span>' in html
    row = re.search(r'<tr data-category-row="improper_output_handling">(.*?)</tr>', html, re.S)
    assert row and "assessed" in row.group(1) and "LLM05" in row.group(1)
    assert html.count('data-evidence="confirmed"') == len(report.findings) > 0
    assert html.count('data-evidence="suspected"') == len(report.suspected)
    finding = report.findings[0]
    assert f'id="finding-{finding.id}"' in html
    # the engine's in-memory report renders the same grade card
    assert f'id="grade">{report.grade}</span>' in render_html(report)


def test_a_credential_in_a_stored_reply_is_masked_in_the_scan_page(hub, records):
    """Attempts are masked when the scan runs (scan.redact); a reply stored before that, carrying an
    API key, is masked again on the page as in SARIF and the DataFrames."""
    report = hub.scans.retrieve(records.scan.id).report()
    key = "sk-live-9f8e7d6c5b4a3b2c1d0e"
    leaked = report.findings[0].model_copy(
        update={"output": f"Sure, the key is {key}", "excerpt": key}
    )
    html = render_html(report.model_copy(update={"attempts": [leaked, *report.attempts[1:]]}))
    assert key not in html and "[secret:" in html


def test_an_in_memory_suite_result(suite_result):
    html = render_html(suite_result)
    assert html.count("<script") == 1 and f"Evaluation {suite_result.name}" in html
    statuses = re.findall(r'data-filter-item data-status="(\w+)"', html)
    assert statuses == [r.status.value for r in suite_result.results]


def test_write_report_writes_atomically(hub, records, tmp_path):
    target = tmp_path / "out" / "report.html"
    target.parent.mkdir()
    target.write_text("old")
    path = write_report(records.scan.id, target, hub=hub)
    assert path == target and target.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert [p.name for p in target.parent.iterdir()] == ["report.html"]  # no temporary left
    with pytest.raises(GiskardValidationError, match="render_html: got int"):
        write_report(3, tmp_path / "bad.html")
    assert not (tmp_path / "bad.html").exists()


def test_ids_prefixes_and_bad_input(hub, records):
    kind, record = find_record(hub, records.scan.id[:-4])
    assert (kind, record.id) == ("scan", records.scan.id)
    with pytest.raises(NotFoundError, match="no evaluation or scan has an id starting with 'zz'"):
        find_record(hub, "zz")
    with pytest.raises(GiskardValidationError, match="starts several ids"):
        find_record(hub, records.before.id[:2])  # uuid7 ids of one run share their start
    with pytest.raises(GiskardValidationError, match="pass hub="):
        render_html(records.before.id)
    with pytest.raises(GiskardValidationError, match="both must be evaluations"):
        render_html(records.scan.id, records.before.id, hub=hub)
    other = hub.datasets.upload(
        records.project.id, [{"messages": [{"role": "user", "content": "x"}]}], name="other"
    )
    third = hub.evaluations.create_local(lambda m: "x", other.id, progress=False)
    with pytest.raises(GiskardValidationError, match="only evaluations of the same dataset"):
        render_html(records.before.id, third.id, hub=hub)


def test_long_texts_are_cut_with_a_note(hub, records):
    from giskard_nb.report.page import MAX_TEXT, clip

    assert clip("x" * (MAX_TEXT + 5)).endswith("… (5 more characters not shown)")
    assert XSS in clip(XSS)


async def test_a_lone_surrogate_in_a_reply_is_replaced_not_an_encoding_error(tmp_path):
    from giskard_nb import Scenario, StringMatching, Suite

    def agent(messages):
        return "half a pair: \ud800 and a bidi \u202e control"

    suite = Suite(
        "surrogates",
        scenarios=[
            Scenario("s")
            .interact([{"role": "user", "content": "hi"}], agent)
            .check(StringMatching(keyword="pair")),
        ],
    )
    path = write_report(await suite.run(), tmp_path / "suite.html")
    text = path.read_text(encoding="utf-8")
    assert "half a pair: \ufffd and a bidi &lt;U+202E&gt; control" in text
