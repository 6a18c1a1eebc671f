"""ScenarioBuilder and its check forms, headless."""

from __future__ import annotations

import importlib
import json

import pytest

from giskard_nb import Check, CheckResult, GiskardValidationError, ScenarioBuilder
from giskard_nb.widgets.forms import CheckForm, check_kinds

samples = importlib.import_module("frontend_samples")


def test_forms_come_from_the_registry():
    kinds = check_kinds()
    assert {"string_matching", "regex_matching", "equals", "json_valid", "all_of"} <= set(kinds)
    assert "fn" not in kinds  # needs a Python function: not buildable from a form
    assert "frontend_fake_judge" in kinds  # custom registered checks appear too
    form = CheckForm("string_matching")
    kinds_of = {name: spec[0] for name, spec in form.fields.items()}
    assert kinds_of["keyword"] == "str" and kinds_of["case_sensitive"] == "bool"
    assert kinds_of["normalization_form"] == "choice"
    assert form.fields["target_key"][1].value == "trace.last.outputs"  # defaults are shown
    assert CheckForm("frontend_fake_judge").fields["word"][1].description == "word *"


def test_form_values_are_typed_and_validated():
    check = CheckForm("regex_matching").set(pattern=r"\d+", match_timeout_seconds=1.5).build()
    assert check.pattern == r"\d+" and check.match_timeout_seconds == 1.5
    check = CheckForm("equals").set(expected_value='{"a": [1, 2]}').build()
    assert check.expected_value == {"a": [1, 2]}
    assert CheckForm("equals").set(expected_value="plain words").build().expected_value == (
        "plain words"
    )
    check = CheckForm("string_matching").set(keyword="x", normalization_form=None).build()
    assert check.normalization_form is None
    nested = CheckForm("all_of").set(checks=[{"kind": "string_matching", "keyword": "a"}]).build()
    assert nested.checks[0].keyword == "a"
    with pytest.raises(GiskardValidationError, match="must be a number"):
        CheckForm("regex_matching").set(pattern="a", match_timeout_seconds="soon").build()
    with pytest.raises(GiskardValidationError, match="invalid regex_matching check"):
        CheckForm("regex_matching").set(pattern="(").build()
    # the seed's key aliases fill the target_key field
    assert CheckForm("equals").set(
        key="trace.last.inputs", expected_value="q"
    ).build().target_key == ("trace.last.inputs")
    with pytest.raises(GiskardValidationError, match="has no field 'nope'"):
        CheckForm("equals").set(nope=1)
    with pytest.raises(GiskardValidationError, match="must be JSON"):
        CheckForm("all_of").set(checks="not json").build()


def test_compose_preview_run_and_save_with_buttons():
    saved = []
    builder = ScenarioBuilder(samples.agent, on_save=lambda s: saved.append(s) or "id-1")
    w = builder._w
    w["name"].value = "greeting"
    w["tags"].value = "topic:greeting, smoke"
    w["inputs"].value = "world"
    w["add_interaction"].click()
    w["kind"].value = "string_matching"
    builder._form("string_matching").set(keyword="hello")
    w["add_check"].click()
    assert w["message"].value == ""
    data = json.loads(builder.preview())
    assert data["name"] == "greeting" and data["tags"] == ["topic:greeting", "smoke"]
    assert data["steps"][0]["interacts"][0]["inputs"] == "world"
    assert data["steps"][0]["checks"][0]["kind"] == "string_matching"
    assert "greeting" in w["preview"].value and "string_matching" in w["steps"].value
    result = builder.run().wait(10)
    assert result.passed and "PASS" in w["result"].value
    w["save"].click()
    assert saved[0].name == "greeting" and builder.save() == "id-1"


def test_bad_form_input_is_shown_not_raised():
    builder = ScenarioBuilder(samples.agent)
    builder._w["add_interaction"].click()  # empty input
    assert "needs some input text" in builder._w["message"].value
    builder._w["kind"].value = "regex_matching"
    builder._form("regex_matching").set(pattern="(")
    builder._w["add_check"].click()
    assert "invalid regular expression" in builder._w["message"].value
    builder._w["run"].click()
    assert "the scenario is empty" in builder._w["message"].value
    assert builder._w["save"].disabled
    with pytest.raises(GiskardValidationError, match="on_save"):
        builder.save()


def test_add_check_objects_remove_last_and_fixed_outputs():
    class Always(Check):
        def run(self, trace):
            return CheckResult.success("ok")

    builder = ScenarioBuilder({"a": samples.agent})
    builder.add_interaction("q", outputs="<b>fixed</b>")
    builder.add_check(Always(name="always"))
    builder.add_check("string_matching", keyword="fixed")
    assert builder.scenario.checks_count == 2
    assert "&lt;b&gt;fixed&lt;/b&gt;" in builder._w["steps"].value
    builder.remove_last()
    assert builder.scenario.checks_count == 1
    builder.remove_last()
    builder.remove_last()
    assert builder.scenario.steps == []
    builder.remove_last()  # nothing left: no error
    with pytest.raises(GiskardValidationError, match="only with a check kind"):
        builder.add_check(Always(), keyword="x")


async def test_run_in_a_notebook_loop_is_a_task():
    builder = ScenarioBuilder(samples.agent)
    builder.add_interaction("xss")
    builder.add_check("string_matching", keyword="zzz")
    builder._w["run"].click()
    result = await builder.job
    assert result.failed
    assert "<img" not in builder._w["result"].value and "&lt;img" in builder._w["result"].value


def test_default_check_is_a_string_match_form_and_save_confirms_the_stored_id():
    from giskard_nb import Hub
    from giskard_nb.widgets import save_to_hub

    hub = Hub(":memory:")
    project = hub.projects.create("p")
    dataset = hub.datasets.create(project.id, name="d")
    builder = ScenarioBuilder(lambda inputs: "ok", on_save=save_to_hub(hub, dataset.id))
    w = builder._w
    assert w["kind"].value == "string_matching"  # not all_of's bare JSON box
    assert [v for _, v in w["kind"].options][:4] == [
        "string_matching", "regex_matching", "equals", "json_valid",
    ]  # fmt: skip
    form = builder._form("string_matching")
    assert {"keyword", "case_sensitive"} <= set(form.fields)
    form.set(keyword="ok")
    w["inputs"].value = "hello"
    w["add_interaction"].click()
    w["add_check"].click()
    w["name"].value = "<script>x</script>"
    w["save"].click()
    stored = hub.test_cases.list(dataset.id)[0]
    assert stored.checks[0].params == {"keyword": "ok"}
    assert f"<code>{stored.id}</code>" in w["message"].value and "saved" in w["message"].value
    assert "<script>" not in w["message"].value
    hub.close()
