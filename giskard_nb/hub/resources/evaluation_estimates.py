"""``hub.evaluations.estimate``: the preflight of an evaluation (calls, tokens, cost, time), mixed
into ``EvaluationsResource``. Nothing runs and nothing is stored; the counting is
``giskard_nb.hub.evaluation_estimate``'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from giskard_nb.core.collector import paused
from giskard_nb.errors import GiskardValidationError

__all__ = ["EstimateEvaluations"]


class EstimateEvaluations:
    """The ``estimate`` method of ``hub.evaluations`` (needs the resource's ``_store``)."""

    _store: Any

    def estimate(
        self,
        dataset_id: str,
        *,
        agent_id: str | None = None,
        agent_name: str | None = None,
        tags: Sequence[str] = (),
        repeats: int = 1,
        max_concurrency: int = 8,
    ) -> Any:
        """The ``EvaluationEstimate`` of evaluating an agent on the active test cases of a dataset
        (those having every tag in ``tags``), each run ``repeats`` times: agent calls and tokens,
        judge calls (per check) and tokens, the judge calls' cost, and the time, from the most
        recent finished evaluation of the dataset by the same agent (``agent_id`` for a registered
        agent, ``agent_name`` for a local one). Nothing runs, nothing is stored."""
        from giskard_nb.hub.evaluation_estimate import (
            check_positive,
            estimate_evaluation,
            latest_comparable,
        )

        repeats = check_positive("repeats", repeats)
        max_concurrency = check_positive("max_concurrency", max_concurrency)
        if agent_id is not None and agent_name is not None:
            raise GiskardValidationError(
                "give agent_id (a registered agent) or agent_name (a local agent), not both"
            )
        if isinstance(tags, str):
            tags = [tags]
        resources = self._store.resources
        dataset = resources.datasets.retrieve(dataset_id)
        if agent_id is not None:
            agent_name = resources.agents.retrieve(agent_id).name
        with paused():  # many test cases read at once: see giskard_nb.core.collector
            cases = resources.test_cases.list(dataset.id, tags=list(tags) or None, status="active")
        previous = None
        if agent_id is None and agent_name is None:
            why = "no agent given (agent_id or agent_name): no earlier run to time it by"
        else:
            runs = resources.evaluations.list(dataset_id=dataset.id)
            previous = latest_comparable(runs, agent_id=agent_id, agent_name=agent_name)
            why = f"no finished evaluation of this dataset by agent {agent_name!r} yet"
        durations = (
            (r.get("duration_ms") for r in resources.evaluations.results.iter_raw(previous.id))
            if previous is not None
            else ()
        )
        return estimate_evaluation(
            dataset.id,
            cases,
            resources.checks.by_identifier(dataset.project_id),
            repeats=repeats,
            max_concurrency=max_concurrency,
            previous=previous,
            durations=durations,
            no_previous=why,
        )
