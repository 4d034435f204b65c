"""Per-run reports an analyst can read: a one-page summary (Markdown + HTML) and the details
as CSV and XLSX. Every cell that would start a formula is escaped."""

from dispute_evidence.reports.run_report import RunReport
from dispute_evidence.reports.wording import NEEDS_A_PERSON
from dispute_evidence.reports.writer import escape_cell, write_report

__all__ = ["NEEDS_A_PERSON", "RunReport", "escape_cell", "write_report"]
