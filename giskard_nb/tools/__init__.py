"""Tools for tool-using agents: ``MockTools`` (scripted tools for deterministic offline runs, which
record every call), the recording and replay of a real tool provider's calls, and the static scan of
tool definitions (``giskard_nb.tools.static_scan``). May import: errors, secrets and core.

::

    from giskard_nb.tools import MockTools
    tools = MockTools(results={"get_balance": {"balance": 1250.0}})
    tools.call("get_balance", {"account": "checking"})   # {"balance": 1250.0}; tools.calls records it
    recorded = MockTools.record(provider)                 # wraps a real provider (MCP, your own...)
    recorded.save("tools.json"); MockTools.replay("tools.json")   # the same answers, offline
"""

from giskard_nb.tools.mock import MockTools, ToolError, as_spec
from giskard_nb.tools.recording import RecordingTools, ReplayTools

__all__ = ["MockTools", "RecordingTools", "ReplayTools", "ToolError", "as_spec"]
