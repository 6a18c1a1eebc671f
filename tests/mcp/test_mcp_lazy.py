"""``import giskard_nb`` (and the MCP, OpenTelemetry and static-scan modules themselves) never import
the optional SDKs: they are imported only when a server is connected or spans are posted."""

from __future__ import annotations

import subprocess
import sys


def test_the_optional_sdks_are_not_imported_until_used() -> None:
    code = (
        "import sys, giskard_nb, giskard_nb.mcp, giskard_nb.otel, giskard_nb.tools.static_scan\n"
        "from giskard_nb.mcp import McpTools\n"
        "McpTools.stdio('python', ['server.py'])\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('mcp', 'opentelemetry', 'google')]\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
