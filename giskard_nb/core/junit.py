"""JUnit XML export of a SuiteResult (one <testcase> per scenario), for CI dashboards; ``xml_text``
makes any text (agent output is untrusted) something XML 1.0 can hold."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from giskard_nb.core.render import scenario_report

if TYPE_CHECKING:
    from giskard_nb.core.suite_result import SuiteResult

#: Characters XML 1.0 cannot hold (control characters, lone surrogates, U+FFFE/U+FFFF).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """``text`` that XML 1.0 can hold: every character it cannot is replaced by U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def suite_to_junit(result: SuiteResult) -> str:
    suite = ET.Element(
        "testsuite",
        name=xml_text(result.name),
        tests=str(len(result.results)),
        failures=str(result.failed_count),
        errors=str(result.errored_count),
        skipped=str(result.skipped_count),
        assertions=str(sum(len(r.check_results) for r in result.results)),
        time=f"{result.duration_ms / 1000:.3f}",
        timestamp=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    for r in result.results:
        case = ET.SubElement(
            suite,
            "testcase",
            name=xml_text(r.scenario_name),
            classname=xml_text(result.name),
            time=f"{r.duration_ms / 1000:.3f}",
        )
        if r.tags:
            props = ET.SubElement(case, "properties")
            for tag in r.tags:
                ET.SubElement(props, "property", name="tag", value=xml_text(tag))
        if r.errored or r.failed:
            tag = "error" if r.errored else "failure"
            ET.SubElement(case, tag, message=xml_text(r.reason or r.status.value)).text = xml_text(
                "\n".join(r.format_failures())
            )
        elif r.skipped:
            ET.SubElement(case, "skipped", message=xml_text(r.reason or "every step was skipped"))
        ET.SubElement(case, "system-out").text = xml_text(scenario_report(r))
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True)
