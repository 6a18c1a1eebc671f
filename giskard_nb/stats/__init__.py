"""Statistics of verdicts, in pure Python (the standard library only): Wilson and bootstrap intervals
for pass rates, the exact paired sign test between two runs, and agreement between a judge and people
(raw agreement, Cohen's and Fleiss' kappa, precision, recall and F1 with bootstrap intervals).
Every bootstrap is seeded (``seed=0`` unless given), so the same data gives the same interval. The
functions take plain lists, so the core results and the Hub call them alike. May import: errors.
"""

from giskard_nb.stats.agreement import (
    AgreementScores,
    agreement_scores,
    cohen_kappa,
    fleiss_kappa,
    mean_pairwise_kappa,
    precision_recall_f1,
    raw_agreement,
)
from giskard_nb.stats.intervals import (
    Interval,
    bootstrap_interval,
    bootstrap_rate,
    wilson_interval,
)
from giskard_nb.stats.paired import PairedTest, paired_test, sign_test_p_value

__all__ = [
    "AgreementScores",
    "Interval",
    "PairedTest",
    "agreement_scores",
    "bootstrap_interval",
    "bootstrap_rate",
    "cohen_kappa",
    "fleiss_kappa",
    "mean_pairwise_kappa",
    "paired_test",
    "precision_recall_f1",
    "raw_agreement",
    "sign_test_p_value",
    "wilson_interval",
]
