"""Tools for tool-calling agents: the static scan of tool definitions (``tools.static_scan``).
May import: errors and core.
"""
