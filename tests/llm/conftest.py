"""Fixtures of the LLM-layer tests: a running fake server and clean default models."""

from __future__ import annotations

import pytest

from giskard_nb.llm import set_default_embedding_model, set_default_generator
from giskard_nb.testing import FakeLLMServer


@pytest.fixture(autouse=True)
def _no_default_models():
    set_default_generator(None)
    set_default_embedding_model(None)
    yield
    set_default_generator(None)
    set_default_embedding_model(None)


@pytest.fixture
def server():
    with FakeLLMServer() as fake:
        yield fake


@pytest.fixture
def gen(server):
    """A generator on the fake server that retries fast."""
    return server.generator(max_retries=2, retry_base_delay=0.01, retry_max_delay=1.0)
