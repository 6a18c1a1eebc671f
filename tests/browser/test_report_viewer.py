"""A real browser (Playwright + Debian's Chromium) on a report file and on ``giskard-nb view``.

Opens a standalone evaluation report, filters and searches it in the page; then the viewer of the
same Hub: projects → project → evaluation → one result and its checks, a status filter and a search
(both answered by the server), a scan's findings. The agent's replies carry ``<script>``, ``<img
onerror>``, ``<svg onload>`` and ``javascript:`` payloads that would set ``window.__xss`` or open a
dialog: nothing may run, and the pages' own style and script must not be blocked by their policy.

Needs ``/usr/bin/chromium`` and ``playwright`` (``.ci/browser.sh`` installs them); skipped with the
reason otherwise. Playwright's own browsers are never downloaded.
"""

from __future__ import annotations

import pytest

from .jupyter import CHROMIUM, CHROMIUM_ARGS

XSS = (
    "<script>window.__xss='script';alert('script')</script>"
    "<img src=x onerror=\"window.__xss='img';alert('img')\">"
    '<a href="javascript:window.__xss=\'link\'" id="xss-link">click me</a>'
    "</textarea><svg onload=\"window.__xss='svg';alert('svg')\"></svg>"
)


def _requirements() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is not installed (run .ci/browser.sh: apt-get install chromium)"
    try:
        __import__("playwright")
    except ImportError:
        return "playwright is not installed (run .ci/browser.sh: pip install -e '.[ci]')"
    return None


pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(_requirements() is not None, reason=_requirements() or ""),
]


def _agent(messages):
    question = messages[-1]["content"]
    if "hours" in question:
        return f"We are open Monday. {XSS}"
    return f"No idea. {XSS}"


def _echo(messages):
    return f"You said: {messages[-1]['content']}"


@pytest.fixture
def hub_records(tmp_path):
    from giskard_nb.hub import Hub

    hub = Hub(str(tmp_path / "hub.db"), actor="browser")
    project = hub.projects.create("shop <img src=x onerror=\"window.__xss='name'\">")
    cases = [
        ("What are your opening hours?", "Monday"),
        ("Can I get a refund?", "30 days"),
        ("Do you ship abroad?", "worldwide"),
    ]
    dataset = hub.datasets.upload(
        project.id,
        [
            {
                "messages": [{"role": "user", "content": f"{q} {XSS}"}],
                "checks": [{"identifier": "string_match", "params": {"keyword": k}}],
            }
            for q, k in cases
        ],
        name="faq",
    )
    evaluation = hub.evaluations.create_local(_agent, dataset.id, name="v1", progress=False)
    scan = hub.scans.create(
        project.id,
        agent=_echo,
        name="echo scan",
        categories=["improper_output_handling"],
        max_attempts_per_probe=2,
        judge=None,
        generator=None,
        progress=False,
    )
    yield hub, project, evaluation, scan
    hub.close()


def _visible_cases(page) -> list[str]:
    return page.evaluate(
        "() => [...document.querySelectorAll('details.case')].filter(d => !d.hidden)"
        ".map(d => d.dataset.status)"
    )


def _assert_nothing_ran(page, dialogs, console) -> None:
    page.wait_for_timeout(500)  # give any injected handler time to fire
    assert page.evaluate("() => typeof window.__xss") == "undefined"
    assert page.evaluate("() => document.querySelectorAll('img, textarea, #xss-link').length") == 0
    assert dialogs == []
    blocked = [m for m in console if "Content Security Policy" in m or "Refused" in m]
    assert blocked == [], blocked  # the page's own style and script run under its policy


def test_report_file_and_viewer_in_a_browser(hub_records, tmp_path):
    from playwright.sync_api import sync_playwright

    from giskard_nb.report import Viewer, write_report

    hub, project, evaluation, scan = hub_records
    report = write_report(evaluation, tmp_path / "report.html")
    dialogs: list[str] = []
    console: list[str] = []
    with sync_playwright() as p, Viewer(hub, 0).start() as viewer:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            page.set_default_timeout(20_000)
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.on("console", lambda m: console.append(m.text))

            # the standalone report: every case, filtered and searched by the page's own script
            page.goto(report.as_uri())
            assert sorted(_visible_cases(page)) == ["fail", "fail", "pass"]
            for summary in page.query_selector_all("details.case > summary"):
                summary.click()  # open every transcript: the payloads are on screen, as text
            assert "<img src=x onerror=" in page.inner_text("#cases")
            page.select_option("select[name=status]", "fail")
            assert _visible_cases(page) == ["fail", "fail"]
            assert page.inner_text("#shown") == "2"
            page.fill("input[name=q]", "refund")
            assert _visible_cases(page) == ["fail"]
            page.select_option("select[name=status]", "")
            page.fill("input[name=q]", "")
            assert len(_visible_cases(page)) == 3
            _assert_nothing_ran(page, dialogs, console)

            # the viewer: projects → project → evaluation → a result and its checks
            page.goto(viewer.url)
            page.click(f"a[href='/projects/{project.id}']")
            page.wait_for_url(f"**/projects/{project.id}")
            page.click(f"a[href='/evaluations/{evaluation.id}']")
            page.wait_for_url(f"**/evaluations/{evaluation.id}")
            assert sorted(_visible_cases(page)) == ["fail", "fail", "pass"]
            page.click("details.case[data-status=fail] > summary")
            page.click("details.case[data-status=fail] a:text('open')")
            page.wait_for_url("**/results/**")
            assert "string_match" in page.inner_text("table") and "fail" in page.inner_text("h1")
            _assert_nothing_ran(page, dialogs, console)

            # a filter and a search, answered by the server
            page.go_back()
            page.wait_for_url(f"**/evaluations/{evaluation.id}")
            page.select_option("select[name=status]", "fail")
            page.click("#filters button")
            page.wait_for_url("**status=fail**")
            assert _visible_cases(page) == ["fail", "fail"]
            page.fill("#filters input[name=q]", "refund")
            page.press("#filters input[name=q]", "Enter")
            page.wait_for_url("**q=refund**")
            assert _visible_cases(page) == ["fail"]
            page.fill("nav input[name=q]", "echo")
            page.press("nav input[name=q]", "Enter")
            page.wait_for_url("**/search?q=echo")
            page.click(f"a[href='/scans/{scan.id}']")
            page.wait_for_url(f"**/scans/{scan.id}")
            assert page.inner_text("#grade") == scan.grade
            page.click("details.finding > summary")
            _assert_nothing_ran(page, dialogs, console)
        finally:
            browser.close()
