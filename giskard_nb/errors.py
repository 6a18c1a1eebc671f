"""The exceptions of giskard-nb, in one tree.

    GiskardNBError                 every error this package raises on purpose
    ├── ConfigError                something is not configured (no judge model, no database URL, ...)
    ├── GiskardValidationError     bad input: a malformed file, an invalid JSONPath, a check built wrong
    │   ├── UnknownKindError       a serialized check/spec names a kind nobody registered
    │   ├── DuplicateKindError     two different classes register the same kind
    │   └── SerializationError     a value (usually a callable) cannot be dumped to JSON
    ├── SignatureError             a callable's parameters cannot be filled (also a TypeError)
    ├── WrongTypeError             an argument of the wrong type, e.g. a bool for a count (a TypeError)
    ├── InteractionGenerationError an input generator, a target or an interaction spec raised
    │   ├── InputGenerationException   the inputs side raised (kept for seed compatibility)
    │   └── MissingOutputsError        no outputs and no target to produce them (also a ValueError)
    ├── LLMError                   anything that went wrong talking to a model (see giskard_nb.llm)
    ├── AgentError                 a Hub agent could not be called or answered nonsense
    │   └── AgentInputError        an agent failed as if it expected the other input shape (text/messages)
    ├── WorkerPoolExhausted        too many abandoned (timed-out) sync calls still run in background threads
    └── HubError                   the local Hub refused an operation
        └── NotFoundError          no record with that id

Messages say what was wrong and what to do about it. Validation errors also derive from
``ValueError`` so that pydantic reports them with their location inside a larger model.
"""

from __future__ import annotations

from typing import Any


class GiskardNBError(Exception):
    """Base class of every error giskard-nb raises on purpose."""


class ConfigError(GiskardNBError):
    """Something the operation needs is not configured."""


class GiskardValidationError(GiskardNBError, ValueError):
    """Bad input: the message names what was wrong and how to fix it."""


class UnknownKindError(GiskardValidationError):
    """A serialized object names a kind that is not registered."""

    def __init__(
        self,
        family: str,
        kind: Any,
        registered: frozenset[str] | set[str],
        root: str | None = None,
    ):
        self.family, self.kind, self.registered = family, kind, frozenset(registered)
        known = ", ".join(sorted(registered)) or "(none)"
        root = root or family.title().replace(" ", "")
        if kind is None:
            remedy = (
                f"It was saved from a {root} subclass that has no kind: decorate the class with "
                f"@{root}.register('my_kind') and save it again."
            )
        else:
            remedy = (
                f"If {kind!r} is a custom class, import the module that defines it (and decorates it "
                f"with @{root}.register({kind!r})) before loading."
            )
        super().__init__(
            f"Unknown {family} kind {kind!r} (Kind {kind!r} is not registered for class {root}). "
            f"Registered kinds: {known}. {remedy}"
        )


class DuplicateKindError(GiskardValidationError):
    """Two different classes tried to register the same kind."""

    def __init__(
        self, family: str, kind: str, existing: type, new: type, registered: frozenset[str]
    ):
        self.family, self.kind = family, kind
        known = ", ".join(sorted(registered))
        super().__init__(
            f"Duplicate {family} kind {kind!r}: Kind {kind!r} is already registered for "
            f"{existing.__module__}.{existing.__qualname__}, cannot register "
            f"{new.__module__}.{new.__qualname__}. Give every class a unique kind. "
            f"Registered kinds: {known}."
        )


class SerializationError(GiskardValidationError):
    """A value cannot be serialized (for example a Python callable)."""


class InteractionGenerationError(GiskardNBError):
    """Generating an interaction failed; ``phase`` says where and ``__cause__`` holds the original error."""

    def __init__(self, message: str, *, phase: str, partial_trace: Any = None):
        super().__init__(message)
        self.phase = phase
        self.partial_trace = partial_trace


class SignatureError(GiskardNBError, TypeError):
    """A callable (a target, an ``outputs=``/``inputs=`` function, a check function) has a parameter
    that none of the values it would receive can fill. A ``TypeError``, as in giskard-checks."""


class WrongTypeError(GiskardNBError, TypeError):
    """An argument of the wrong type (a bool or a str where a count is needed). A ``TypeError``."""


class MissingOutputsError(InteractionGenerationError, ValueError):
    """An ``Interact`` has no ``outputs`` and no target is bound. A ``ValueError``, as in giskard-checks."""


class InputGenerationException(InteractionGenerationError):
    """The inputs side of an interaction (an input generator or callable) raised."""

    def __init__(self, message: str, *, partial_trace: Any = None):
        super().__init__(message, phase="input_generation", partial_trace=partial_trace)


class LLMError(GiskardNBError):
    """A call to a language or embedding model failed."""


class AgentError(GiskardNBError):
    """An agent could not be called, or its reply could not be understood."""


class AgentInputError(AgentError):
    """An agent failed as if it expected the other input shape: it received the conversation (a list
    of messages) and wanted a string, or the reverse. The message says what it received, the
    convention and how to switch; ``__cause__`` is the agent's own error."""


class WorkerPoolExhausted(GiskardNBError):
    """Too many abandoned sync calls still run in background threads: no new worker thread is started."""


class HubError(GiskardNBError):
    """The local Hub refused an operation."""


class NotFoundError(HubError, LookupError):
    """No record with that id."""


class HubStorageError(HubError):
    """The Hub's database could not be read or written (a full disk, a read-only or damaged file, a
    lost server). The message says what failed and what to do, never the SQL; ``reason`` is one of
    ``"disk_full"``, ``"read_only"``, ``"corrupt"``, ``"locked"``, ``"connection"``, ``"conflict"``,
    ``"bad_row"``, ``"other"``."""

    def __init__(self, message: str, *, reason: str = "other"):
        super().__init__(message)
        self.reason = reason
