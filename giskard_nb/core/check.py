"""Check: the base class of every check (a registered, serializable model with ``run(trace)``)."""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, ClassVar

from giskard_nb.core.registry import Registered

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from giskard_nb.core.interaction import Trace
    from giskard_nb.core.result import CheckResult

__all__ = ["Check"]


class Check(Registered):
    """Base class of all checks.

    Subclass it, implement ``run(trace)`` (sync or async) returning a ``CheckResult``, and register it with
    ``@Check.register("my_kind")`` so it can be saved and loaded.
    """

    _family: ClassVar[str] = "check"
    _registry: ClassVar[dict[str, type[Registered]]] = {}

    name: str | None = None
    description: str | None = None

    @abstractmethod
    def run(self, trace: Trace) -> CheckResult | Awaitable[CheckResult]:
        """Evaluate the trace (``trace.last`` is the current interaction). May be ``async``."""

    @property
    def label(self) -> str:
        """The name to show for this check: its name, else its kind, else its class name."""
        return self.name or type(self)._kind or type(self).__name__
