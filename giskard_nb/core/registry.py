"""Polymorphic models selected by a ``kind`` string: the base of checks, interaction specs, input
generators, generators and embedding models.

Data never chooses what is imported: a ``kind`` names a registered class (or one of the lazy built-in
kinds of ``LAZY_KINDS``, whose modules are fixed here in code), and ``subclass_by_name`` finds a class
by its dotted name among the classes already defined.

A family root (``Check``, ``InteractionSpec``, ``InputGenerator``, ``Generator``, ``BaseEmbeddingModel``)
owns a registry. Subclasses join it with
``@Root.register("kind")``; a dump carries ``"kind"`` and validating against the root dispatches on it.
"""

from __future__ import annotations

import importlib
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, computed_field, model_validator

from giskard_nb.core.generic import Parametrizable
from giskard_nb.errors import (
    ConfigError,
    DuplicateKindError,
    GiskardValidationError,
    UnknownKindError,
)

#: The one table of lazy built-in kinds: family -> {kind: module that registers it on import}.
#: A kind not registered yet is looked up here (``Root.kinds()`` lists these too), so a saved spec loads
#: by kind without its module imported first, and ``import giskard_nb`` stays light. Kinds of modules
#: the ``giskard_nb`` facade imports anyway (``giskard_nb.checks``, ``checks.llm``, ``checks.semantic``,
#: ``input_generators``, ``llm``) need no entry. These strings are the only modules a kind read from
#: data can import; the links they make between layers (llm -> kb, core -> scan) are declared here.
LAZY_KINDS: dict[str, dict[str, str]] = {
    "check": {
        # a scan finding's regression check (hub.scans.to_dataset stores it as a test case)
        "scan_vulnerability": "giskard_nb.scan.regression",
        # the tool checks (giskard_nb.checks.tools): loaded on first use
        "tool_called": "giskard_nb.checks.tools.called",
        "tool_not_called": "giskard_nb.checks.tools.called",
        "tool_sequence": "giskard_nb.checks.tools.called",
        "tool_args": "giskard_nb.checks.tools.arguments",
        "tool_call_f1": "giskard_nb.checks.tools.arguments",
        "tool_schema_valid": "giskard_nb.checks.tools.arguments",
        "tool_budget": "giskard_nb.checks.tools.behaviour",
        "tool_error_handled": "giskard_nb.checks.tools.behaviour",
        "confirmation_before_side_effect": "giskard_nb.checks.tools.behaviour",
        "tool_selection_judge": "giskard_nb.checks.tools.judges",
        "tool_arguments_judge": "giskard_nb.checks.tools.judges",
        "tool_grounding_judge": "giskard_nb.checks.tools.judges",
        "trajectory_judge": "giskard_nb.checks.tools.judges",
        "action_claims_consistent": "giskard_nb.checks.tools.claims",
    },
    "generator": {
        # the scripted model of giskard_nb.testing (demos, CI)
        "fake_model": "giskard_nb.testing.fake_model",
    },
    "embedding model": {
        # giskard_nb.kb.HashingEmbedder: numpy loads with it
        "hashing": "giskard_nb.kb.embedding",
    },
}


class Registered(Parametrizable, BaseModel):
    """Base of the registered families. Not used directly.

    ``Root[...]`` (e.g. ``Check[str, str, Trace[str, str]]``) returns the class itself: see ``core.generic``.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", arbitrary_types_allowed=True)

    _family: ClassVar[str] = "object"
    _registry: ClassVar[dict[str, type[Registered]]]
    _kind: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A subclass is only registered by the decorator, never by inheritance.
        if "_kind" not in cls.__dict__:
            cls._kind = None

    @classmethod
    def register(cls, kind: str):
        """Class decorator: register a subclass under ``kind`` (unique within the family)."""
        if not isinstance(kind, str) or not kind:
            raise GiskardValidationError(
                f"a {cls._family} kind must be a non-empty string, got {kind!r}"
            )

        def decorator(sub: type[Registered]) -> type[Registered]:
            if not (isinstance(sub, type) and issubclass(sub, cls)):
                raise GiskardValidationError(
                    f"@{cls.__name__}.register({kind!r}) decorates {sub!r}, which is not a subclass of "
                    f"{cls.__name__}"
                )
            existing = cls._registry.get(kind)
            if existing is not None and existing is not sub and not _same_definition(existing, sub):
                raise DuplicateKindError(cls._family, kind, existing, sub, frozenset(cls._registry))
            if existing is not None and existing is not sub:
                existing._kind = None  # a notebook cell re-ran: the new definition replaces the old
            cls._registry[kind] = sub
            sub._kind = kind
            return sub

        return decorator

    @classmethod
    def kinds(cls) -> frozenset[str]:
        """The kinds registered in this family (all of them, or those below ``cls``)."""
        found = {k for k, sub in cls._registry.items() if issubclass(sub, cls)}
        if cls is cls.family_root():
            found |= set(LAZY_KINDS.get(cls._family, ()))
        return frozenset(found)

    @classmethod
    def _lookup(cls, kind: Any) -> type[Registered] | None:
        """The class registered under ``kind``, importing its module first for a lazy built-in kind."""
        if not isinstance(kind, str):
            return None
        if kind not in cls._registry:
            module = LAZY_KINDS.get(cls._family, {}).get(kind)
            if module is not None:
                _import_kind_module(cls._family, kind, module)
        return cls._registry.get(kind)

    @classmethod
    def family_root(cls) -> type[Registered]:
        """The family root (the class that owns the registry: ``Check``, ``Generator``...)."""
        return next(c for c in cls.__mro__ if "_registry" in c.__dict__)

    @classmethod
    def registered_class(cls, kind: str) -> type[Registered]:
        """The class registered under ``kind`` (``UnknownKindError`` naming the registered kinds)."""
        sub = cls._lookup(kind)
        if sub is None or not issubclass(sub, cls):
            raise UnknownKindError(cls._family, kind, cls.kinds(), cls.family_root().__name__)
        return sub

    @computed_field  # type: ignore[prop-decorator]
    @property
    def kind(self) -> str | None:
        """The registered kind of this object's class (``None`` if the class is not registered)."""
        return type(self)._kind

    @model_validator(mode="wrap")
    @classmethod
    def _dispatch_on_kind(cls, data: Any, handler: Any) -> Any:
        if isinstance(data, cls):
            return data
        if isinstance(data, dict) and "kind" in data:
            kind = data["kind"]
            if kind != cls._kind:
                target = cls._lookup(kind)
                if target is None or not issubclass(target, cls):
                    raise UnknownKindError(
                        cls._family, kind, cls.kinds(), cls.family_root().__name__
                    )
                return target.model_validate(data)
            data = {k: v for k, v in data.items() if k != "kind"}
        elif cls._kind is None and "_registry" in cls.__dict__:
            got = (
                f"a dict without 'kind' (Kind is not provided for class {cls.__name__})"
                if isinstance(data, dict)
                else f"{type(data).__name__}"
            )
            raise GiskardValidationError(
                f"cannot build a {cls.__name__} from {got}: give a 'kind' "
                f"(registered kinds: {', '.join(sorted(cls.kinds()))})"
            )
        return handler(data)


def subclass_by_name(base: type, name: str) -> type | None:
    """The class ``base`` or one of its subclasses, already defined, whose ``module.qualname`` is
    ``name`` (the latest definition if a notebook cell re-ran), else ``None``.

    How a class named in data (a saved scenario's ``trace_type``) is looked up: among classes the
    program defined, never by importing the module the data names."""
    found = base if f"{base.__module__}.{base.__qualname__}" == name else None
    stack, seen = [base], {base}
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                stack.append(sub)
                if f"{sub.__module__}.{sub.__qualname__}" == name:
                    found = sub
    return found


def _import_kind_module(family: str, kind: str, module: str) -> None:
    """Import the module of a lazy built-in kind (one of ``LAZY_KINDS``, never a name from data)."""
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(
            f"the {family} kind {kind!r} is defined in {module}, which cannot be imported in this "
            f"installation ({exc}): install the missing package or use another kind"
        ) from exc


def _same_definition(a: type, b: type) -> bool:
    """A class re-defined by re-running the same notebook cell or reloading the same module."""
    return a.__module__ == b.__module__ and a.__qualname__ == b.__qualname__
