"""The agent convention: what an agent function receives (the conversation, or its last user message).

**The convention.** An agent receives the conversation: a list of ``{"role", "content"}`` messages. A
function whose first parameter is annotated ``str`` (``Optional[str]``, ``str | None`` and string
annotations under ``from __future__ import annotations`` too) or is named ``inputs``, ``text``,
``question``, ``prompt``, ``message`` or ``query`` receives the last user message, a string, instead
(an annotation wins over the name: ``inputs: list[dict]`` receives the conversation). The choice is made
once per agent, from its signature (cached); ``@agent_input("messages")`` or ``@agent_input("text")``
declares it when the rule guesses wrong. The first parameter is the one that receives the inputs: the
parameter named ``inputs`` if there is one, else the first positional one without a default that is not
``trace`` (so ``(inputs, trace)`` targets keep their form).

**What each caller holds, and what the agent gets.**

- A conversation (a Hub test case, a scan's attack, ``Scenario.interact([...messages])``): a messages
  agent gets a copy; a text agent gets the content of the last user message.
- A string (``Scenario.interact("text")``, ``Playground.send``, ``ScenarioBuilder``): a text agent gets
  it; a messages agent gets the conversation so far (the trace's earlier turns, each input as user
  turns and each output as the assistant's turn) ending with this string as a user message.
- Anything else (a dict of fields, a pydantic model, a number): passed unchanged, so the core's generic
  targets (``def agent(inputs): inputs["country"]``) keep working.

**A mismatch is named.** When the agent raises ``TypeError``/``AttributeError``/``KeyError``/
``IndexError`` whose message shows it got the other shape ("string indices must be integers", "'list'
object has no attribute 'lower'"), the error becomes an ``AgentInputError`` (the original as
``__cause__``) saying what it received, the convention and the two ways to switch. Any other error stays
the agent's own.

Every caller goes through ``giskard_nb.core.agent_call``, which applies this convention: Scenario and
Suite targets and ``outputs=`` callables (``core.spec``), Hub local agents (``hub.agents.LocalAgent``,
so the CLI too), scans (``scan.agent.call_agent``) and the widgets (through scenarios).
"""

from __future__ import annotations

import functools
import inspect
import re
import types
import typing
from collections.abc import Iterable, Mapping, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from giskard_nb.errors import AgentError, AgentInputError, GiskardNBError, GiskardValidationError

__all__ = [
    "TEXT_NAMES",
    "AgentInput",
    "Convention",
    "agent_input",
    "agent_inputs",
    "as_conversation",
    "convention_of",
    "conversation_so_far",
    "is_async_callable",
    "last_user_text",
    "same_convention",
    "shape_error",
]

AgentInput = Literal["messages", "text"]

#: A first parameter with one of these names (and no annotation saying otherwise) receives a string.
TEXT_NAMES = ("inputs", "text", "question", "prompt", "message", "query")

_ATTR = "__giskard_agent_input__"
_DOC = 'docs/core.md, "Agents: what your function receives"'
_CONVENTION = (
    "The convention: an agent receives the conversation, a list of {'role', 'content'} messages; a "
    "function whose first parameter is annotated `str` or named "
    + ", ".join(TEXT_NAMES)
    + f" receives the last user message as a string ({_DOC})."
)


@dataclass(frozen=True)
class Convention:
    """What an agent receives: ``mode`` ``"messages"`` or ``"text"`` (``None``: it takes no inputs, or
    its signature cannot be read: values pass unchanged), and ``reason``, the why (for messages)."""

    mode: AgentInput | None
    reason: str


def agent_input(mode: AgentInput, agent: Any = None) -> Any:
    """Declare what ``agent`` receives, whatever its signature says: ``"messages"`` (the conversation)
    or ``"text"`` (the last user message). A decorator (``@agent_input("text")``) or a call
    (``agent_input("text", fn)``); it returns the agent itself, or a thin wrapper when the agent takes
    no attributes (a bound method, a callable object with ``__slots__``)."""
    if mode not in ("messages", "text"):
        raise GiskardValidationError(
            f'agent_input takes "messages" (the conversation) or "text" (the last user message), '
            f"got {mode!r}"
        )
    convention = Convention(mode, f'it is declared with @agent_input("{mode}")')

    def declare(fn: Any) -> Any:
        if not callable(fn):
            raise GiskardValidationError(
                f"agent_input decorates a function or a callable object, got {type(fn).__name__}"
            )
        try:
            setattr(fn, _ATTR, convention)
            return fn
        except (AttributeError, TypeError):
            return _declared(fn, convention)

    return declare if agent is None else declare(agent)


def _declared(fn: Any, convention: Convention) -> Any:
    if _coroutine_callable(fn):

        async def declared(*args: Any, **kwargs: Any) -> Any:
            return await fn(*args, **kwargs)
    else:

        def declared(*args: Any, **kwargs: Any) -> Any:
            return fn(*args, **kwargs)

    functools.update_wrapper(declared, fn)  # the signature is read through __wrapped__
    setattr(declared, _ATTR, convention)
    return declared


def is_async_callable(fn: Any) -> bool:
    """A coroutine function, an (async) generator function, or an object with an async ``__call__``:
    code that is cheap to call on the event loop (the work happens when it is awaited or iterated)."""
    return (
        _coroutine_callable(fn) or inspect.isasyncgenfunction(fn) or inspect.isgeneratorfunction(fn)
    )


def _coroutine_callable(fn: Any) -> bool:
    """A coroutine function, or an object whose ``__call__`` is one."""
    call = getattr(fn, "__call__", None)  # noqa: B004 - callable objects with an async __call__
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)


def same_convention(wrapper: Any, agent: Any) -> Any:
    """Declare that ``wrapper`` (which hands its inputs on to ``agent`` unchanged) receives what
    ``agent`` receives; returns ``wrapper``."""
    setattr(wrapper, _ATTR, convention_of(agent))
    return wrapper


def convention_of(agent: Any) -> Convention:
    """The agent's convention: declared with ``agent_input``, else read from its signature (cached)."""
    declared = getattr(agent, _ATTR, None)
    if isinstance(declared, Convention):
        return declared
    try:
        return _decide(agent)
    except TypeError:  # an unhashable callable object: not cached
        return _decide.__wrapped__(agent)


@functools.lru_cache(maxsize=2048)
def _decide(agent: Any) -> Convention:
    if isinstance(agent, _BUILTINS):  # str.upper, len: not agents; values pass unchanged
        return Convention(None, "it is a builtin")
    try:
        sig = inspect.signature(agent, eval_str=True)
    except (TypeError, ValueError):
        return Convention(None, "its signature cannot be read")
    except Exception:  # an annotation that does not evaluate: read the strings as written
        sig = inspect.signature(agent)
    param = _inputs_parameter(sig)
    if param is None:
        return Convention(None, "it takes no inputs parameter")
    name, note = param.name, _annotation_text(param.annotation)
    if _is_text(param.annotation):
        return Convention("text", f"its first parameter {name!r} is annotated {note}")
    if _is_list(param.annotation):
        return Convention("messages", f"its first parameter {name!r} is annotated {note}")
    if name in TEXT_NAMES:
        return Convention("text", f"its first parameter is named {name!r}")
    return Convention(
        "messages", f"its first parameter {name!r} is not annotated `str` nor named like text"
    )


def _inputs_parameter(sig: inspect.Signature) -> inspect.Parameter | None:
    """The parameter the inputs go to (as ``core.inject`` fills it): ``inputs`` by name, else the first
    positional parameter without a default that is not ``trace``."""
    params = list(sig.parameters.values())
    for p in params:
        if p.name == "inputs" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            return p
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            return p
        positional = p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        if positional and p.name != "trace" and p.default is p.empty:
            return p
    return None


_BUILTINS = (
    types.BuiltinFunctionType,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.MethodWrapperType,
)
_TEXT_STRINGS = frozenset(
    {"str", "Optional[str]", "str|None", "None|str", "Union[str,None]", "Union[None,str]"}
)
_LIST_ORIGINS = (list, tuple, Sequence, MutableSequence, Iterable)


def _optional_inner(annotation: Any) -> Any:
    """``X`` for ``Optional[X]`` / ``X | None``, else the annotation itself."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _plain(text: str) -> str:
    return text.replace(" ", "").replace("typing.", "").replace("collections.abc.", "")


def _is_text(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return _plain(annotation) in _TEXT_STRINGS
    return _optional_inner(annotation) is str


def _is_list(annotation: Any) -> bool:
    if isinstance(annotation, str):
        text = _plain(annotation)
        return text.startswith(("list", "List", "Sequence", "MutableSequence", "Iterable"))
    inner = _optional_inner(annotation)
    origin = typing.get_origin(inner) or inner
    return isinstance(origin, type) and origin in _LIST_ORIGINS


def _annotation_text(annotation: Any) -> str:
    if isinstance(annotation, str):
        return f"`{annotation}`"
    text = annotation.__name__ if isinstance(annotation, type) else str(annotation)
    return f"`{text.replace('typing.', '')}`"


# -- shaping the inputs --------------------------------------------------------------------------------


def _is_message(value: Any) -> bool:
    if isinstance(value, Mapping):
        return isinstance(value.get("role"), str) and "content" in value
    return isinstance(getattr(value, "role", None), str) and hasattr(value, "content")


def _as_dict(message: Any) -> dict[str, Any]:
    if isinstance(message, Mapping):
        return dict(message)
    return {"role": message.role, "content": message.content}


def as_conversation(value: Any) -> list[dict[str, Any]] | None:
    """A copy of ``value`` as a list of message dicts if it is a non-empty conversation, else None."""
    if isinstance(value, list | tuple) and value and all(_is_message(m) for m in value):
        return [_as_dict(m) for m in value]
    return None


def last_user_text(conversation: list[dict[str, Any]]) -> Any:
    """The content of the last user message (what a text agent receives)."""
    for message in reversed(conversation):
        if message.get("role") == "user":
            return message.get("content")
    raise GiskardValidationError(
        "the conversation has no user message to give an agent that takes text: add one, or give "
        'the agent the whole conversation with @agent_input("messages")'
    )


def _reply_text(outputs: Any) -> Any:
    if isinstance(outputs, str) or outputs is None:
        return outputs
    from giskard_nb.core.reply import to_agent_output

    try:
        return to_agent_output(outputs).content
    except AgentError:
        return str(outputs)


def conversation_so_far(trace: Any, turn: Any) -> list[dict[str, Any]]:
    """The trace's earlier turns as messages, then ``turn`` (a string or a message) as the last one.

    An earlier input that is itself a conversation is spread into its messages, without repeating the
    ones already there; an earlier output is the assistant's turn."""
    messages: list[dict[str, Any]] = []
    for it in getattr(trace, "interactions", None) or ():
        given = as_conversation(it.inputs)
        if given is None:
            given = [_as_dict(it.inputs) if _is_message(it.inputs) else _user(it.inputs)]
        elif given[: len(messages)] == messages:
            given = given[len(messages) :]
        messages.extend(given)
        reply = _reply_text(it.outputs)
        if reply is not None:
            messages.append({"role": "assistant", "content": reply})
    messages.append(_as_dict(turn) if _is_message(turn) else _user(turn))
    return messages


def _user(value: Any) -> dict[str, Any]:
    return {"role": "user", "content": value if isinstance(value, str) else str(value)}


def agent_inputs(convention: Convention, inputs: Any, trace: Any = None) -> Any:
    """What an agent with ``convention`` receives for ``inputs`` (see the module docstring)."""
    if convention.mode == "text":
        conversation = as_conversation(inputs)
        if conversation is not None:
            return last_user_text(conversation)
        return _as_dict(inputs).get("content") if _is_message(inputs) else inputs
    if convention.mode == "messages":
        if isinstance(inputs, str) or _is_message(inputs):
            return conversation_so_far(trace, inputs)
        conversation = as_conversation(inputs)
        return inputs if conversation is None else conversation
    return inputs


# -- naming a mismatch ----------------------------------------------------------------------------------

#: What a function that wanted the conversation says when it gets a string, and the reverse.
_WANTED_MESSAGES = ("string indices must be integers", "string index out of range")
_WANTED_TEXT = (
    "list indices must be integers",
    '(not "list")',
    "can only concatenate list",
    "got 'list'",
    "not 'list'",
    ", not list",
    "list found",
)
_NO_ATTRIBUTE = re.compile(r"'(str|list|dict)' object has no attribute '(\w+)'")


def _wanted(said: str, got: type) -> bool:
    """Whether an error message shows a function that got a ``got`` (str or list) and wanted the
    other shape: its words, or an attribute of the other shape missing (``'list' object has no
    attribute 'lower'``: a str method; ``'str' object has no attribute 'get'``: a list or dict one)."""
    if any(s in said for s in (_WANTED_MESSAGES if got is str else _WANTED_TEXT)):
        return True
    for kind, attribute in _NO_ATTRIBUTE.findall(said):
        if got is str and kind == "str":
            return hasattr(list, attribute) or hasattr(dict, attribute) or attribute == "content"
        if got is list and kind in ("list", "dict"):  # the list, or a message of it
            return hasattr(str, attribute)
    return False


def shape_error(agent: Any, convention: Convention, value: Any, exc: BaseException) -> Any:
    """An ``AgentInputError`` when ``exc`` (raised by ``agent`` given ``value``) shows it expected the
    other shape, else ``None`` (the agent's own error stands)."""
    if convention.mode is None or isinstance(exc, GiskardNBError):
        return None
    if not isinstance(exc, TypeError | AttributeError | KeyError | IndexError):
        return None
    said, name = str(exc), _name(agent)
    how = f"{type(exc).__name__}: {said}"
    if isinstance(value, str) and _wanted(said, str):
        return AgentInputError(
            f"{name} received the last user message as a string ({convention.reason}) and failed as "
            f"if it expected the conversation: {how}. {_CONVENTION} To give it the conversation, "
            "name its first parameter `messages` (without a `str` annotation) or decorate it with "
            '@agent_input("messages") (from giskard_nb import agent_input).'
        )
    if as_conversation(value) is not None and _wanted(said, list):
        return AgentInputError(
            f"{name} received the conversation, a list of {{'role', 'content'}} messages "
            f"({convention.reason}), and failed as if it expected a string: {how}. {_CONVENTION} "
            "To give it the last user message as a string, annotate its first parameter `str` "
            "(`def agent(question: str)`) or name it `question`, or decorate it with "
            '@agent_input("text") (from giskard_nb import agent_input).'
        )
    return None


def _name(agent: Any) -> str:
    fn = getattr(agent, "func", agent)  # a functools.partial: the function it wraps
    name = getattr(fn, "__qualname__", None) or type(agent).__name__
    return f"agent {name!r}"
