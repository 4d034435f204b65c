"""Problems as data: what each step of a run found that a person must know or act on.

Steps produce `Problem`s (what is wrong, where); `reports/` owns how each kind is headed and
what to do about it. Neutral module: imports nothing of ours.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ProblemKind(StrEnum):
    """One value per kind of problem; reports/wording.py heads each and says what to do."""

    # about the run or the inbox as a whole: shown as lines at the top of the report
    RUN_STOPPED = "run_stopped"
    MERCHANT_PROFILE_MISSING = "merchant_profile_missing"
    INBOX_FOLDER = "inbox_folder"
    FILES_WAITING = "files_waiting"
    # about one row, file or dispute: grouped under a heading
    ROW_NOT_USED = "row_not_used"
    SHEET_WITHOUT_TABLE = "sheet_without_table"  # a "Read me" beside the workbook's tables
    COLUMN_NOT_READ = "column_not_read"  # a header one edit from a column the layout reads
    LAYOUT_CHOSEN = "layout_chosen"  # a sheet that fits two layouts: which it was read as, why
    FILE_NOT_USED = "file_not_used"  # nothing of the file was read (no table, unreadable)
    EXPORT_INCOMPLETE = "export_incomplete"  # read without columns it has when exported whole
    UNLISTED_DISPUTE = "unlisted_dispute"
    CHARGES_WITHOUT_ORDER = "charges_without_order"  # not one charge of a file joins an order
    CHARGES_OUTSIDE_ORDERS = "charges_outside_orders"  # some do not: orders the export lacks
    FILE_SKIPPED = "file_skipped"
    FILE_LEFT_IN_INBOX = "file_left_in_inbox"
    EVIDENCE_NOT_TAKEN = "evidence_not_taken"
    EVIDENCE_FILE_REJECTED = "evidence_file_rejected"
    # evidence documents read (documents/reading.py): matched by their text, or not read
    EVIDENCE_MATCHED_BY_CONTENT = "evidence_matched_by_content"
    DOCUMENT_NOT_READ = "document_not_read"
    EVIDENCE_INCOMPLETE = "evidence_incomplete"
    EVIDENCE_WEAK = "evidence_weak"
    EVIDENCE_HELD = "evidence_held"  # its evidence would go out wrong (a row not used, ...)  # the merchant's own records undercut the dispute's reason
    EVIDENCE_NOT_YET_UPLOADED = "evidence_not_yet_uploaded"
    EVIDENCE_REFUSED = "evidence_refused"
    EVIDENCE_PAST_DUE = "evidence_past_due"
    DISPUTE_PENDING = "dispute_pending"
    DISPUTE_INCOMPLETE = "dispute_incomplete"
    DISPUTE_PAST_DUE = "dispute_past_due"
    DISPUTE_REJECTED = "dispute_rejected"
    DISPUTE_NOT_FOUND = "dispute_not_found"
    DISPUTE_CLOSED = "dispute_closed"
    DISPUTE_HELD = "dispute_held"
    DEADLINE_MOVED = "deadline_moved"
    # review before sending (engine/review/approval.py) and alerts
    # (engine/reporting/deadline_alerts.py)
    DISPUTE_AWAITING_APPROVAL = "dispute_awaiting_approval"
    APPROVAL_NOT_APPLIED = "approval_not_applied"
    ALERT_NOT_SENT = "alert_not_sent"
    # the case each dispute makes (engine/prepare/case.py)
    CASE_CE3 = "case_ce3"
    CASE_NO_CLAIMS = "case_no_claims"
    CASE_HELD = "case_held"
    # the generated PDF and the packet (engine/prepare/pdf_versions.py)
    PDF_NOT_MADE = "pdf_not_made"  # building one dispute's PDF failed: the run went on
    OVER_NETWORK_LIMIT = "over_network_limit"  # what would go exceeds its limit profile: held
    DOCUMENT_SENT_ALONE = "document_sent_alone"  # came after the packet's last version: own file


@dataclass(frozen=True)
class Problem:
    """One thing a person must know: its kind, where it is, and what exactly is wrong."""

    kind: ProblemKind
    where: str  # as a person finds it: "orders.csv row 4, column 'Price'", a dispute id, a file
    what: str
    file: str = ""
    sheet: str = ""
    row: int | None = None
    column: str = ""
    value: str = ""
    dispute: str = ""
    order: str = ""  # a row's order number: a dispute on that order is held until it is fixed

    @classmethod
    def from_dict(cls, d: dict[str, object]) -> Problem:
        """A problem kept in the state (stored with dataclasses.asdict)."""
        return cls(**{**d, "kind": ProblemKind(str(d["kind"]))})  # type: ignore[arg-type]
