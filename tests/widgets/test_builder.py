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


def test_forms_show_what_a_user_fills_advanced_on_demand():
    builder = ScenarioBuilder(samples.agent)
    form = builder._form("string_matching")
    assert form.shown == ["keyword", "case_sensitive"]  # no text, target_key, keyword_key, NFKC
    note = builder._w["form"].children[0].children[-1].value
    assert "advanced fields hidden" in note
    builder._w["advanced"].value = True  # the toggle shows every field of the current form
    assert {"text", "target_key", "keyword_key", "normalization_form"} <= set(form.shown)
    assert set(builder.choose_check("regex_matching").shown) >= {"pattern", "target_key"}
    builder._w["advanced"].value = False
    assert builder._form("regex_matching").shown == ["pattern"]
    # hidden fields keep working from code, and their defaults
    check = builder._form("string_matching").set(keyword="hi", normalization_form=None).build()
    assert check.normalization_form is None and check.target_key == "trace.last.outputs"
    assert CheckForm("unsafe_output").shown == []  # nothing to fill: said so
    assert "nothing to fill" in CheckForm("unsafe_output").widget.children[-1].value
    assert CheckForm("rego_policy").shown[:2] == ["policy", "rule"]  # required fields always
    assert CheckForm("frontend_fake_judge").shown == ["word"]  # a custom check: its own fields


def test_labels_are_whole_and_readable():
    for kind in check_kinds():
        form = CheckForm(kind, advanced=True)
        width = int(next(iter(form.fields.values()))[1].style.description_width.removesuffix("px"))
        for name, (_, widget, _) in form.fields.items():
            assert widget.description.startswith(name.replace("_", " "))
            assert 8 * len(widget.description) + 12 <= width, (kind, name)  # never cut


def test_check_dropdown_is_grouped_common_first_and_reaches_every_kind():
    builder = ScenarioBuilder(samples.agent)
    w = builder._w
    assert w["family"].value == "common" and w["kind"].value == "string_matching"
    assert len(w["kind"].options) <= 10  # not the 30+ registered kinds in one list
    assert [f for _, f in w["family"].options][:2] == ["common", "text"]
    reachable = set()
    for _, family in w["family"].options:
        w["family"].value = family
        kinds = [k for _, k in w["kind"].options]
        reachable |= set(kinds)
        assert w["kind"].value == kinds[0] and builder._w["form"].children
    assert reachable == set(check_kinds())
    w["family"].value = "text"
    assert [k for _, k in w["kind"].options][:2] == ["string_matching", "regex_matching"]
    form = builder.choose_check("ndcg")  # picks the family too
    assert w["family"].value == "retrieval" and w["kind"].value == "ndcg"
    assert form.shown == ["relevant", "k", "threshold"]
    assert builder._w["form"].children == (form.widget,)
    with pytest.raises(GiskardValidationError, match="unknown check kind 'nope'"):
        builder.choose_check("nope")


def test_save_says_how_to_enable_it():
    builder = ScenarioBuilder(samples.agent)
    assert builder._w["save"].disabled
    hint = builder._w["save_hint"].value
    assert "on_save=save_to_hub(hub, dataset_id)" in hint and "from giskard_nb.widgets" in hint
    assert "on_save" in builder._w["save"].tooltip
    with_save = ScenarioBuilder(samples.agent, on_save=lambda s: None)
    assert not with_save._w["save"].disabled and with_save._w["save_hint"].value == ""
