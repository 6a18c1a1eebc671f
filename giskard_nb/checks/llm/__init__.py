"""LLM-judged checks. Importing this package registers their kinds; it does not import litellm.
May import: errors, core and llm.

Kinds: ``llm_judge`` (LLMJudge), ``groundedness``, ``contradiction``, ``correctness``, ``conformity``,
``answer_relevance``, ``toxicity``, ``sentiment``. Custom judges subclass ``BaseLLMCheck`` (see ``base.py``).
"""

from giskard_nb.checks.llm.base import BaseLLMCheck, LLMCheckResult
from giskard_nb.checks.llm.conformity import Conformity
from giskard_nb.checks.llm.grounding import Contradiction, Correctness, Groundedness
from giskard_nb.checks.llm.judge import LLMJudge
from giskard_nb.checks.llm.relevance import AnswerRelevance
from giskard_nb.checks.llm.sentiment import SENTIMENTS, Sentiment
from giskard_nb.checks.llm.toxicity import TOXICITY_CATEGORIES, Toxicity

__all__ = [
    "SENTIMENTS",
    "TOXICITY_CATEGORIES",
    "AnswerRelevance",
    "BaseLLMCheck",
    "Conformity",
    "Contradiction",
    "Correctness",
    "Groundedness",
    "LLMCheckResult",
    "LLMJudge",
    "Sentiment",
    "Toxicity",
]
