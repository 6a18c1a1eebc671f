"""``giskard-nb eval --estimate``: print the preflight of an evaluation (``hub.evaluations.estimate``)
and run nothing.

Nothing is stored: a dataset file (or ``--demo``) not yet uploaded into the Hub is read into a scratch
in-memory Hub for the count (its time is then unknown: it never ran); one already uploaded (the same
content, in the same project) is the Hub's, and its earlier runs by the same agent give the time. A URL
agent is looked up among the project's agents, never registered.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from giskard_nb.cli._common import resolve_agent

__all__ = ["estimate"]


def estimate(hub: Any, args: argparse.Namespace) -> int:
    """Print the estimate for ``--dataset``/``--demo`` and ``--agent`` (exit status 0)."""
    from giskard_nb.cli.evaluate import _dataset
    from giskard_nb.hub import Hub

    from_file = args.demo or Path(args.dataset).expanduser().is_file()
    if not from_file:
        project, dataset = _dataset(hub, args)  # a Hub dataset id or name: a lookup
        return _print(hub, project, dataset, args)
    scratch = Hub(":memory:")
    try:
        project, dataset = _dataset(scratch, args)
        stored = _same_in(hub, project.name, dataset.name)
        if stored is not None:
            return _print(hub, *stored, args)
        print(
            f"giskard-nb eval: {dataset.name!r} is not in {hub!r} yet: estimated from the file "
            "(nothing stored)",
            file=sys.stderr,
        )
        real_project = _same_project(hub, project.name)
        return _print(scratch, project, dataset, args, agents_of=(hub, real_project))
    finally:
        scratch.close()


def _same_project(hub: Any, name: str) -> Any:
    found = hub.projects.list(name=name)
    return found[0] if found else None


def _same_in(hub: Any, project_name: str, dataset_name: str) -> tuple[Any, Any] | None:
    """The project and dataset of ``hub`` with these names (the upload of the same content)."""
    project = _same_project(hub, project_name)
    if project is None:
        return None
    found = hub.datasets.list(project_id=project.id, name=dataset_name)
    return (project, found[0]) if found else None


def _print(
    hub: Any,
    project: Any,
    dataset: Any,
    args: argparse.Namespace,
    agents_of: tuple[Any, Any] | None = None,
) -> int:
    """Print the estimate; ``agents_of``: the Hub and project to find the agent in, when the dataset
    is in a scratch Hub (the agent is then named: the scratch Hub has no agent, nor any run)."""
    where, agent_project = agents_of or (hub, project)
    who = _agent(where, agent_project, args)
    if agents_of is not None and "agent_id" in who:
        who = {"agent_name": where.agents.retrieve(who["agent_id"]).name}
    options = {"repeats": args.repeats, "max_concurrency": args.max_concurrency, **who}
    print(f"giskard-nb eval --estimate: {dataset.name!r} ({dataset.id})", file=sys.stderr)
    print(hub.evaluations.estimate(dataset.id, **options))
    return 0


def _agent(hub: Any, project: Any, args: argparse.Namespace) -> dict[str, Any]:
    """``agent_id``/``agent_name`` of the agent the run would use (empty when it cannot be told
    without building it or registering it: ``--agent-factory``, a URL the Hub does not know)."""
    from giskard_nb.hub.agents import LocalAgent

    if args.agent_factory:
        return {}
    if not args.agent:
        from giskard_nb.demo.agent import support_agent

        return {"agent_name": LocalAgent(support_agent).name}
    if project is None and args.agent.startswith(("http://", "https://")):
        return {}  # the project does not exist yet: no agent of it, no run to time it by
    kind, agent = resolve_agent(hub, project, args.agent, timeout=None, register=False)
    if kind == "local":
        return {"agent_name": LocalAgent(agent).name}
    return {} if agent is None else {"agent_id": agent.id}
