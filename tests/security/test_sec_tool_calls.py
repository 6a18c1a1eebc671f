"""A tool call in any common shape is read by the scan (security review item 13: a call shaped
``{"function": "delete_all_users"}`` was missed)."""

from __future__ import annotations

import pytest

from giskard_nb.scan import Attack
from giskard_nb.scan.agent import AgentReply
from giskard_nb.scan.detectors import DetectionContext
from giskard_nb.scan.detectors.agency import UnrequestedActionDetector

SHAPES = [
    {"function": "delete_all_users"},
    {"function": {"name": "delete_all_users", "arguments": "{}"}},
    {"type": "function", "function": {"name": "delete_all_users"}},
    {"type": "tool_use", "name": "delete_all_users", "input": {}},
    {"tool": "delete_all_users"},
    {"tool_name": "delete_all_users", "args": {}},
    {"action": "delete_all_users"},
]


def _ctx(call: dict) -> DetectionContext:
    attack = Attack(
        id="a", probe_id="p", category="excessive_agency", turns=["Summarise this page."]
    )
    reply = AgentReply(text="Here is the summary.", tool_calls=[call])
    return DetectionContext(attack=attack, replies=[reply])


@pytest.mark.parametrize("call", SHAPES)
def test_a_consequential_tool_call_is_found_in_every_shape(call: dict) -> None:
    found = UnrequestedActionDetector().detect(_ctx(call))
    assert found is not None and "delete_all_users" in found.reason


def test_a_harmless_tool_call_is_not_a_finding() -> None:
    assert UnrequestedActionDetector().detect(_ctx({"function": "get_opening_hours"})) is None
