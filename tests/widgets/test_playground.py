"""Playground, headless: chatting keeps the conversation; it becomes a scenario and is saved."""

from __future__ import annotations

import importlib

import pytest

from giskard_nb import GiskardValidationError, Playground, StringMatching

samples = importlib.import_module("frontend_samples")


def counting_agent(inputs, trace):
    return f"turn {len(trace.interactions) + 1}: {inputs}"


async def test_send_box_keeps_the_conversation():
    pg = Playground(counting_agent)
    pg._w["input"].value = "hi"
    pg._w["send"].click()
    assert pg._w["input"].value == ""
    assert await pg.job == "turn 1: hi"
    assert await pg.job == "turn 1: hi"  # the same job, awaited twice
    pg.send("again")
    assert await pg.job == "turn 2: again"
    assert [i.inputs for i in pg.trace.interactions] == ["hi", "again"]
    assert all(i.latency_s is not None and i.latency_s >= 0 for i in pg.trace.interactions)
    assert "turn 2: again" in pg._w["chat"].value


def test_hostile_output_is_escaped_and_errors_are_shown():
    pg = Playground(samples.agent)
    pg.send("xss").wait(5)
    assert "<img" not in pg._w["chat"].value and "&lt;script&gt;" in pg._w["chat"].value
    with pytest.raises(RuntimeError, match="agent exploded"):
        pg.send("boom").wait(5)
    assert "the agent raised RuntimeError: agent exploded" in pg._w["chat"].value
    assert len(pg.trace.interactions) == 1  # the failed turn is not recorded


def test_to_scenario_replays_or_reasks_and_save():
    saved = []
    pg = Playground({"counter": counting_agent}, on_save=saved.append)
    pg.send("a").wait(5)
    pg.send("b").wait(5)
    replay = pg.to_scenario("conv", checks=[StringMatching(keyword="turn 2")])
    assert replay.run_sync().passed  # recorded outputs, no agent needed
    live = pg.to_scenario("live", replay=False)
    assert live.run_sync(counting_agent).final_trace.last.outputs == "turn 2: b"
    pg._w["name"].value = "from the box"
    pg._w["save"].click()
    assert saved[0].name == "from the box" and saved[0].steps[0].interacts[1].inputs == "b"
    pg._w["reset"].click()
    assert pg.trace.interactions == [] and "no messages yet" in pg._w["chat"].value


def test_bad_use_is_explained():
    with pytest.raises(GiskardValidationError, match="needs an agent"):
        Playground(None)
    pg = Playground(counting_agent)
    with pytest.raises(GiskardValidationError, match="empty"):
        pg.to_scenario()
    with pytest.raises(GiskardValidationError, match="on_save"):
        pg.save()
    with pytest.raises(GiskardValidationError, match="unknown agent"):
        pg.send("x", agent="other")
    pg._w["send"].click()  # empty box
    assert "type a message first" in pg._w["message"].value
    assert pg._w["save"].disabled


async def test_enter_sends_and_a_following_click_does_not_resend():
    pg = Playground(counting_agent)
    assert pg._w["input"].continuous_update is False  # the value arrives on Enter
    pg._w["input"].value = "hi"  # what Enter (or leaving the box) does in the browser
    assert pg.job is not None and pg._w["input"].value == ""
    assert await pg.job == "turn 1: hi"
    pg._w["send"].click()  # the click that followed leaving the box: nothing more is sent
    assert len(pg.trace.interactions) == 1 and pg._w["message"].value == ""
    assert "giskard-turn-user" in pg._w["chat"].value
    assert "giskard-turn-assistant" in pg._w["chat"].value


def test_save_confirms_with_the_stored_id_and_labels_are_not_cut():
    pg = Playground(counting_agent, on_save=lambda scenario: {"id": "tc-<42>"})
    pg.send("a").wait(5)
    pg._w["name"].value = "<b>mine</b>"
    pg._w["save"].click()
    message = pg._w["message"].value
    assert "saved" in message and "tc-&lt;42&gt;" in message and "<b>mine" not in message
    assert pg._w["save"].layout.width == "auto"
