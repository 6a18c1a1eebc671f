"""MCP servers (the Model Context Protocol) as tool providers and scan targets. May import: errors,
secrets, core and tools.

``McpTools.stdio(command, args)`` / ``McpTools.http(url, headers=...)`` connect to a server through the
official ``mcp`` SDK (``pip install 'giskard-nb[mcp]'``; imported only when a connection is made) and
give its tools as ``ToolSpec`` objects (``specs``) and a ``call(name, arguments)`` — the tool-provider
contract ``MockTools`` records and replays. ``scan_mcp_server(tools)`` runs the static definition scan
on the live tool list and probes the tools with injection payloads.
"""

from giskard_nb.mcp.client import McpToolError, McpTools
from giskard_nb.mcp.scan import PAYLOADS, McpScanReport, scan_mcp_server
from giskard_nb.mcp.session import McpConnectionError

__all__ = [
    "PAYLOADS",
    "McpConnectionError",
    "McpScanReport",
    "McpToolError",
    "McpTools",
    "scan_mcp_server",
]
