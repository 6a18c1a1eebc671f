"""The base of every stored Hub record: ``id``, ``created_at``, ``updated_at`` and ``schema_version``."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializationInfo, ValidationError

from giskard_nb.errors import GiskardValidationError

__all__ = [
    "SCHEMA_VERSION",
    "VALID_UNICODE",
    "HubModel",
    "HubRecord",
    "bind_record",
    "build",
    "new_id",
    "require_same_project",
    "reveal_or_mask",
    "utcnow",
]

#: The version of the stored format. Every record carries the version it was written with. 2: an
#: evaluation result wraps its ScenarioResult instead of copying status, checks, usage... from it, and
#: a scan attempt stores the engine's ``Attempt`` whole (``{"attempt": ...}``); 1: copies, fields flat.
SCHEMA_VERSION = 2


#: A validation context key (``build(..., context={VALID_UNICODE: True})``): the data's text is known
#: to be valid Unicode (read from a stored row by a reader that refuses lone surrogates), so models
#: may skip checking it again.
VALID_UNICODE = "valid_unicode"


def new_id() -> str:
    """A new record id: a time-ordered UUID (version 7, RFC 9562: 48 bits of Unix milliseconds, then
    74 random bits). Records written together get neighbouring ids, so a batch of 10^3 results
    touches a few pages of the id index instead of one page per row (random version-4 ids made
    storing 10^5 results about twice as slow)."""
    millis = time.time_ns() // 1_000_000
    rand = int.from_bytes(os.urandom(10), "big")  # 80 bits, 74 of them used
    value = (
        (millis & _MILLIS_MASK) << 80
        | 0x7 << 76
        | (rand >> 68 & 0xFFF) << 64
        | 0b10 << 62
        | rand & _LOW_MASK
    )
    h = f"{value:032x}"  # str(uuid.UUID(int=value)), without building the UUID
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


_MILLIS_MASK = (1 << 48) - 1
_LOW_MASK = (1 << 62) - 1


def utcnow() -> datetime:
    return datetime.now(UTC)


class HubModel(BaseModel):
    """A value object of the Hub (frozen, strict about unknown fields)."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    def __str__(self) -> str:
        return repr(self)


class HubRecord(HubModel):
    """A stored record. Records are snapshots: change them through their resource (``hub.<resource>``)."""

    id: str = Field(default_factory=new_id)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    schema_version: int = SCHEMA_VERSION

    def __eq__(self, other: object) -> bool:
        # Same type and same fields (the Hub a record was read from does not matter).
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.id, self.updated_at))

    # The Hub a record was read from is kept in pydantic's private storage without declaring a
    # ``PrivateAttr``: a declared one makes pydantic run a Python hook for every record built (about
    # 2 us per record, paid twice per test case of an evaluation run: its case and its result).

    def _bind(self, hub: Any) -> Any:
        """Attach the Hub this record came from (for helpers such as ``Evaluation.to_dataframe``)."""
        private = self.__pydantic_private__
        if private is None:  # no PrivateAttr declared (a subclass may declare some)
            object.__setattr__(self, "__pydantic_private__", {"_hub": hub})
        else:
            private["_hub"] = hub
        return self

    @property
    def _hub(self) -> Any:
        """The Hub this record was read from (``None`` for a record built by hand)."""
        private = self.__pydantic_private__
        return None if private is None else private.get("_hub")

    @property
    def hub(self) -> Any:
        """The ``Hub`` this record was read from (``GiskardValidationError`` for a record built by
        hand): what its helpers such as ``Evaluation.to_dataframe`` use."""
        return self._require_hub()

    def _require_hub(self) -> Any:
        if self._hub is None:
            raise GiskardValidationError(
                f"this {type(self).__name__} is not attached to a Hub: get it from a Hub resource "
                "(for example hub.evaluations.retrieve(id)) to use this method"
            )
        return self._hub


def bind_record(record: Any, hub: Any) -> Any:
    """``record`` attached to the Hub it was read from (``HubRecord`` helpers such as
    ``Evaluation.to_dataframe`` use it); the store seam (``giskard_nb.hub.store``) calls this."""
    return record._bind(hub)


def reveal_or_mask(value: Any, info: SerializationInfo) -> Any:
    """For a field serializer: ``value`` as is when dumped for storage (``context={"reveal_secrets":
    True}``), else with its secret-named entries masked (reprs, exports, DataFrames, audit)."""
    from giskard_nb.secrets import mask_values

    if isinstance(info.context, dict) and info.context.get("reveal_secrets"):
        return value
    return mask_values(value)


def build(
    model: type[BaseModel],
    data: dict[str, Any],
    what: str | None = None,
    *,
    context: dict[str, Any] | None = None,
) -> Any:
    """``model.model_validate(data, context=context)``, with pydantic's errors turned into one
    readable message."""
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        raise GiskardValidationError(
            f"invalid {what or model.__name__}: {format_validation_error(exc)}"
        ) from None


def require_same_project(project_id: str, *records: tuple[str, Any], advice: str = "") -> None:
    """``GiskardValidationError`` unless every ``(what, record)`` belongs to ``project_id``; ``advice``
    ends the message."""
    for what, record in records:
        if record.project_id != project_id:
            raise GiskardValidationError(
                f"the {what} {record.name!r} belongs to project {record.project_id}, not to "
                f"{project_id}" + (f": {advice}" if advice else "")
            )


def format_validation_error(exc: ValidationError, prefix: str = "") -> str:
    """``field.sub[0]: message; other: message`` from a pydantic ValidationError."""
    parts = []
    for err in exc.errors(include_url=False):
        loc = prefix
        for piece in err["loc"]:
            loc += f"[{piece}]" if isinstance(piece, int) else (f".{piece}" if loc else str(piece))
        msg = err["msg"].removeprefix("Value error, ")
        parts.append(f"{loc or '(item)'}: {msg}")
    return "; ".join(parts)
