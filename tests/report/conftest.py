"""One Hub file for the report tests: a project, a dataset, two evaluations of it (the agent's replies
carry XSS payloads and a bidi control) and a scan of an agent that echoes its attacks."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from giskard_nb.hub import Hub

#: Each payload sets ``window.__xss`` if it ever runs.
XSS = (
    '<script>window.__xss="script"</script>'
    "<img src=x onerror=\"window.__xss='img'\">"
    "<a href=\"javascript:window.__xss='link'\">click</a>"
    "</textarea><svg onload=\"window.__xss='svg'\"></svg>"
    "\u202eevil\u2066"
)
BIDI = ("\u202e", "\u2066")


def agent_v1(messages: list[dict[str, str]]) -> str:
    question = messages[-1]["content"]
    if "hours" in question:
        return f"We are open Monday to Friday. {XSS}"
    if "refund" in question:
        return f"Refunds? Never. {XSS}"
    raise RuntimeError(f"agent crashed on {XSS}")


def agent_v2(messages: list[dict[str, str]]) -> str:
    question = messages[-1]["content"]
    if "hours" in question:
        return "Sorry, I do not know."  # a regression
    return f"Monday; refunds within 30 days; we ship worldwide. {XSS}"  # fixes


def echo_agent(messages: list[dict[str, str]]) -> str:
    return f"You said: {messages[-1]['content']}"


def case(question: str, keyword: str) -> dict[str, Any]:
    return {
        "messages": [{"role": "user", "content": question}],
        "checks": [{"identifier": "string_match", "params": {"keyword": keyword}}],
        "tags": [f"topic:{keyword}"],
    }


@dataclass
class Records:
    path: Path
    project: Any
    dataset: Any
    before: Any
    after: Any
    scan: Any


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Records]:
    from giskard_nb.llm import set_default_generator

    set_default_generator(None)
    path = tmp_path_factory.mktemp("report_hub") / "hub.db"
    hub = Hub(str(path), actor="tester")
    project = hub.projects.create(f"support {XSS}")
    dataset = hub.datasets.upload(
        project.id,
        [
            case(f"What are your opening hours? {XSS}", "Monday"),
            case("Can I get a refund?", "30 days"),
            case("Do you ship abroad?", "worldwide"),
        ],
        name=f"faq {XSS}",
    )
    before = hub.evaluations.create_local(agent_v1, dataset.id, name=f"v1 {XSS}", progress=False)
    after = hub.evaluations.create_local(agent_v2, dataset.id, name="v2", progress=False)
    scan = hub.scans.create(
        project.id,
        agent=echo_agent,
        name=f"echo scan {XSS}",
        categories=["improper_output_handling"],
        max_attempts_per_probe=2,
        judge=None,
        generator=None,
        progress=False,
    )
    hub.close()
    yield Records(path, project, dataset, before, after, scan)


@pytest.fixture
def hub(records: Records) -> Iterator[Hub]:
    h = Hub(str(records.path), actor="tester")
    yield h
    h.close()


class Markup(HTMLParser):
    """What a page really holds as markup: its tags, their attributes, and its text."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def count(self, tag: str) -> int:
        return sum(1 for t, _ in self.tags if t == tag)


def assert_inert(html: str) -> Markup:
    """The page's payloads are text: one script (the page's own, with its nonce), no image, no
    event-handler attribute, no javascript: link, no raw closing textarea, no bidi control."""
    page = Markup(html)
    scripts = [attrs for tag, attrs in page.tags if tag == "script"]
    assert len(scripts) == 1 and scripts[0].get("nonce"), scripts
    assert page.count("img") == 0 and page.count("textarea") == 0
    handlers = [(t, a) for t, attrs in page.tags for a in attrs if a.lower().startswith("on")]
    assert not handlers, handlers
    links = [attrs.get("href") or "" for tag, attrs in page.tags if tag == "a"]
    assert not [h for h in links if not h.startswith(("/", "?", "#"))], links
    assert "</textarea>" not in html
    assert not any(ch in html for ch in BIDI)
    assert "<U+202E>evil<U+2066>" in "".join(page.text)  # shown, visibly
    return page


def ctrl_c_reaches_it() -> None:
    """``preexec_fn`` of a server started to be stopped with SIGINT: Ctrl-C's default disposition,
    as in a terminal. (A process started from a background job inherits SIGINT *ignored*, and Python
    then installs no KeyboardInterrupt handler, so the test would measure how it was launched.)"""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
