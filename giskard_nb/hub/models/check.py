"""Project checks: a named, reusable configuration of a built-in check."""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, SerializationInfo, field_serializer, field_validator

from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub.models.base import HubRecord, reveal_or_mask

__all__ = ["HubCheck"]

_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_\-.]*$")


class HubCheck(HubRecord):
    """A reusable check of a project: ``identifier`` (how test cases refer to it), ``type`` (the built-in
    identifier or check kind it configures) and preset ``params`` (a test case may override them)."""

    project_id: str
    identifier: str = Field(min_length=1, max_length=200)
    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    type: str
    params: dict[str, Any] = Field(default_factory=dict)

    @field_validator("identifier")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not _IDENTIFIER.match(value):
            raise GiskardValidationError(
                "a check identifier starts with a letter and holds letters, digits, '_', '-' or '.', "
                f"got {value!r}"
            )
        return value

    @field_serializer("params")
    def _mask_params(self, params: dict[str, Any], info: SerializationInfo) -> dict[str, Any]:
        return reveal_or_mask(params, info)

    @property
    def spec(self) -> dict[str, Any]:
        """``{"type": ..., **params}`` as given to ``hub.checks.create``."""
        return {"type": self.type, **self.params}

    def __repr__(self) -> str:
        return f"<HubCheck {self.identifier!r} type={self.type!r}>"
