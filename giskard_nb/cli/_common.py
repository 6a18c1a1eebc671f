"""What the commands share: opening the Hub, resolving an agent (``module:function``, a URL or a
registered agent) and a dataset (a file, the demo, or a Hub dataset id or name)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["EXAMPLES", "UsageError", "add_hub_options", "open_hub", "project_for", "resolve_agent"]

EXAMPLES = """examples:
  giskard-nb eval --demo --memory
  giskard-nb eval --dataset cases.csv --agent my_app.bot:answer --junit junit.xml --csv results.csv
  giskard-nb scan --demo
  giskard-nb hub list evaluations --project "giskard-nb demo"
  giskard-nb scheduler --once
"""
CLI_PROJECT = "giskard-nb cli"


class UsageError(Exception):
    """Bad arguments the parser cannot see (exit status 2)."""


def add_hub_options(parser: Any) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--hub",
        metavar="URL",
        default=None,
        help="Hub database: a path or URL (default: $GISKARD_NB_HUB_URL, else ~/.giskard_nb/hub.db)",
    )
    group.add_argument("--memory", action="store_true", help="use a throwaway in-memory Hub")


def open_hub(args: Any) -> Any:
    from giskard_nb.hub import Hub

    return Hub(":memory:" if getattr(args, "memory", False) else args.hub)


def project_for(hub: Any, name: str | None) -> Any:
    """The project called ``name`` (default ``giskard-nb cli``), created on first use."""
    name = name or CLI_PROJECT
    found = hub.projects.list(name=name)
    return found[0] if found else hub.projects.create(name)


def import_function(spec: str, *, flag: str = "--agent") -> Callable[..., Any]:
    """``package.module:function`` (the current folder is importable, as with ``python -m``);
    ``flag``: the option that gave it, for messages."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise UsageError(f"{flag} {spec!r}: give module:function, an http(s) URL or an agent name")
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"{flag} {spec!r}: cannot import {module_name!r} ({exc})") from None
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise UsageError(f"{flag} {spec!r}: {module_name} has no {attr!r}") from None
    if not callable(target):
        raise UsageError(f"{flag} {spec!r}: {attr!r} is not a function")
    return target


def resolve_agent(
    hub: Any, project: Any, spec: str, *, timeout: float | None, register: bool = True
) -> tuple[str, Any]:
    """``("local", function)`` or ``("hub", agent record)`` for ``--agent`` (a registered agent by
    its name, its id, or 4+ characters of the start or end of its id). A URL no agent of the
    project has is registered, unless ``register=False``: then ``("hub", None)``."""
    if spec.startswith(("http://", "https://")):
        from giskard_nb.hub.secrets import mask_url

        name = f"cli agent {mask_url(spec)}"
        for agent in hub.agents.list(project_id=project.id):
            if spec in (agent.url, _call_url(agent)):  # stored with query credentials as ***
                return "hub", agent
        if not register:
            return "hub", None
        options = {"timeout": timeout} if timeout else {}
        return "hub", hub.agents.create(project.id, name=name, url=spec, **options)
    if ":" in spec and not spec.startswith(("http:", "https:")):
        return "local", import_function(spec)
    for agent in hub.agents.list():
        if spec in (agent.id, agent.name):
            return "hub", agent
    if len(spec.strip()) >= 4 and hub.agents.ids_matching(spec, limit=1):
        from giskard_nb.cli.lookup import find  # a short id (lookup imports this module)

        return "hub", find(hub, spec, kinds=("agent",), what="--agent")[1]
    raise UsageError(
        f"--agent {spec!r}: not module:function, not an http(s) URL, and no registered agent has "
        "that id or name (list them with: giskard-nb hub list agents)"
    )


def _call_url(agent: Any) -> str | None:
    from giskard_nb.errors import ConfigError

    try:
        return agent.call_url()
    except ConfigError:  # a query secret kept on another machine: not this agent's URL
        return None
