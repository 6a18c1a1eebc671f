"""Datasets, their test cases (a conversation plus checks) and comments on test cases."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    Field,
    PrivateAttr,
    SerializationInfo,
    ValidationInfo,
    field_serializer,
    field_validator,
    model_validator,
)

from giskard_nb.core.reply import to_agent_output, with_content
from giskard_nb.core.sanitize import valid_unicode_data
from giskard_nb.core.tool_adapters import tool_calls_from
from giskard_nb.core.tools import ToolCall
from giskard_nb.errors import AgentError, GiskardValidationError
from giskard_nb.hub.models.agent import AgentOutput, ChatMessage
from giskard_nb.hub.models.base import VALID_UNICODE, HubModel, HubRecord, reveal_or_mask

__all__ = ["CheckSpec", "Comment", "Dataset", "HubTestCase"]


class Dataset(HubRecord):
    """A named collection of test cases in a project."""

    project_id: str
    name: str = Field(min_length=1, max_length=200)
    description: str = ""

    _upload_summary: Any = PrivateAttr(default=None)

    @property
    def upload_summary(self) -> Any:
        """What the upload that returned this dataset imported (``hub.upload_columns.UploadSummary``:
        test cases, how many have no check, how many compare the expected answer offline); ``None``
        for a dataset read any other way (``hub.datasets.summary(dataset_id)`` counts them)."""
        return self._upload_summary

    def attach_upload_summary(self, summary: Any) -> Dataset:
        """This dataset, carrying ``summary`` as its ``upload_summary`` (what ``upload`` returns)."""
        self._upload_summary = summary
        return self

    def test_cases(self, **filters: Any) -> list[HubTestCase]:
        """This dataset's test cases, in order (filters as ``hub.test_cases.list``)."""
        return self._require_hub().test_cases.list(self.id, **filters)

    def to_dataframe(self, **filters: Any) -> Any:
        """One row per test case of this dataset (see ``hub.test_cases.to_dataframe``)."""
        return self._require_hub().test_cases.to_dataframe(self.id, **filters)

    def __repr__(self) -> str:
        uploaded = f" uploaded: {self._upload_summary}" if self._upload_summary else ""
        return f"<Dataset {self.name!r} id={self.id}{uploaded}>"


class CheckSpec(HubModel):
    """A check applied to a test case: a built-in identifier, a core check kind or a project check's
    identifier, with its ``params``. ``enabled=False`` keeps it listed but does not run it."""

    identifier: str = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)
    enabled: bool = True

    @field_validator("params")
    @classmethod
    def _no_type(cls, params: dict[str, Any]) -> dict[str, Any]:
        if "type" in params or "kind" in params:
            raise GiskardValidationError(
                "a test case's check params take no 'type'/'kind': the identifier says which check "
                "it is (use hub.checks.create(..., params={'type': ...}) for a reusable custom check)"
            )
        return params

    @field_serializer("params")
    def _mask_params(self, params: dict[str, Any], info: SerializationInfo) -> dict[str, Any]:
        return reveal_or_mask(params, info)


_TEXT_FIELDS = frozenset({"name", "messages", "demo_output", "checks", "tags", "metadata"})


def _empty(value: Any) -> bool:
    return not value


class HubTestCase(HubRecord):
    """A conversation (``messages``, ending with the user's turn) and the checks applied to the agent's
    reply. ``demo_output`` is an example (or recorded) reply; ``status="draft"`` keeps it out of
    evaluations. A conversation given ending with an assistant message keeps that message as
    ``demo_output``. The messages may carry tool use in the OpenAI format (an assistant message's
    ``tool_calls``, a ``tool`` message's ``tool_call_id``): the agent receives them as given.
    ``expected_tool_calls`` are the calls the agent should make (``ToolCall``s or their dicts, or
    OpenAI tool calls); a run gives them to the checks as ``trace.annotations["expected_tool_calls"]``."""

    __test__ = False

    dataset_id: str
    project_id: str
    name: str | None = None
    messages: list[ChatMessage]
    demo_output: AgentOutput | None = None
    checks: list[CheckSpec] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    status: Literal["active", "draft"] = "active"
    position: int = 0
    expected_tool_calls: list[ToolCall] = Field(default_factory=list, exclude_if=_empty)

    @field_validator("expected_tool_calls", mode="before")
    @classmethod
    def _expected_calls(cls, value: Any) -> Any:
        if value is None:
            return []
        if not isinstance(value, list | tuple):
            raise GiskardValidationError(
                "expected_tool_calls is a list of calls such as {'name': 'get_weather', "
                f"'arguments': {{'city': 'Paris'}}}}, got {type(value).__name__}"
            )
        calls = tool_calls_from(list(value))
        if len(calls) != len(value):
            raise GiskardValidationError(
                f"expected_tool_calls: {len(value) - len(calls)} of {len(value)} items are not tool "
                "calls: give each as {'name': ..., 'arguments': {...}} (or an OpenAI tool call)"
            )
        return calls

    @field_validator("demo_output", mode="before")
    @classmethod
    def _output(cls, value: Any) -> Any:
        if value is None:
            return None
        try:  # any reply shape the core's normaliser reads
            return to_agent_output(value, agent_name="the demo output")
        except AgentError as exc:
            raise GiskardValidationError(f"demo_output cannot be read: {exc}") from None

    @field_validator("tags")
    @classmethod
    def _tags(cls, tags: list[str]) -> list[str]:
        if not tags:  # the common case, checked for every test case read
            return tags
        if any(not t or not t.strip() for t in tags):
            raise GiskardValidationError("tags are non-empty strings such as 'topic:billing'")
        return list(dict.fromkeys(tags))

    @model_validator(mode="before")
    @classmethod
    def _trailing_reply(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            return data
        if isinstance(data.get("messages"), str):  # one string: the user's message
            data = {**data, "messages": [{"role": "user", "content": data["messages"]}]}
        if not (info.context or {}).get(VALID_UNICODE):  # a stored row read as valid: not again
            # user text (uploads, create): a lone surrogate would make the stored JSON unreadable
            data = {**data, **valid_unicode_data({k: data[k] for k in _TEXT_FIELDS if k in data})}
        given = data.get("messages")
        if not isinstance(given, list):
            return data
        messages = [with_content(m) for m in given]  # a turn that only calls tools
        if messages != given:
            data = {**data, "messages": messages}
        if not messages or _role(messages[-1]) != "assistant":  # a stored test case: as it is
            return data
        roles = [_role(m) for m in messages]
        if data.get("demo_output") is not None:
            raise GiskardValidationError(
                "the conversation ends with an assistant message and a demo_output is also "
                "given: end the messages with the user's turn, or drop demo_output"
            )
        if "user" not in roles:
            raise GiskardValidationError(
                f"the conversation has no user message, only {_roles_text(roles)}: a test case "
                "is the user's turn the agent must answer — add a {'role': 'user', 'content': "
                "...} message (a final assistant message is kept as the demo_output)"
            )
        return {**data, "messages": messages[:-1], "demo_output": messages[-1]}

    @field_validator("messages")
    @classmethod
    def _has_user_turn(cls, messages: list[ChatMessage]) -> list[ChatMessage]:
        for message in messages:  # (a loop: checked for every test case read)
            if message.role == "user":
                return messages
        if not messages:
            raise GiskardValidationError(
                "a test case needs at least one message: give messages='your question' or a list "
                "of {'role': 'user', 'content': ...} messages"
            )
        roles = _roles_text([m.role for m in messages])
        raise GiskardValidationError(
            f"a test case needs at least one user message, got only {roles}: add a "
            "{'role': 'user', 'content': ...} message"
        )

    @property
    def conversation(self) -> list[dict[str, Any]]:
        """The messages as plain ``{role, content}`` dicts (what an agent receives), with their
        ``tool_calls`` / ``tool_call_id`` when they have some."""
        return [
            {"role": m.role, "content": m.content}
            if m.tool_calls is None and m.tool_call_id is None
            else m.model_dump()
            for m in self.messages
        ]

    def __repr__(self) -> str:
        first = next((m.content for m in self.messages if m.role == "user"), "")
        label = self.name or (first[:40] + ("…" if len(first) > 40 else ""))
        return f"<HubTestCase {label!r} turns={len(self.messages)} checks={len(self.checks)}>"


class Comment(HubRecord):
    """A comment on a test case."""

    test_case_id: str
    project_id: str
    content: str = Field(min_length=1)
    author: str = ""


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else getattr(message, "role", None)


def _roles_text(roles: list[Any]) -> str:
    counts: dict[str, int] = {}
    for role in roles:
        counts[str(role)] = counts.get(str(role), 0) + 1
    return ", ".join(f"{n} {r} message{'s' if n > 1 else ''}" for r, n in counts.items())
