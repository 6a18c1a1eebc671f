"""Terminal and JUnit output of an evaluation's results (text is escaped by the XML writer: agent
output is untrusted)."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from giskard_nb.cli.output import say
from giskard_nb.core.files import atomic_write
from giskard_nb.core.junit import xml_text
from giskard_nb.core.reply import last_user_content

__all__ = ["RAW_CSV_HELP", "print_failures", "write_junit"]

RAW_CSV_HELP = (
    "write CSV cells as they are (by default a cell starting with = + - @, tab or CR gets a leading "
    "' so that a spreadsheet shows it as text instead of running it as a formula)"
)

_MAX = 200


def _clip(text: str | None, limit: int = _MAX) -> str:
    text = (text or "").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _question(result: Any) -> str:
    return last_user_content(result.messages) or ""


def _run(result: Any, repeats: int) -> str:
    """`` (run 2/3)`` for a result of an evaluation with repeats, else nothing."""
    return f" (run {result.repeat + 1}/{repeats})" if repeats > 1 else ""


def _why(result: Any) -> str:
    """The result's ``reason`` (``giskard_nb.core.reasons.case_reason``: one line, bounded, no
    control character)."""
    return result.reason or result.status


def _junit_body(result: Any, why: str) -> str:
    """The reason, every check that did not pass (with its whole message), the agent's reply."""
    parts = [why]
    bad = [
        f"  {c.name} {c.status.upper()}: {c.message or ''}".rstrip()
        for c in result.checks
        if c.status != "pass"
    ]
    if bad:
        parts.append("\n".join(["checks that did not pass:", *bad]))
    reply = result.agent_output.content if result.agent_output else ""
    parts.append(f"agent reply:\n{reply}")
    return "\n\n".join(parts)


def print_failures(results: Any, repeats: int = 1) -> None:
    """Each failed or errored result: its question (and run, with ``repeats``), the agent's reply
    and why (printed without terminal controls: the reply is untrusted)."""
    bad = [r for r in results if r.status in ("fail", "error")]
    if not bad:
        return
    say("\nFailed and errored test cases:")
    for result in bad:
        category = f" [{result.failure_category.title}]" if result.failure_category else ""
        run = _run(result, repeats)
        say(f"  {result.status.upper()}{category} {_clip(_question(result), 100)!r}{run}")
        if result.agent_output is not None:
            say(f"      agent: {_clip(result.agent_output.content)!r}")
        say(f"      why:   {_clip(_why(result), 300)}")


def write_junit(evaluation: Any, results: Any, path: str | os.PathLike[str]) -> Path:
    """One ``<testsuite>`` (the evaluation), one ``<testcase>`` per result: ``<failure>`` for FAIL,
    ``<error>`` for ERROR, ``<skipped>`` for SKIP, with the stored reasons."""
    counts = {s: sum(r.status == s for r in results) for s in ("fail", "error", "skip")}
    suite = ET.Element(
        "testsuite",
        name=xml_text(evaluation.name),
        tests=str(len(results)),
        failures=str(counts["fail"]),
        errors=str(counts["error"]),
        skipped=str(counts["skip"]),
        time=f"{sum(r.duration_ms for r in results) / 1000:.3f}",
    )
    for number, result in enumerate(results, 1):
        case = ET.SubElement(
            suite,
            "testcase",
            classname=xml_text(f"giskard_nb.{evaluation.agent_name}"),
            name=xml_text(
                f"{number:03d} {_clip(_question(result), 120)}{_run(result, evaluation.repeats)}"
            ),
            time=f"{result.duration_ms / 1000:.3f}",
        )
        tag = {"fail": "failure", "error": "error", "skip": "skipped"}.get(result.status)
        if tag:
            why = _why(result)
            node = ET.SubElement(case, tag, message=xml_text(why))
            node.text = xml_text(_junit_body(result, why))
        ET.SubElement(case, "system-out").text = f"test case {result.test_case_id}"
    target = Path(path).expanduser()
    tree = ET.ElementTree(ET.Element("testsuites", name="giskard-nb"))
    tree.getroot().append(suite)
    with atomic_write(target, binary=True) as handle:
        tree.write(handle, encoding="utf-8", xml_declaration=True)
    return target
