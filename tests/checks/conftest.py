from __future__ import annotations

from typing import Any

import pytest

from giskard_nb import Interaction, Trace


def make_trace(outputs: Any = "", inputs: Any = "q", metadata: dict | None = None) -> Trace:
    return Trace(
        interactions=[Interaction(inputs=inputs, outputs=outputs, metadata=metadata or {})]
    )


@pytest.fixture
def trace_of():
    return make_trace
