from __future__ import annotations

import pytest
from pydantic import BaseModel

from giskard_nb import CheckStatus, Correctness, Interaction, Trace
from giskard_nb.testing import FakeModel


class Answer(BaseModel):
    value: int


async def test_scripted_replies_in_order_then_exhaustion_is_an_error():
    fake = FakeModel(replies=["one", {"value": 2}])
    assert (await fake.complete("a")).text == "one"
    assert (await fake.complete("b", output_type=Answer)).parsed == Answer(value=2)
    with pytest.raises(Exception, match="ran out of replies"):
        await fake.complete("c")
    assert [c[-1]["content"] for c in fake.calls][:1] == ["a"]
    looping = FakeModel(replies=["x"], repeat_last=True)
    assert [(await looping.complete("q")).text for _ in range(3)] == ["x", "x", "x"]


async def test_function_backed_model_sees_the_messages():
    fake = FakeModel(fn=lambda messages: messages[-1]["content"].upper())
    assert (await fake.complete("shout")).text == "SHOUT"
    assert fake.complete_sync("again").text == "AGAIN"


async def test_fake_model_drives_an_llm_check_and_bad_replies_are_errors():
    trace = Trace(interactions=[Interaction(inputs="2+2?", outputs="4")])
    ok = FakeModel(replies=[{"reason": "right", "passed": True}])
    assert (await Correctness(generator=ok, reference="4").run(trace)).passed
    bad = FakeModel(replies=["not json", "still not json"])
    assert (await Correctness(generator=bad, reference="4").run(trace)).status is CheckStatus.ERROR


def test_configuration_is_validated():
    with pytest.raises(ValueError, match="exactly one of"):
        FakeModel()
    with pytest.raises(ValueError, match="exactly one of"):
        FakeModel(replies=["a"], fn=lambda m: "b")


async def test_non_text_reply_is_an_error():
    with pytest.raises(Exception, match="must be a str"):
        await FakeModel(replies=[3.5]).complete("x")
