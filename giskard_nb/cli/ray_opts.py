"""``--ray N``, ``--ray-address`` and ``--agent-factory`` of ``giskard-nb eval`` and ``giskard-nb scan``:
the test cases (or the attacks) played on Ray actors, each building the agent once.

The agent is named as ``module:function`` (the current folder is importable, on the actors too):

- ``--agent module:function --ray N``: each actor imports the module and uses the function as the agent
  (whatever the module loads at import, a model, loads once per actor);
- ``--agent-factory module:function``: a function without arguments that returns the agent; with
  ``--ray N`` each actor calls it once, without ``--ray`` it is called once here.

``--ray N`` starts a local Ray with N CPUs for N actors (stopped at the end), unless ``--ray-address``
joins a running cluster (``auto``: the cluster this machine is part of, or ``ray://head:10001``).
Without Ray installed, ``--ray`` stops with an error naming ``giskard-nb[ray]`` before anything runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from giskard_nb.cli._common import UsageError, import_function

__all__ = ["ImportedAgent", "add_ray_options", "factory_agent", "ray_agent", "ray_executor"]

DEMO_AGENT = "giskard_nb.demo.agent:support_agent"


def add_ray_options(parser: Any, what: str) -> None:
    """The options, for ``eval`` (``what``: "test cases") and ``scan`` ("attacks")."""
    parser.add_argument(
        "--agent-factory",
        metavar="MODULE:FUNCTION",
        help="a function without arguments that builds the agent (instead of --agent): called "
        "once on each Ray actor with --ray, else once here",
    )
    parser.add_argument(
        "--ray",
        type=int,
        metavar="N",
        default=None,
        help=f"play the {what} on N Ray actors that each build the agent once (a local Ray with N "
        "CPUs; needs pip install 'giskard-nb[ray]'); the agent is --agent or --agent-factory "
        "module:function",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="with --ray: join a running Ray cluster instead ('auto', or ray://head:10001)",
    )


class ImportedAgent:
    """The agent factory the actors call: import ``spec`` (``module:function``, with ``path``, the
    folder the command ran in, importable) and return the function, or what calling it returns
    (``call``: an ``--agent-factory``). Pickled by reference: cheap to send."""

    def __init__(self, spec: str, *, call: bool, path: str | None = None):
        self.spec, self.call, self.path = spec, call, path

    @property
    def name(self) -> str:
        return self.spec.rpartition(":")[2]

    def __call__(self) -> Any:
        if self.path and Path(self.path).is_dir() and self.path not in sys.path:
            sys.path.insert(0, self.path)
        flag = "--agent-factory" if self.call else "--agent"
        function = import_function(self.spec, flag=flag)
        return function() if self.call else function

    def __repr__(self) -> str:
        return f"ImportedAgent({self.spec!r}, call={self.call})"


def _spec(value: str, flag: str) -> str:
    module, _, function = value.partition(":")
    if not module or not function or value.startswith(("http:", "https:")):
        raise UsageError(
            f"{flag} {value!r}: --ray plays a Python agent on Ray actors: give module:function "
            "(an agent behind a URL is I/O-bound: use --max-concurrency without --ray)"
        )
    return value


def ray_agent(args: argparse.Namespace) -> ImportedAgent | None:
    """The factory the actors call for ``--ray`` (None without it); usage errors, and a missing
    Ray, are raised here, before anything is stored."""
    if args.agent and args.agent_factory:
        raise UsageError("give --agent or --agent-factory, not both")
    if args.ray is None:
        if args.ray_address:
            raise UsageError("--ray-address joins a Ray cluster for --ray N: give --ray N too")
        return None
    if args.ray < 1:
        raise UsageError("--ray N: N is the number of Ray actors, at least 1")
    if args.agent_factory:
        spec, call = _spec(args.agent_factory, "--agent-factory"), True
    elif args.agent:
        spec, call = _spec(args.agent, "--agent"), False
    elif getattr(args, "demo", False):
        spec, call = DEMO_AGENT, False
    else:
        raise UsageError("--ray: give --agent module:function or --agent-factory module:function")
    from giskard_nb.executors.ray import import_ray

    import_ray()  # ConfigError naming giskard-nb[ray] when it is not installed
    return ImportedAgent(spec, call=call, path=str(Path.cwd()))


def ray_executor(args: argparse.Namespace) -> Any:
    """The ``RayExecutor`` of ``--ray N`` (a context manager: it stops what it started)."""
    from giskard_nb.executors import RayExecutor

    return RayExecutor(num_actors=args.ray, address=args.ray_address or None)


def factory_agent(args: argparse.Namespace) -> Any:
    """The agent ``--agent-factory`` builds here (without ``--ray``), or None."""
    if not args.agent_factory:
        return None
    return import_function(args.agent_factory, flag="--agent-factory")()
