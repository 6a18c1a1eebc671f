"""Saving what the ScenarioBuilder and the Playground made as a Hub test case.

The conversion is the Hub's (``giskard_nb.hub.scenario_cases.scenario_to_test_case``): a scenario's text
turns become the conversation, its checks check specs, its tags and name are kept. It is imported when
first used, so importing the widgets does not load the Hub.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from giskard_nb.core.scenario import Scenario

__all__ = ["save_to_hub", "scenario_to_test_case"]


def scenario_to_test_case(scenario: Scenario) -> dict[str, Any]:
    """The ``hub.test_cases.create`` arguments (messages, checks, tags, name) of a scenario (see
    ``giskard_nb.hub.scenario_cases.scenario_to_test_case``)."""
    from giskard_nb.hub.scenario_cases import scenario_to_test_case as to_test_case

    return to_test_case(scenario)


def save_to_hub(hub: Any, dataset_id: str) -> Callable[[Scenario], Any]:
    """An ``on_save`` for ScenarioBuilder / Playground that adds the scenario to a Hub dataset as a
    test case and returns the stored ``HubTestCase``."""
    hub.datasets.retrieve(dataset_id)  # a clear NotFoundError now rather than on the first save

    def save(scenario: Scenario) -> Any:
        return hub.test_cases.create(dataset_id, **scenario_to_test_case(scenario))

    return save
