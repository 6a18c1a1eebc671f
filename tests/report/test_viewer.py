"""giskard-nb view over HTTP (urllib): navigation, filters, search, 404, 405, headers, 127.0.0.1."""

from __future__ import annotations

import http.client
import re
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from giskard_nb.errors import GiskardNBError
from giskard_nb.report import Viewer

from .conftest import assert_inert


@pytest.fixture
def viewer(hub) -> Iterator[Viewer]:
    with Viewer(hub, 0).start() as v:
        yield v


def get(viewer: Viewer, path: str, method: str = "GET") -> tuple[int, str, dict[str, str]]:
    request = urllib.request.Request(viewer.url.rstrip("/") + path, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


def links(html: str) -> list[str]:
    return re.findall(r'href="([^"]+)"', html)


def test_navigation_from_projects_to_a_result_and_its_checks(viewer, records, hub):
    status, home, _ = get(viewer, "/")
    assert status == 200 and viewer.url.startswith("http://127.0.0.1:")
    project_link = f"/projects/{records.project.id}"
    assert project_link in links(home)
    assert_inert(home)
    _, project, _ = get(viewer, project_link)
    assert f"/datasets/{records.dataset.id}" in links(project)
    assert f"/scans/{records.scan.id}" in links(project)
    evaluation_link = f"/evaluations/{records.before.id}"
    assert evaluation_link in links(project)
    _, dataset, _ = get(viewer, f"/datasets/{records.dataset.id}")
    assert "Can I get a refund?" in dataset and evaluation_link in links(dataset)
    _, evaluation, _ = get(viewer, evaluation_link)
    assert_inert(evaluation)
    result_links = [h for h in links(evaluation) if "/results/" in h]
    assert len(result_links) == 3
    failed = hub.evaluations.results.list(records.before.id, status="fail")[0]
    status, result, _ = get(viewer, f"{evaluation_link}/results/{failed.id}")
    assert status == 200 and "string_match" in result and "Refunds? Never." in result
    assert_inert(result)
    # a result of another evaluation is not found under this one
    other = hub.evaluations.results.list(records.after.id)[0]
    assert get(viewer, f"{evaluation_link}/results/{other.id}")[0] == 404


def test_filters_and_search_run_on_the_server(viewer, records):
    base = f"/evaluations/{records.before.id}"
    statuses = lambda html: re.findall(r'data-filter-item data-status="(\w+)"', html)  # noqa: E731
    assert sorted(statuses(get(viewer, base)[1])) == ["error", "fail", "pass"]
    assert statuses(get(viewer, base + "?status=fail")[1]) == ["fail"]
    assert statuses(get(viewer, base + "?q=REFUNDS%3F+never")[1]) == ["fail"]
    assert statuses(get(viewer, base + "?q=crashed")[1]) == ["error"]
    assert statuses(get(viewer, base + "?status=pass&q=refund")[1]) == []
    _, page, _ = get(viewer, base + "?status=fail")
    category = re.search(r'data-status="fail" data-category="([^"]+)"', page).group(1)
    assert statuses(get(viewer, f"{base}?category={category}")[1]) == ["fail"]
    scan = f"/scans/{records.scan.id}"
    _, all_findings, _ = get(viewer, scan)
    assert_inert(all_findings)
    findings = lambda html: html.count('class="case finding"')  # noqa: E731
    n = findings(all_findings)
    assert n == findings(get(viewer, scan + "?evidence=confirmed")[1]) > 0
    assert findings(get(viewer, scan + "?evidence=suspected")[1]) == 0
    assert 0 < findings(get(viewer, scan + "?q=markdown")[1]) < n
    # the Hub-wide search box
    _, found, _ = get(viewer, "/search?q=v2")
    assert f"/evaluations/{records.after.id}" in links(found)
    assert f"/evaluations/{records.before.id}" not in links(found)


def test_comparison_pages(viewer, records):
    _, picker, _ = get(viewer, "/compare")
    assert f'value="{records.before.id}"' in picker and 'action="/compare"' in picker
    _, page, _ = get(viewer, f"/compare?before={records.before.id}&after={records.after.id}")
    assert "Regressions (1)" in page and "Fixes (1)" in page
    case_link = next(h for h in links(page) if h.startswith("/compare/case"))
    status, case, _ = get(viewer, case_link.replace("&amp;", "&"))
    assert status == 200 and case.count('class="case result"') == 2


def test_unknown_pages_and_ids_are_404_without_traceback(viewer):
    for path in ("/nope", "/evaluations/unknown-id", "/scans/x/../../etc/passwd", "/..%2f..%2fetc"):
        status, body, _ = get(viewer, path)
        assert status == 404 and "Traceback" not in body and "SELECT" not in body, path
    status, body, _ = get(viewer, "/compare/case?before=nope&after=nope&test_case=x")
    assert status == 404
    many = "&".join(f"p{i}=1" for i in range(30))
    assert get(viewer, f"/search?{many}")[0] == 400


def test_only_get_is_answered(viewer):
    for method in ("POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"):
        status, _, headers = get(viewer, "/", method)
        assert status == 405 and headers["Allow"] == "GET", method


def test_security_headers_and_host_check(viewer):
    _, page, headers = get(viewer, "/")
    policy = headers["Content-Security-Policy"]
    nonce = re.search(r"'nonce-([^']+)'", policy).group(1)
    assert f'<script nonce="{nonce}">' in page and f'<style nonce="{nonce}">' in page
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe" not in policy and "http" not in policy
    assert headers["X-Content-Type-Options"] == "nosniff"
    # a page of another site reaching 127.0.0.1 through its own host name (DNS rebinding)
    host, port = viewer.url.split("//")[1].strip("/").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request("GET", "/", headers={"Host": f"evil.example:{port}"})
    assert connection.getresponse().status == 400
    connection.close()


def test_bound_to_loopback_only(viewer, hub):
    import socket

    assert viewer._server.server_address[0] == "127.0.0.1"
    addresses = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None)}
    outside = [a for a in addresses if not a.startswith("127.") and ":" not in a]
    port = int(viewer.url.rsplit(":", 1)[1].strip("/"))
    for address in outside:
        with pytest.raises(OSError):
            socket.create_connection((address, port), timeout=2).close()
    with pytest.raises(GiskardNBError, match="choose another --port"):
        Viewer(hub, port)


def test_a_relabelled_result_shows_at_the_next_request(viewer, records, hub):
    from giskard_nb.hub import DEFAULT_FAILURE_CATEGORIES

    page = f"/evaluations/{records.before.id}?status=fail"

    def category() -> str:
        html = get(viewer, page)[1]
        return re.search(r'data-status="fail" data-category="([^"]+)"', html)[1]

    before = category()
    other = next(c.identifier for c in DEFAULT_FAILURE_CATEGORIES if c.identifier != before)
    failed = hub.evaluations.results.list(records.before.id, status="fail")[0]
    hub.evaluations.results.relabel(failed.id, other)
    assert category() == other
