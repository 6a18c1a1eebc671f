"""``giskard_nb.scan.models.resolve_models``: the one place a scan's judge and generator default."""

from __future__ import annotations

import pytest

import giskard_nb.llm
from giskard_nb.llm import set_default_generator
from giskard_nb.scan import estimate_scan
from giskard_nb.scan.models import resolve_models
from giskard_nb.scan.plan import ScanOptions

pytest.importorskip("giskard_nb.testing")
from giskard_nb.testing import FakeLLMServer

ON, OFF = ScanOptions(), ScanOptions(use_judge=False)


@pytest.fixture(autouse=True)
def _no_default(monkeypatch):
    monkeypatch.delenv("GISKARD_NB_MODEL", raising=False)
    set_default_generator(None)
    yield
    set_default_generator(None)


@pytest.fixture
def model():
    with FakeLLMServer(reply="fake reply") as server:
        yield server.generator()


def test_nothing_configured_means_no_models():
    assert resolve_models(ON) == (None, None)


def test_the_configured_default_fills_what_is_not_given(model):
    set_default_generator(model)
    mine = object()
    assert resolve_models(ON) == (model, model)
    assert resolve_models(ON, judge=mine) == (mine, model)
    assert resolve_models(ON, generator=mine) == (model, mine)
    assert resolve_models(ON, judge=None) == (None, model)  # None given: none, not the default


def test_use_judge_false_drops_the_judge_whatever_was_given(model):
    set_default_generator(model)
    assert resolve_models(OFF) == (None, model)
    assert resolve_models(OFF, judge=object(), generator=None) == (None, None)


def test_the_default_is_not_looked_up_when_both_are_given(monkeypatch):
    def boom(**_):
        raise AssertionError("the default model was looked up")

    monkeypatch.setattr(giskard_nb.llm, "get_default_generator", boom)
    assert resolve_models(ON, judge=None, generator=None) == (None, None)
    with pytest.raises(AssertionError, match="looked up"):
        resolve_models(ON, judge=None)


def test_the_preflight_uses_the_default_judge(model):
    probe = {"probe_ids": ["harm.direct_request"], "max_attempts_per_probe": 2}
    assert estimate_scan(**probe).judge_calls == 0
    set_default_generator(model)
    assert estimate_scan(**probe).judge_calls == 2
    assert estimate_scan(**probe, use_judge=False).judge_calls == 0
    assert estimate_scan(**probe, judge=None).judge_calls == 0
