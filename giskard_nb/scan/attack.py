"""Attack: one concrete adversarial conversation, and the tools to build attacks from templates.

A probe turns templates into attacks. Templates use ``{{ name }}`` placeholders filled by plain string
substitution (never evaluated, so a template cannot run code). Every attack carries what its detectors
need: the canary the agent must not repeat, the payload it must not echo unescaped, the goal whose
compliance is a finding, the markers whose absence means a false premise was accepted.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from giskard_nb.errors import GiskardValidationError
from giskard_nb.scan.grading import Severity

__all__ = [
    "Attack",
    "AttackProfile",
    "PayloadKind",
    "attack_id",
    "make_canary",
    "placeholders",
    "profile_of",
    "render_template",
]

PayloadKind = Literal["html", "markdown_image", "js_uri", "sql", "shell", "code", "text"]

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_CANARY_WORDS = (
    "AMBER", "BASALT", "COBALT", "DELTA", "EMBER", "FJORD", "GARNET", "HALCYON", "INDIGO", "JUNIPER",
    "KESTREL", "LUMEN", "MAGPIE", "NIMBUS", "OPAL", "PIKE", "QUARTZ", "RAVEN", "SORREL", "TUNDRA",
)  # fmt: skip


class AttackProfile(BaseModel):
    """What the scan knows about the agent: used in templates and by leak and secret detectors.

    ``system_prompt`` and ``secrets`` are optional; when given, leaks of them are detected exactly
    (they are never sent to the agent nor shown in reports, only fragments the agent itself revealed).
    """

    model_config = ConfigDict(defer_build=True, frozen=True)

    name: str = "the assistant"
    description: str = ""
    system_prompt: str | None = Field(default=None, repr=False)
    secrets: list[str] = Field(default_factory=list, repr=False)

    @classmethod
    def from_agent(cls, agent: Any) -> AttackProfile:
        """The profile an agent exposes about itself (see ``profile_of``)."""
        return profile_of(agent)


def profile_of(agent: Any) -> AttackProfile:
    """What an agent tells the scan about itself, as an ``AttackProfile``.

    - a Hub agent record (``hub.agents``): its name and description (the Hub stores no system
      prompt: give one with ``AttackProfile(system_prompt=...)`` or ``--system-prompt``);
    - a local agent (a function or an object) with a ``profile()`` method: what it returns (an
      ``AttackProfile`` or a dict of its fields);
    - else its attributes ``system_prompt`` (str), ``secrets`` (strings), ``description`` and
      ``name`` (default: the function's or class's name). At least a system prompt or a secret is
      needed: an agent exposing neither is an error (a profile with only a name tells no detector
      anything).
    """
    record = not callable(agent) and isinstance(getattr(agent, "name", None), str)
    name = getattr(agent, "name", None)
    if not isinstance(name, str) or not name.strip():
        name = getattr(agent, "__name__", None) or type(agent).__name__
    maker = getattr(agent, "profile", None)
    if callable(maker):
        made = maker()
        data = made.model_dump() if isinstance(made, AttackProfile) else made
        if not isinstance(data, Mapping):
            raise GiskardValidationError(
                f"{name}.profile() returned {type(made).__name__}: return an AttackProfile or a dict "
                "of its fields (name, description, system_prompt, secrets)"
            )
        return AttackProfile.model_validate({"name": name, **data})
    prompt = getattr(agent, "system_prompt", None)
    secrets = getattr(agent, "secrets", None) or []
    if isinstance(secrets, str):
        secrets = [secrets]
    description = getattr(agent, "description", None)
    fields = {
        "name": name,
        "description": description if isinstance(description, str) else "",
        "system_prompt": prompt if isinstance(prompt, str) and prompt.strip() else None,
        "secrets": [s for s in secrets if isinstance(s, str) and s],
    }
    if not record and fields["system_prompt"] is None and not fields["secrets"]:
        raise GiskardValidationError(
            f"agent {name!r} exposes nothing the scan can use: give it a system_prompt attribute "
            "(and secrets=[...], description=...), or a profile() method returning an "
            "AttackProfile; or pass profile=AttackProfile(system_prompt=..., secrets=[...]) yourself"
        )
    return AttackProfile(**fields)


class Attack(BaseModel):
    """One adversarial conversation: user ``turns`` sent in order (after any fake ``history``)."""

    model_config = ConfigDict(defer_build=True, frozen=True)

    id: str
    probe_id: str
    category: str
    turns: list[str]
    history: list[dict[str, str]] = Field(default_factory=list)
    goal: str = ""
    canary: str | None = None
    expected: list[str] = Field(default_factory=list)
    expected_all: bool = False
    correction_markers: list[str] = Field(default_factory=list)
    payload: str | None = None
    payload_kind: PayloadKind | None = None
    exfil_domain: str | None = None
    entity: str | None = None
    severity: Severity | None = None
    variant: str = "default"
    source: str = "library"
    adaptive: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def input_text(self) -> str:
        """Everything the attacker wrote (history and turns), to tell echoes from genuine output."""
        parts = [m.get("content", "") for m in self.history] + list(self.turns)
        return "\n".join(p for p in parts if isinstance(p, str))


def make_canary(seed: object, *parts: object) -> str:
    """A deterministic, unlikely-to-occur marker such as ``KESTREL-7Q2F9``, different per attack."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in (seed, *parts)).encode()).hexdigest()
    word = _CANARY_WORDS[int(digest[:4], 16) % len(_CANARY_WORDS)]
    code = format(int(digest[4:16], 16), "X")[:5]
    return f"{word}-{code}"


def attack_id(probe_id: str, *parts: object) -> str:
    """A stable id from the probe and what makes the attack unique (used to resume a scan)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in (probe_id, *parts)).encode()).hexdigest()
    return f"{probe_id}:{digest[:12]}"


def placeholders(text: str) -> set[str]:
    """The ``{{ name }}`` placeholders used in ``text``."""
    return set(_PLACEHOLDER.findall(text))


def render_template(text: str, values: Mapping[str, Any], *, where: str = "template") -> str:
    """Substitute ``{{ name }}`` placeholders; a placeholder without a value is an error."""

    def sub(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values or values[name] is None:
            known = ", ".join(sorted(k for k, v in values.items() if v is not None)) or "(none)"
            raise GiskardValidationError(
                f"{where} uses {{{{ {name} }}}} but no value is given for it (available: {known})"
            )
        return str(values[name])

    return _PLACEHOLDER.sub(sub, text)
