from __future__ import annotations

import pytest
from pydantic import ValidationError

from giskard_nb import (
    Check,
    CheckResult,
    DuplicateKindError,
    Equals,
    InteractionSpec,
    Scenario,
    StringMatching,
    UnknownKindError,
)


@Check.register("test_registry_always_pass")
class AlwaysPass(Check):
    threshold: float = 0.5

    def run(self, trace):
        return CheckResult.success("ok")


def test_registered_kind_appears_in_dumps_and_kinds():
    check = AlwaysPass(name="x", threshold=0.7)
    assert check.kind == "test_registry_always_pass"
    assert check.model_dump()["kind"] == "test_registry_always_pass"
    assert "test_registry_always_pass" in Check.kinds()
    assert "interact" in InteractionSpec.kinds() and "interact" not in Check.kinds()


def test_polymorphic_round_trip_through_the_base():
    restored = Check.model_validate(AlwaysPass(threshold=0.7).model_dump())
    assert type(restored) is AlwaysPass and restored.threshold == 0.7
    json_text = StringMatching(keyword="x").model_dump_json()
    assert type(Check.model_validate_json(json_text)) is StringMatching


def test_unknown_kind_names_the_kind_and_the_registered_kinds():
    with pytest.raises((UnknownKindError, ValidationError)) as info:
        Check.model_validate({"kind": "no_such_check"})
    text = str(info.value)
    assert "no_such_check" in text and "string_matching" in text and "equals" in text


def test_missing_kind_is_a_clear_error():
    with pytest.raises(ValidationError, match="give a 'kind'"):
        Check.model_validate({"name": "x"})


def test_kind_mismatch_on_a_concrete_class_dispatches_or_fails():
    assert type(Check.model_validate({"kind": "equals", "expected_value": 1})) is Equals
    with pytest.raises(ValidationError, match="Unknown check kind 'string_matching'"):
        Equals.model_validate({"kind": "string_matching", "keyword": "a"})


def test_duplicate_registration_by_another_class_raises():
    with pytest.raises(DuplicateKindError) as info:

        @Check.register("equals")
        class Impostor(Check):
            def run(self, trace):
                return CheckResult.success()

    assert "equals" in str(info.value) and "Registered kinds" in str(info.value)


def test_redefining_the_same_class_replaces_it_like_a_rerun_notebook_cell():
    def define():
        @Check.register("test_registry_redefined")
        class Redefined(Check):
            def run(self, trace):
                return CheckResult.success()

        return Redefined

    first, second = define(), define()
    assert first is not second
    assert type(Check.model_validate({"kind": "test_registry_redefined"})) is second


def test_register_rejects_non_subclasses_and_empty_kinds():
    with pytest.raises(ValueError, match="non-empty"):
        Check.register("")
    with pytest.raises(ValueError, match="not a subclass"):
        Check.register("test_registry_bad")(int)


def test_unknown_fields_are_rejected_on_checks_and_ignored_with_a_warning_on_scenarios():
    with pytest.raises(ValidationError, match="keywrd"):
        StringMatching(keywrd="x")
    # Scenarios tolerate unknown keys (forward compatibility, as in giskard-checks), loudly.
    with pytest.warns(UserWarning, match="stepz"):
        loaded = Scenario.model_validate({"name": "s", "stepz": []})
    assert loaded.name == "s" and loaded.steps == []
