"""Generic spellings from giskard-checks: ``Trace[str, str]``, ``Check[I, O, T]`` subclasses, registration."""

from __future__ import annotations

from giskard_nb import Check, CheckResult, Interaction, Scenario, TestCase, Trace
from giskard_nb.core.spec import InputGenerator, Interact, InteractionSpec


def test_every_core_model_accepts_type_parameters():
    assert Trace[str, str] is Trace
    assert Interaction[str, str] is Interaction
    assert Check[str, str, Trace[str, str]] is Check
    assert InteractionSpec[str, str] is InteractionSpec
    assert InputGenerator[str, Trace[str, str]] is InputGenerator
    assert Scenario[str, str, Trace[str, str]] is Scenario
    assert TestCase[Trace[str, str]] is TestCase
    assert Interact[str, str, Trace[str, str]] is Interact


@Check.register("test_generics_len")
class _LongEnough(Check[str, str, Trace[str, str]]):
    min_len: int = 1

    def run(self, trace: Trace[str, str]) -> CheckResult:
        out = trace.last.outputs if trace.last else ""
        if len(out) >= self.min_len:
            return CheckResult.success("long enough")
        return CheckResult.failure(f"{len(out)} < {self.min_len}")


def test_parametrized_subclass_registers_and_round_trips_by_kind():
    check = _LongEnough(min_len=3)
    assert isinstance(check, Check)
    dumped = check.model_dump()
    assert dumped["kind"] == "test_generics_len"
    loaded = Check.model_validate(dumped)
    assert type(loaded) is _LongEnough and loaded.min_len == 3
    assert Check.model_validate_json(check.model_dump_json()) == check


def test_parametrized_subclass_runs_in_a_scenario_and_fails_honestly():
    scenario = (
        Scenario[str, str, Trace[str, str]]("typed")
        .interact("hi", "ab")
        .check(_LongEnough(min_len=3))
    )
    result = scenario.run_sync()
    assert result.status == "fail"
    loaded = Scenario.model_validate_json(scenario.model_dump_json())
    assert isinstance(loaded.steps[0].checks[0], _LongEnough)


def test_trace_subclass_of_a_parametrized_trace_keeps_its_fields():
    class MyTrace(Trace[str, str]):
        note: str = "x"

    trace = MyTrace(interactions=[Interaction[str, str](inputs="a", outputs="b")])
    assert trace.last.outputs == "b" and trace.note == "x"
    assert isinstance(trace, Trace)


def test_results_accept_type_parameters_and_stay_one_class():
    """``ScenarioResult[MyTrace]`` / ``SuiteResult[...]`` / ``TestCaseResult[...]`` (annotations and
    module-level aliases written for giskard-checks) return the class: a result built or reloaded
    through the parametrized name is an ordinary result."""
    from giskard_nb import ScenarioResult, SuiteResult
    from giskard_nb.core.testcase import TestCaseResult

    class MyTrace(Trace[str, str]):
        pass

    assert ScenarioResult[MyTrace] is ScenarioResult
    assert SuiteResult[MyTrace] is SuiteResult
    assert TestCaseResult[MyTrace] is TestCaseResult
    result: ScenarioResult[MyTrace] = (
        Scenario("typed result").interact("hi", "ab").check(_LongEnough(min_len=3)).run_sync()
    )
    assert isinstance(result, ScenarioResult[MyTrace]) and result.status == "fail"
    suite: SuiteResult[MyTrace] = SuiteResult[MyTrace](results=[result])
    assert suite.failed_count == 1
    reloaded = ScenarioResult[MyTrace].model_validate_json(result.model_dump_json())
    assert reloaded.status == "fail" and reloaded.steps[0].results[0].message == "2 < 3"


def test_results_are_generic_for_type_checkers():
    """Statically the models are ``Generic`` over a variadic parameter (``core.generic.Params``), so
    ``ScenarioResult[MyTrace]`` type-checks; at run time the base is the plain mixin."""
    import typing

    from giskard_nb import ScenarioResult, SuiteResult
    from giskard_nb.core import generic
    from giskard_nb.core.testcase import TestCaseResult

    assert isinstance(generic.Params, typing.TypeVarTuple)
    for cls in (ScenarioResult, SuiteResult, TestCaseResult, Scenario, TestCase):
        assert generic.Parametrizable in cls.__mro__, cls
        assert typing.Generic not in cls.__mro__, cls  # no pydantic parametrized copies
