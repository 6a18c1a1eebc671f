"""Executors: where a run's work items (scenarios, scan attacks) are played, when not in this process.
``Executor`` is the seam a run calls with ``(agent_factory, items, on_result, task=)``; ``RayExecutor``
plays the items on Ray actors that each build the agent once (``pip install 'giskard-nb[ray]'``; Ray
is imported only when a run starts). May import: errors."""

from giskard_nb.executors.base import CHECKS_ON, Executor, Task, WorkItem, checks_on_of
from giskard_nb.executors.ray import RayExecutor

__all__ = ["CHECKS_ON", "Executor", "RayExecutor", "Task", "WorkItem", "checks_on_of"]
