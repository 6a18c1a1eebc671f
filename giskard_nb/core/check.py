"""Check: the base class of every check (a registered, serializable model with ``run(trace)``)."""

from __future__ import annotations

import re
from abc import abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

from giskard_nb.core.registry import Registered
from giskard_nb.errors import GiskardValidationError

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from giskard_nb.core.interaction import Trace
    from giskard_nb.core.result import CheckResult

__all__ = ["HINT_KEY", "Check", "valid_hint"]

#: The key of a failed check result's ``details`` where the runner records the check's
#: failure-category hint (``Check.failure_hint``; ``None`` when it declares none).
HINT_KEY = "check_failure_category"
_HINT = re.compile(r"^[a-z][a-z0-9_]{0,99}$")


def valid_hint(value: object) -> str | None:
    """``value`` if it is a failure-category identifier (snake_case, at most 100 characters), else
    ``None`` (a hint read from a stored row or a custom ``failure_hint`` is untrusted)."""
    return value if isinstance(value, str) and _HINT.match(value) else None


class Check(Registered):
    """Base class of all checks.

    Subclass it, implement ``run(trace)`` (sync or async) returning a ``CheckResult``, and register it with
    ``@Check.register("my_kind")`` so it can be saved and loaded.

    ``failure_category`` says what a failure of the check means to the Hub's failure classifier: one of
    the default failure-category identifiers (``"data_leak"``, ``"harmful_content"``, ``"refusal"``,
    ``"hallucination"``, ``"format_violation"``, ``"policy_violation"``, ``"off_topic"``,
    ``"incorrect_answer"``, ``"other"``) or a project's own; ``None`` (the default) files a failure as
    an incorrect answer. ``failure_hint(result)`` can refine it from the result (the default returns
    ``failure_category``); the runner records it in a failed result's ``details``.
    """

    _family: ClassVar[str] = "check"
    _registry: ClassVar[dict[str, type[Registered]]] = {}

    failure_category: ClassVar[str | None] = None

    name: str | None = None
    description: str | None = None

    @abstractmethod
    def run(self, trace: Trace) -> CheckResult | Awaitable[CheckResult]:
        """Evaluate the trace (``trace.last`` is the current interaction). May be ``async``."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = cls.__dict__.get("failure_category")
        if declared is not None and valid_hint(declared) is None:
            raise GiskardValidationError(
                f"{cls.__name__}.failure_category must be a failure-category identifier (snake_case: "
                f"letters, digits, '_'; such as 'format_violation') or None, got {declared!r:.100}"
            )

    def failure_hint(self, result: CheckResult) -> str | None:
        """The failure category a failed ``result`` of this check hints at (``failure_category``
        unless a check refines it from the result's details)."""
        return type(self).failure_category

    @property
    def label(self) -> str:
        """The name to show for this check: its name, else its kind, else its class name."""
        return self.name or type(self)._kind or type(self).__name__
