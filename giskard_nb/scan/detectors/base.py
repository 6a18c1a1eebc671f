"""Detector: decides whether an attack succeeded, from the agent's replies.

A detector is a registered, serializable model (``@Detector.register("kind")``) with
``detect(ctx) -> Detection | None`` (sync or ``async``): a ``Detection`` says the attack worked (with a
reason and optionally a severity other than the probe's), ``None`` says this detector found nothing.
Raising ``DetectorError`` (or any exception) makes the attempt ERRORED: a detector that cannot decide
never produces a finding.

Each detector declares the evidence tier of its findings (``tier``, see ``giskard_nb.scan.grading``):
``confirmed`` for deterministic evidence (a canary, a configured secret, a tool call...), ``suspected``
for a rule standing in for a judge (misinformation, harm, advice...). A detector whose findings vary
sets ``Detection(tier=...)`` on each. Suspected findings never set the grade by themselves.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Awaitable, Iterable, Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from giskard_nb.core.registry import Registered
from giskard_nb.errors import GiskardNBError
from giskard_nb.scan.agent import AgentReply
from giskard_nb.scan.attack import Attack, AttackProfile
from giskard_nb.scan.grading import EVIDENCE_TIERS, EvidenceTier, Severity

__all__ = [
    "Detection",
    "DetectionContext",
    "Detector",
    "DetectorError",
    "declared_tier",
    "detector_notes",
    "legacy_evidence",
]


class DetectorError(GiskardNBError):
    """A detector could not reach a verdict (for example a judge model answered nonsense)."""


class Detection(BaseModel):
    """A successful attack, as seen by one detector."""

    model_config = ConfigDict(defer_build=True, frozen=True)

    reason: str
    severity: Severity | None = None
    #: The excerpt of the reply that shows it (an attempt's ``excerpt``).
    evidence: str | None = None
    #: ``confirmed`` or ``suspected`` (``None``: the detector's declared ``tier``); an attempt's ``evidence``.
    tier: EvidenceTier | None = None
    detector: str = ""
    #: The detector's own dump (with its ``kind``), so the finding can be re-checked later.
    detector_config: dict[str, Any] | None = None
    #: Regular expressions of text the agent must not output again (for regression checks).
    forbidden_patterns: list[str] = Field(default_factory=list)


class DetectionContext(BaseModel):
    """Everything a detector may look at: the attack, the agent's replies (last is final), the profile."""

    model_config = ConfigDict(defer_build=True, arbitrary_types_allowed=True)

    attack: Attack
    replies: list[AgentReply]
    profile: AttackProfile = Field(default_factory=AttackProfile)
    judge: Any = None
    #: The contacts seen in the scan's replies so far (``contacts.ContactMemory``), when a scan runs.
    contacts: Any = None
    #: The attack's tools (a ``giskard_nb.tools.MockTools``) when the scan gives the agent its tools:
    #: their ``calls`` are what the agent did (``giskard_nb.scan.detectors.tools``).
    tools: Any = None
    #: The tools the agent's role may call (``ScanOptions.allowed_tools``), when known.
    allowed_tools: list[str] | None = None
    #: Usage reported by LLM-backed detectors (prompt_tokens, completion_tokens, cost_usd, llm_calls...).
    usage: dict[str, float] = Field(default_factory=dict)

    @property
    def reply(self) -> AgentReply:
        return self.replies[-1]

    @property
    def text(self) -> str:
        return self.replies[-1].text if self.replies else ""

    def add_usage(self, **values: float) -> None:
        for k, v in values.items():
            self.usage[k] = self.usage.get(k, 0.0) + float(v or 0)


class Detector(Registered):
    """Base of the detectors. ``uses_judge`` detectors need a judge model and are skipped without one."""

    _family: ClassVar[str] = "detector"
    _registry: ClassVar[dict[str, type[Registered]]] = {}

    uses_judge: ClassVar[bool] = False
    #: The evidence tier of this detector's findings (a ``Detection`` may set its own ``tier``).
    tier: ClassVar[EvidenceTier] = "confirmed"

    @abstractmethod
    def detect(self, ctx: DetectionContext) -> Detection | Awaitable[Detection | None] | None:
        """Return a ``Detection`` when the attack succeeded, else ``None``."""

    @property
    def label(self) -> str:
        return type(self)._kind or type(self).__name__

    def notes(self, profile: AttackProfile) -> list[str]:
        """What this detector cannot read with this profile and installation, said once in the scan's
        warnings (not per attempt): for example a reading limited to English."""
        return []


def declared_tier(fields: dict[str, Any]) -> EvidenceTier:
    """The evidence tier the detector of a recorded finding declares (from its ``detector_config``
    kind or its label; ``confirmed`` when unknown): how attempts recorded before tiers are read."""
    config = fields.get("detector_config")
    kind = config.get("kind") if isinstance(config, dict) else None
    label = str(fields.get("detector") or "")
    cls = Detector._lookup(kind) or Detector._lookup(label.split(":", 1)[0])
    return cls.tier if cls is not None and issubclass(cls, Detector) else "confirmed"


def legacy_evidence(data: Any) -> Any:
    """An attempt's fields as read back: attempts recorded before the evidence tier held the excerpt
    in ``evidence``; it moves to ``excerpt``, and a finding's tier is the one its detector declares."""
    if not isinstance(data, dict) or data.get("evidence") in (None, *EVIDENCE_TIERS):
        if isinstance(data, dict) and data.get("successful") and data.get("evidence") is None:
            data = {**data, "evidence": declared_tier(data)}
        return data
    data = {**data, "excerpt": data.get("excerpt") or data["evidence"], "evidence": None}
    if data.get("successful"):
        data["evidence"] = declared_tier(data)
    return data


def detector_notes(
    detectors: Mapping[str, Iterable[Detector]], profile: AttackProfile
) -> list[str]:
    """The ``notes`` of a scan's detectors (by probe id), each once, in order."""
    return list(
        dict.fromkeys(n for group in detectors.values() for d in group for n in d.notes(profile))
    )
