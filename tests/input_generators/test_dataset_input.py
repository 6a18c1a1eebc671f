from __future__ import annotations

import pytest
from pydantic import BaseModel

from giskard_nb import DatasetInputGenerator, InputGenerator, Scenario, Target


class Question(BaseModel):
    text: str


def test_dataset_inputs_drive_one_turn_each():
    seen = []

    def agent(inputs):
        seen.append(inputs)
        return inputs.upper()

    target: Target = agent
    result = (
        Scenario("ds").interact(DatasetInputGenerator(inputs=["a", "b", "c"]), target).run_sync()
    )
    assert seen == ["a", "b", "c"]
    assert [i.outputs for i in result.final_trace.interactions] == ["A", "B", "C"]


def test_prompt_yields_once_and_round_trips():
    gen = DatasetInputGenerator(prompt="hello")
    result = Scenario("p").interact(gen, lambda inputs: inputs).run_sync()
    assert [i.inputs for i in result.final_trace.interactions] == ["hello"]
    again = InputGenerator.model_validate(gen.model_dump())
    assert isinstance(again, DatasetInputGenerator) and again.prompt == "hello"


@pytest.mark.parametrize("kwargs", [{}, {"inputs": ["a"], "prompt": "b"}, {"inputs": []}])
def test_bad_configuration_is_rejected(kwargs):
    with pytest.raises(ValueError, match="DatasetInputGenerator"):
        DatasetInputGenerator(**kwargs)


async def test_dict_rows_are_validated_into_a_structured_input_type():
    stream = DatasetInputGenerator(inputs=[{"text": "hi"}, {"nope": 1}])(None, Question)
    first = await stream.asend(None)
    assert first == Question(text="hi")
    with pytest.raises(ValueError, match="dataset row 1 does not fit Question"):
        await stream.asend(None)
