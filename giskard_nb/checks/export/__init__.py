"""Exports of results (giskard-checks' ``giskard.checks.export`` import path):
``to_junit_xml(result, path=None)`` (``junit``) and ``to_hub_format(result)`` (``hub``). May import: errors, core
and llm."""

from giskard_nb.checks.export.hub import to_hub_format
from giskard_nb.checks.export.junit import to_junit_xml

__all__ = ["to_hub_format", "to_junit_xml"]
