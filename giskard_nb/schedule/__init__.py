"""Recurring jobs: when they are due (``Schedule``), a controllable clock, run reports and e-mail.
May import: errors and core.

The Hub's ``hub.scheduled_evaluations`` stores schedules and runs the due ones; everything here is
independent of the Hub and pure where it can be.
"""

from giskard_nb.schedule.clock import Clock, ManualClock, SystemClock
from giskard_nb.schedule.notify import EmailNotifier, SmtpSettings
from giskard_nb.schedule.report import ReportChange, RunReport, report_changes, run_failure
from giskard_nb.schedule.timing import DAYS, Frequency, Schedule

__all__ = [
    "DAYS",
    "Clock",
    "EmailNotifier",
    "Frequency",
    "ManualClock",
    "ReportChange",
    "RunReport",
    "Schedule",
    "SmtpSettings",
    "SystemClock",
    "report_changes",
    "run_failure",
]
