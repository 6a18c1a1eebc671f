"""The JUnit report holds hostile agent output as well-formed, escaped XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from giskard_nb.cli.reports import write_junit
from giskard_nb.hub import Hub

HOSTILE = 'bell \x07 esc \x1b nul \x00 </failure><script>alert("x")</script> & ]]>'


def test_junit_escapes_hostile_output(tmp_path: Path) -> None:
    hub = Hub(":memory:")
    project = hub.projects.create("p")
    dataset = hub.datasets.upload(
        project.id,
        [
            {
                "messages": "q1",
                "checks": [{"identifier": "string_match", "params": {"keyword": "ok"}}],
            },
            {
                "messages": "q2 \x1b",
                "checks": [{"identifier": "string_match", "params": {"keyword": "bell"}}],
            },
        ],
        name="d",
    )
    evaluation = hub.evaluations.create_local(lambda m: HOSTILE, dataset.id, progress=False)
    path = write_junit(evaluation, evaluation.results(), tmp_path / "junit.xml")
    suite = ET.parse(path).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    (failure,) = suite.findall("testcase/failure")
    assert "<script>" in failure.text and "\ufffd" in failure.text  # text, control chars replaced
    assert "does not contain the keyword 'ok'" in failure.get("message")
    assert "<script>" not in path.read_text(encoding="utf-8")  # escaped in the file
