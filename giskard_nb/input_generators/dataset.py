"""DatasetInputGenerator: inputs taken from a list (or one fixed prompt), one per turn, no LLM."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from pydantic import model_validator

from giskard_nb.core.interaction import Trace
from giskard_nb.core.spec import InputGenerator
from giskard_nb.errors import GiskardValidationError

__all__ = ["DatasetInputGenerator"]


@InputGenerator.register("dataset_input")
class DatasetInputGenerator(InputGenerator):
    """Yields ``inputs`` in order, one per turn (or the single ``prompt``, the reference's field).

    When the target's input type is a pydantic model, dict items are validated into it, so a malformed
    row fails at generation with the row's index instead of inside the agent."""

    inputs: list[Any] | None = None
    prompt: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> DatasetInputGenerator:
        if (self.inputs is None) == (self.prompt is None):
            raise GiskardValidationError(
                "DatasetInputGenerator takes exactly one of inputs=[...] or prompt="
            )
        if self.inputs is not None and not self.inputs:
            raise GiskardValidationError("DatasetInputGenerator(inputs=[]) has nothing to yield")
        return self

    async def __call__(
        self, trace: Trace, input_type: type | None = None
    ) -> AsyncGenerator[Any, Trace]:
        items = self.inputs if self.inputs is not None else [self.prompt]
        validate = getattr(input_type, "model_validate", None)
        for index, item in enumerate(items):
            if validate is not None and isinstance(item, dict):
                try:
                    item = validate(item)
                except ValueError as exc:
                    raise GiskardValidationError(
                        f"dataset row {index} does not fit {input_type.__name__}: {exc}"
                    ) from None
            yield item
