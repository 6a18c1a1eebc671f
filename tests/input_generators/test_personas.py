"""One persona model: dataset generation reads it, the Hub stores it as a project scenario."""

from __future__ import annotations

import pytest

import giskard_nb
from giskard_nb.dataset_generation import Persona as GenerationPersona
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import Hub
from giskard_nb.hub.models.workflow import ProjectScenario
from giskard_nb.input_generators import Persona


def test_there_is_one_persona_model_and_a_stored_scenario_is_one():
    assert giskard_nb.Persona is Persona is GenerationPersona
    scenario = ProjectScenario(project_id="p", name="angry", description="An angry customer.")
    assert isinstance(scenario, Persona)
    assert list(ProjectScenario.model_fields)[-4:] == ["project_id", "name", "description", "rules"]


@pytest.mark.parametrize("model", [Persona, ProjectScenario])
def test_both_read_rules_the_same_way(model):
    extra = {"project_id": "p"} if model is ProjectScenario else {}
    made = model(name="n", description="d", rules=["  be polite "], **extra)
    assert made.rules == ["be polite"]
    with pytest.raises(ValueError, match="rules are non-empty sentences"):
        model(name="n", description="d", rules=["ok", "  "], **extra)
    with pytest.raises(ValueError, match="at most 200 characters"):
        model(name="x" * 201, description="d", **extra)


def test_a_stored_scenario_keeps_its_record_identity():
    hub = Hub(":memory:")
    project = hub.projects.create("p")
    scenario = hub.projects.scenarios.create(project.id, name="n", description="d", rules=["r"])
    again = hub.projects.scenarios.retrieve(scenario.id)
    assert again == scenario and hash(again) == hash(scenario)
    assert {scenario: 1}[again] == 1  # hashable although its rules are a list
    with pytest.raises(GiskardValidationError, match="rules are non-empty"):
        hub.projects.scenarios.update(scenario.id, rules=[" "])
    hub.close()
