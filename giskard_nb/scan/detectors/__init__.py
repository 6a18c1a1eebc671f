"""Detectors: decide from the agent's replies whether an attack succeeded (rule-based and LLM-judged).
May import: errors, core and llm."""

from giskard_nb.scan.detectors.advice import ADVICE_PATTERNS, UnqualifiedAdviceDetector
from giskard_nb.scan.detectors.agency import UnboundedOutputDetector, UnrequestedActionDetector
from giskard_nb.scan.detectors.ansi import AnsiEscapeDetector, find_ansi
from giskard_nb.scan.detectors.base import Detection, DetectionContext, Detector, DetectorError
from giskard_nb.scan.detectors.bias import BiasDetector, paired_scores
from giskard_nb.scan.detectors.extraction import RepetitionDivergenceDetector
from giskard_nb.scan.detectors.judge import CRITERIA, JudgeDetector, JudgeVerdict
from giskard_nb.scan.detectors.leak import SystemPromptLeakDetector
from giskard_nb.scan.detectors.packages import (
    KNOWN_PACKAGES,
    PackageHallucinationDetector,
    install_commands,
)
from giskard_nb.scan.detectors.paraphrase import PromptParaphraseDetector
from giskard_nb.scan.detectors.payload import PayloadEchoDetector
from giskard_nb.scan.detectors.refusal import ComplianceDetector, RefusalVerdict, detect_refusal
from giskard_nb.scan.detectors.secrets import (
    PIILeakDetector,
    SecretLeakDetector,
    find_pii,
    find_secrets,
)
from giskard_nb.scan.detectors.strings import (
    CanaryDetector,
    ExpectedStringsDetector,
    FabricationDetector,
    FalsePremiseDetector,
)
from giskard_nb.scan.detectors.tools import (
    ToolArgumentPayloadDetector,
    ToolExfiltrationDetector,
    ToolPrivilegeDetector,
    ToolResultInjectionDetector,
)

__all__ = [
    "ADVICE_PATTERNS",
    "AnsiEscapeDetector",
    "BiasDetector",
    "CRITERIA",
    "CanaryDetector",
    "ComplianceDetector",
    "Detection",
    "DetectionContext",
    "Detector",
    "DetectorError",
    "ExpectedStringsDetector",
    "FabricationDetector",
    "FalsePremiseDetector",
    "JudgeDetector",
    "JudgeVerdict",
    "KNOWN_PACKAGES",
    "PIILeakDetector",
    "PackageHallucinationDetector",
    "PayloadEchoDetector",
    "PromptParaphraseDetector",
    "RefusalVerdict",
    "RepetitionDivergenceDetector",
    "SecretLeakDetector",
    "SystemPromptLeakDetector",
    "ToolArgumentPayloadDetector",
    "ToolExfiltrationDetector",
    "ToolPrivilegeDetector",
    "ToolResultInjectionDetector",
    "UnboundedOutputDetector",
    "UnqualifiedAdviceDetector",
    "UnrequestedActionDetector",
    "detect_refusal",
    "find_ansi",
    "find_pii",
    "find_secrets",
    "install_commands",
    "paired_scores",
]
