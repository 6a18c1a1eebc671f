"""Test helpers that ship with giskard-nb, for your own CI as much as ours. May import: errors and
llm.

``FakeLLMServer`` is an OpenAI-compatible server on 127.0.0.1 scripted from Python (``FakeReply`` for
errors, delays and malformed bodies; ``FakeRequest`` is what it received). Point judges at it with
``set_default_generator(server.generator())``: the real litellm code path runs, with no network and no key.
``FakeModel`` is an in-process scripted or function-backed ``Generator`` (no server, no litellm call).
``TrickleServer`` is an HTTP agent that answers one byte at a time, to test deadlines.
"""

from giskard_nb.testing.fake_model import FakeModel
from giskard_nb.testing.fake_server import FakeLLMServer
from giskard_nb.testing.replies import FakeReply, FakeRequest, hashed_embedding, schema_stub
from giskard_nb.testing.trickle import TrickleServer

__all__ = [
    "FakeLLMServer",
    "FakeModel",
    "FakeReply",
    "FakeRequest",
    "TrickleServer",
    "hashed_embedding",
    "schema_stub",
]
