"""Generator.complete through the real litellm path against the fake server."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from giskard_nb.errors import GiskardValidationError, LLMError
from giskard_nb.llm import (
    Completion,
    Generator,
    LLMAuthError,
    LLMBadRequestError,
    LLMConnectionError,
    LLMResponseError,
    track_usage,
)
from giskard_nb.testing import FakeReply


class Verdict(BaseModel):
    reason: str
    passed: bool


async def test_plain_completion_has_text_tokens_and_cost(gen, server):
    server.reply = "Hello there!"
    done = await gen.complete("Say hello")
    assert isinstance(done, Completion)
    assert done.text == "Hello there!" and done.raw_text == "Hello there!"
    assert done.source == "api" and not done.cached
    assert done.usage.llm_calls == 1
    assert done.usage.prompt_tokens > 0 and done.usage.completion_tokens > 0
    assert done.usage.total_tokens == done.usage.prompt_tokens + done.usage.completion_tokens
    assert done.usage.cost_usd > 0 and done.cost_known  # gpt-4o-mini is in litellm's price table
    (request,) = server.chat_requests
    assert request.messages == [{"role": "user", "content": "Say hello"}]
    assert request.model == "gpt-4o-mini"
    assert request.headers["authorization"] == "***-key"  # masked by the fake server


async def test_unknown_model_has_zero_cost_marked_unknown(server):
    gen = server.generator(model="openai/my-private-model")
    done = await gen.complete("hi")
    assert done.usage.cost_usd == 0.0 and not done.cost_known
    assert done.usage.total_tokens > 0


async def test_parameters_reach_the_provider(server):
    gen = server.generator(temperature=0.3, max_tokens=50, top_p=0.9)
    await gen.complete(
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "x"}]
    )
    body = server.chat_requests[0].body
    assert body["temperature"] == 0.3 and body["max_tokens"] == 50 and body["top_p"] == 0.9
    await gen.complete("x", temperature=0.0)  # per-call override
    assert server.chat_requests[1].body["temperature"] == 0.0


async def test_structured_output_is_parsed_and_schema_is_sent(gen, server):
    server.reply = {"reason": "It is polite.", "passed": True}
    done = await gen.complete("Judge this", output_type=Verdict)
    assert done.parsed == Verdict(reason="It is polite.", passed=True)
    assert done.text == '{"reason":"It is polite.","passed":true}'
    request = server.chat_requests[0]
    assert request.schema_name == "Verdict"
    assert set(request.schema["properties"]) == {"reason", "passed"}
    assert request.messages[0]["role"] == "system"
    assert "JSON schema" in request.messages[0]["content"]


async def test_schema_instructions_join_an_existing_system_message(gen, server):
    server.reply = {"reason": "ok", "passed": True}
    await gen.complete(
        [{"role": "system", "content": "You judge."}, {"role": "user", "content": "x"}],
        output_type=Verdict,
    )
    messages = server.chat_requests[0].messages
    assert len(messages) == 2
    assert messages[0]["content"].startswith("You judge.\n\nReply with a single JSON object")


async def test_a_fenced_object_is_read_without_a_repair(gen, server):
    server.reply = '```json\n{"reason": "fine", "passed": false}\n```'
    done = await gen.complete("Judge", output_type=Verdict)
    assert done.parsed == Verdict(reason="fine", passed=False)
    assert not done.repaired and len(server.chat_requests) == 1


async def test_an_object_in_prose_is_repaired_not_guessed(gen, server):
    first = 'Sure! Here it is:\n```json\n{"reason": "fine", "passed": true}\n```\nBye.'
    server.queue(first, '{"reason": "fine", "passed": false}')
    done = await gen.complete("Judge", output_type=Verdict)
    assert done.parsed == Verdict(reason="fine", passed=False) and done.repaired
    repair = server.chat_requests[1].messages
    assert repair[-2] == {"role": "assistant", "content": first}
    assert "no text around it" in repair[-1]["content"]


async def test_junk_reply_is_repaired_with_one_more_request(gen, server):
    server.queue("I think it passes, honestly.", '{"reason": "now valid", "passed": true}')
    with track_usage() as tracker:
        done = await gen.complete("Judge", output_type=Verdict)
    assert done.parsed.reason == "now valid" and done.repaired
    assert done.usage.llm_calls == 2 and tracker.usage.llm_calls == 2
    repair = server.chat_requests[1].messages
    assert repair[-2] == {"role": "assistant", "content": "I think it passes, honestly."}
    assert "could not be read" in repair[-1]["content"]


async def test_junk_after_repair_raises_with_the_raw_reply(gen, server):
    server.reply = "no idea"
    with pytest.raises(LLMResponseError) as info:
        await gen.complete("Judge", output_type=Verdict)
    assert info.value.raw == "no idea" and info.value.raw_replies == ["no idea", "no idea"]
    assert info.value.usage.llm_calls == 2
    assert "even after one repair request" in str(info.value)
    assert len(server.chat_requests) == 2


async def test_malformed_http_body_is_a_server_error_that_is_retried(gen, server):
    server.queue(FakeReply.malformed())
    done = await gen.complete("hi")
    assert done.text == "fake reply" and len(server.chat_requests) == 2


async def test_auth_and_bad_request_errors_are_not_retried(gen, server):
    server.queue(FakeReply.fail(401, "invalid api key"))
    with pytest.raises(LLMAuthError, match="OPENAI_API_KEY"):
        await gen.complete("hi")
    server.queue(FakeReply.fail(404, "model not found"))
    with pytest.raises(LLMBadRequestError, match="provider/model"):
        await gen.complete("hi")
    assert len(server.chat_requests) == 2


async def test_rejected_response_format_falls_back_to_prompt_only(gen, server):
    server.queue(FakeReply.fail(400, "response_format is not supported"))
    server.reply = {"reason": "ok", "passed": True}
    done = await gen.complete("x", output_type=Verdict)
    assert done.parsed.passed
    first, second = server.chat_requests
    assert "response_format" in first.body and "response_format" not in second.body
    assert "JSON schema" in second.messages[0]["content"]


async def test_connection_refused_is_a_connection_error(server):
    gen = server.generator(max_retries=1, retry_base_delay=0.01)
    server.stop()
    with pytest.raises(LLMConnectionError, match="gave up after 2 attempts"):
        await gen.complete("hi")


def test_api_key_never_in_repr_or_dumps():
    gen = Generator(
        "openai/gpt-4o", api_key="sk-very-secret", extra_headers={"Authorization": "Bearer sk-x"}
    )
    assert "sk-very-secret" not in repr(gen) and "sk-x" not in repr(gen)
    assert "api_key='***'" in repr(gen)
    for dump in (str(gen.model_dump()), gen.model_dump_json()):
        assert "sk-very-secret" not in dump and "sk-x" not in dump
    restored = Generator.model_validate_json(gen.model_dump_json())
    assert restored.model == "openai/gpt-4o" and restored.api_key is None


def test_extra_kwargs_become_params_and_reserved_ones_are_refused():
    gen = Generator(model="openai/gpt-4o-mini", top_p=0.5, seed=3)
    assert gen.params == {"top_p": 0.5, "seed": 3}
    assert Generator("ollama/llama3").model == "ollama/llama3"
    with pytest.raises(ValueError, match="set by giskard-nb"):
        Generator(model="x/y", stream=True)
    with pytest.raises(ValueError):
        Generator(model=" ")
    copy = gen.with_params(temperature=0.2)
    assert copy.temperature == 0.2 and copy.params == gen.params and gen.temperature is None


async def test_bad_messages_and_output_type_are_validation_errors(gen):
    with pytest.raises(GiskardValidationError, match="role"):
        await gen.complete([{"role": "robot", "content": "x"}])
    with pytest.raises(GiskardValidationError, match="non-empty list"):
        await gen.complete([])
    with pytest.raises(GiskardValidationError, match="pydantic"):
        await gen.complete("x", output_type=dict)


def test_complete_sync_works_outside_a_loop(gen, server):
    server.reply = "sync ok"
    assert gen.complete_sync("hi").text == "sync ok"


async def test_all_llm_errors_share_the_base(gen, server):
    server.queue(FakeReply.fail(403, "forbidden"))
    with pytest.raises(LLMError):
        await gen.complete("hi")


def test_a_pickled_generator_leaves_its_secrets_out():
    import copy
    import pickle

    from giskard_nb import Generator

    gen = Generator(
        "openai/gpt-4o-mini",
        api_key="sk-pickle-secret-1",
        extra_headers={"Authorization": "Bearer tok-pickle-2"},
        top_p=0.5,
    )
    data = pickle.dumps(gen)
    assert b"sk-pickle-secret-1" not in data and b"tok-pickle-2" not in data
    back = pickle.loads(data)
    assert back.api_key is None and back.params == {"extra_headers": {}, "top_p": 0.5}
    assert copy.deepcopy(gen).api_key.get_secret_value() == "sk-pickle-secret-1"  # copies keep it
