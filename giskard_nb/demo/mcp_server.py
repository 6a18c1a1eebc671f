"""A small MCP server for the docs and the notebook: ``python -m giskard_nb.demo.mcp_server`` (stdio).

A shop's support tools: ``add`` (two integers), ``order_status`` (a read-only lookup in a fixed table)
and ``refund`` (a destructive tool, marked so, which refuses unknown orders with a tool error). It needs
the MCP SDK (``pip install 'giskard-nb[mcp]'``) and touches nothing outside its own memory.
"""

from __future__ import annotations

ORDERS = {"A-1": "shipped on 2026-11-28", "A-2": "waiting for payment"}


def build_server():  # type: ignore[no-untyped-def]
    """The FastMCP server (the SDK imported here: importing this module alone needs nothing)."""
    from mcp.server.fastmcp import FastMCP
    from mcp.types import ToolAnnotations

    server = FastMCP("shop")

    @server.tool(description="Adds two integers.", annotations=ToolAnnotations(readOnlyHint=True))
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(
        description="Returns the status of an order by its number (such as A-1).",
        annotations=ToolAnnotations(readOnlyHint=True),
    )
    def order_status(order: str) -> str:
        return ORDERS.get(order.strip().upper(), "no order with this number")

    @server.tool(
        description="Refunds an order. Ask the customer to confirm first.",
        annotations=ToolAnnotations(destructiveHint=True),
    )
    def refund(order: str) -> str:
        if order.strip().upper() not in ORDERS:
            raise ValueError(f"no order {order!r} to refund")
        return f"refund of {order} started"

    return server


if __name__ == "__main__":
    build_server().run()
