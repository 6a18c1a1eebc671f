"""Projects and their failure categories."""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub.models.base import HubModel, HubRecord

__all__ = ["FailureCategory", "Project"]

_IDENTIFIER = re.compile(r"^[a-z][a-z0-9_]*$")


class FailureCategory(HubModel):
    """A label for why a result failed: ``identifier`` (snake_case), ``title`` and ``description``."""

    identifier: str
    title: str
    description: str = ""

    @field_validator("identifier")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not _IDENTIFIER.match(value):
            raise GiskardValidationError(
                f"a failure category identifier is snake_case (letters, digits, '_'), got {value!r}"
            )
        return value

    def __str__(self) -> str:
        return self.title


class Project(HubRecord):
    """A workspace grouping agents, datasets, checks and evaluations, with its failure categories."""

    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    failure_categories: list[FailureCategory] = Field(default_factory=list)

    @field_validator("failure_categories")
    @classmethod
    def _unique(cls, categories: list[FailureCategory]) -> list[FailureCategory]:
        seen: set[str] = set()
        for category in categories:
            if category.identifier in seen:
                raise GiskardValidationError(
                    f"failure category {category.identifier!r} is listed twice; identifiers are unique"
                )
            seen.add(category.identifier)
        return categories

    def failure_category(self, identifier: str) -> FailureCategory | None:
        return next((c for c in self.failure_categories if c.identifier == identifier), None)

    def __repr__(self) -> str:
        return f"<Project {self.name!r} id={self.id}>"
