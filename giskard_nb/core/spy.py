"""WithSpy: record the calls a patched function receives while an interaction is generated."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any, ClassVar

from pydantic import SerializeAsAny

from giskard_nb.core.interaction import Interaction, Trace
from giskard_nb.core.missing import MISSING, Value
from giskard_nb.core.spec import InteractionSpec


@InteractionSpec.register("with_spy")
class WithSpy(InteractionSpec):
    """Wrap another spec; while it generates, ``target`` (a dotted import path such as
    ``"myapp.tools.search"``) is patched with a spy that *wraps* the real function, so it still runs.
    Give ``return_value`` to replace it instead. Each produced interaction gets
    ``metadata[target] = {"call_count": n, "calls": [{"args": [...], "kwargs": {...}}, ...]}``.

    Patching is process-wide: do not run scenarios spying on the same target concurrently.
    """

    binds_target: ClassVar[bool] = True

    interaction_generator: SerializeAsAny[InteractionSpec]
    target: str
    return_value: Value = MISSING

    async def generate(
        self, trace: Trace, *, target: Any = MISSING
    ) -> AsyncGenerator[Interaction, Trace]:
        import pkgutil
        from unittest import mock

        inner = self.interaction_generator
        original = pkgutil.resolve_name(self.target)
        spy = mock.MagicMock(wraps=None if self.return_value is not MISSING else original)
        if self.return_value is not MISSING:
            spy.return_value = self.return_value
        with mock.patch(self.target, spy):
            agen = (
                inner.generate(trace, target=target)
                if inner.binds_target
                else inner.generate(trace)
            )
            try:
                item = await anext(agen)
                while True:
                    calls = [
                        {"args": list(c.args), "kwargs": dict(c.kwargs)} for c in spy.call_args_list
                    ]
                    item = item.model_copy(
                        update={
                            "metadata": {
                                **item.metadata,
                                self.target: {"call_count": spy.call_count, "calls": calls},
                            }
                        }
                    )
                    spy.reset_mock()
                    trace = yield item
                    item = await agen.asend(trace)
            except StopAsyncIteration:
                return
            finally:
                await agen.aclose()
