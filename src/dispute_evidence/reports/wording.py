"""What each kind of problem is called in a report, and what a person should do about it.

The one place for this wording: steps say what is wrong and where (problems.Problem); this
module says how it is headed and what to do."""

from __future__ import annotations

from dispute_evidence.problems import ProblemKind as K

STATUS_WORDS = {
    "submitted": "sent",
    "pending": "not sent yet",
    "incomplete": "waiting for data",
    "rejected": "refused by the API",
    "not_found": "unknown to the API",
    "past_due": "past its deadline, not sent",
    "closed": "closed at the API",
    "awaiting_approval": "waiting for approval",
}

# Shown as single lines at the top of "Needs your attention", before the grouped problems.
RUN_LEVEL = frozenset(
    {K.RUN_STOPPED, K.MERCHANT_PROFILE_MISSING, K.INBOX_FOLDER, K.FILES_WAITING, K.CASE_CE3}
)

HEADING = {
    K.RUN_STOPPED: "Run stopped",
    K.MERCHANT_PROFILE_MISSING: "No merchant profile",
    K.INBOX_FOLDER: "Inbox folders that cannot be used",
    K.FILES_WAITING: "Files still being written",
    K.ROW_NOT_USED: "Rows or files not used",
    K.SHEET_WITHOUT_TABLE: "Sheets with no table (the workbook's other sheets were read)",
    K.COLUMN_NOT_READ: "Columns not read (did you mean a column we read?)",
    K.LAYOUT_CHOSEN: "Sheets that fit two layouts (which one each was read as, and why)",
    K.FILE_NOT_USED: "Files not used",
    K.EXPORT_INCOMPLETE: "Exports without columns they have when exported whole",
    K.UNLISTED_DISPUTE: "Disputed charges missing from the disputes list",
    K.CHARGES_WITHOUT_ORDER: "Payments exports whose charges join no order",
    K.CHARGES_OUTSIDE_ORDERS: "Charges that join no order of the orders export",
    K.FILE_SKIPPED: "Files skipped",
    K.FILE_LEFT_IN_INBOX: "Files left in the inbox",
    K.EVIDENCE_NOT_TAKEN: "Evidence files not uploaded",
    K.EVIDENCE_FILE_REJECTED: "Evidence files moved to rejected/",
    K.EVIDENCE_MATCHED_BY_CONTENT: "Evidence files matched by what their text names",
    K.DOCUMENT_NOT_READ: "Evidence documents sent as files only (not read)",
    K.EVIDENCE_INCOMPLETE: "Evidence that misses what the dispute reason needs",
    K.EVIDENCE_WEAK: "Evidence that undercuts the dispute's own reason",
    K.EVIDENCE_HELD: "Disputes held: their evidence would go out wrong",
    K.EVIDENCE_NOT_YET_UPLOADED: "Evidence files not yet uploaded",
    K.EVIDENCE_REFUSED: "Evidence files refused by the API",
    K.EVIDENCE_PAST_DUE: "Evidence files not sent (past the deadline)",
    K.DISPUTE_PENDING: "Disputes pending",
    K.DISPUTE_INCOMPLETE: "Disputes incomplete",
    K.DISPUTE_PAST_DUE: "Disputes past due",
    K.DISPUTE_REJECTED: "Disputes rejected",
    K.DISPUTE_NOT_FOUND: "Disputes not found",
    K.DISPUTE_CLOSED: "Disputes closed at the API",
    K.DISPUTE_HELD: "Disputes not sent this run (API status)",
    K.DEADLINE_MOVED: "Deadlines the API moved",
    K.DISPUTE_AWAITING_APPROVAL: "Waiting for your approval",
    K.APPROVAL_NOT_APPLIED: "Approvals not applied",
    K.ALERT_NOT_SENT: "Alerts not sent",
    K.CASE_CE3: "Visa Compelling Evidence 3.0",
    K.CASE_NO_CLAIMS: "Rebuttal letters that make no claim",
    K.CASE_HELD: "Disputes held under your fight threshold",
    K.PDF_NOT_MADE: "Evidence PDFs that could not be made",
    K.OVER_NETWORK_LIMIT: "Disputes held: over the card network's limits",
    K.DOCUMENT_SENT_ALONE: "Documents sent on their own (their dispute's packet was superseded once)",
}

# One plain instruction per kind (the problem's own text says what exactly is wrong).
WHAT_TO_DO = {
    K.RUN_STOPPED: "Check DISPUTE_API_TOKEN (or the Secret block) and run again; nothing more was sent.",
    K.MERCHANT_PROFILE_MISSING: "Set merchant_id, merchant_name and merchant_website under [merchant] "
    "in the config (see config/dispute-evidence.example.toml).",
    K.EVIDENCE_INCOMPLETE: "Add what the problem lists before the deadline (a file named with the "
    "order number, or the missing export); the next run sends it.",
    K.EVIDENCE_HELD: "Fix what the problem names (file, row, column; or which list is right) and drop "
    "the corrected file again; the next run sends the dispute whole.",
    K.EVIDENCE_WEAK: "Add what contradicts the record (e.g. proof of delivery) before the deadline, "
    "or consider accepting the dispute: the facts are stated exactly as they are.",
    K.INBOX_FOLDER: "Replace it with a plain folder inside the inbox; until then files stay where they are.",
    K.FILES_WAITING: "Nothing: the next run reads them once they are completely written.",
    K.ROW_NOT_USED: "Fix the cell in the source system or sheet and drop the corrected file again; "
    "the file's other rows were used.",
    K.SHEET_WITHOUT_TABLE: "Nothing: notes, pivots and charts are not data; rename a sheet's headers "
    "(or add a mapping) only if it does hold a table.",
    K.LAYOUT_CHOSEN: "Nothing: the line says which layout the sheet was read as and why; if that "
    "is wrong, map it in the config (README, 'Your own sheets') and drop it again.",
    K.FILE_NOT_USED: "Fix what the line says (or map the sheet in the config: README, 'Your own "
    "sheets') and drop the file again; nothing of this file was used.",
    K.EXPORT_INCOMPLETE: "Export it again with all its columns (the line names those missing) and "
    "drop it into the inbox; until then what it has is used.",
    K.COLUMN_NOT_READ: "Rename the header to the one suggested (or map it in the config) and drop "
    "the file again; the rest of the file was used.",
    K.UNLISTED_DISPUTE: "Add the dispute to the disputes list (its dp_… id and order number) before its deadline.",
    K.CHARGES_WITHOUT_ORDER: "Check which column of the payments export holds the shop's order number "
    "and map payments' order_number to it (README, 'Your own sheets'); "
    "until then no charge's card checks reach a dispute.",
    K.CHARGES_OUTSIDE_ORDERS: "Nothing: charges of orders the orders export does not cover join none; "
    "if a disputed order's charge is among them, check its order number.",
    K.FILE_SKIPPED: "Nothing, if the file is not an export or evidence; otherwise save it as CSV, XLSX, "
    "PDF, PNG or JPG.",
    K.FILE_LEFT_IN_INBOX: "Fix the inbox folder the problem names; the file was used and stays where it is "
    "until then (dropping it again does no harm).",
    K.EVIDENCE_NOT_TAKEN: "Rename or re-save the file as the problem says and drop it again.",
    K.EVIDENCE_FILE_REJECTED: "Re-save or replace the file as the problem says and drop it again; "
    "rejected/ keeps the original with a .reason.txt.",
    K.EVIDENCE_MATCHED_BY_CONTENT: "Nothing: it went with the dispute its text names; if it belongs to "
    "another, rename it to name that one (dp_… id or order number) and "
    "drop it again.",
    K.DOCUMENT_NOT_READ: "Nothing: it is sent as it is; to have it read, drop it again as a smaller "
    "or plain (text) PDF.",
    K.EVIDENCE_NOT_YET_UPLOADED: "Nothing: the next run retries it (check the problem if it repeats).",
    K.EVIDENCE_REFUSED: "Replace the file as the problem says (type, size) and drop it again.",
    K.EVIDENCE_PAST_DUE: "Nothing can be sent after the deadline; check the date if it looks wrong.",
    K.DISPUTE_PENDING: "Nothing: the next run sends it (check the problem if it repeats).",
    K.DISPUTE_INCOMPLETE: "Drop the missing export (orders) for this dispute's order.",
    K.DISPUTE_PAST_DUE: "Nothing can be sent after the deadline; check the date if it looks wrong.",
    K.DISPUTE_REJECTED: "Correct the data the API refused (see the problem) and drop the file again.",
    K.DISPUTE_CLOSED: "Nothing: a dispute that ended (won, lost, ...) gets nothing more.",
    K.DISPUTE_HELD: "Nothing: the next run reads its status again and sends if it may.",
    K.DEADLINE_MOVED: "Nothing: the API's deadline is used; correct the disputes list if you keep it.",
    K.DISPUTE_NOT_FOUND: "Check the dispute id in the disputes list; the API does not know it.",
    K.DISPUTE_AWAITING_APPROVAL: "Check what would go (waiting-for-approval/ in this report: payload, "
    "files, summary PDF), then approve: write yes under Approve in "
    "disputes.xlsx and drop it into the inbox (the next run sends it; "
    "under `serve` the drop starts one), or run `dispute-evidence "
    "approve --inbox INBOX <dispute>` (it sends it at once).",
    K.APPROVAL_NOT_APPLIED: "Approve again from the newest report's disputes.xlsx (the problem says why "
    "this one approved nothing).",
    K.ALERT_NOT_SENT: "Check the notification block named by [alerts] block (and that the Prefect "
    "server is reachable); the next run tries again.",
    K.CASE_NO_CLAIMS: "Add what the dispute's reason needs (see 'What to add': tracking, delivery, "
    "payment checks, documents named with the order number); the letter argues "
    "only from facts you drop.",
    K.CASE_HELD: "Nothing: you set [advice] hold_under_amount; lower or remove it before the "
    "deadline to send them.",
    K.CASE_CE3: "Nothing: advice. Capture the buyer's IP address or device ID at checkout and export "
    "it (columns customer_ip, device_id) so more fraud disputes qualify.",
    K.PDF_NOT_MADE: "Check the value the problem names (re-save the file it came from) and drop it "
    "again; the dispute's other evidence and every other dispute went on.",
    K.OVER_NETWORK_LIMIT: "Make the largest documents the problem names smaller (fewer pages, a "
    'smaller scan) and drop them again, set [evidence] upload = "packet" '
    "(photos are recompressed to fit), or pick another profile under "
    "[evidence] limits; nothing of it is sent over the limit.",
    K.DOCUMENT_SENT_ALONE: "Nothing: it went to the API as it is, after the packet, so the reviewer "
    "has it; a dispute's packet is replaced at most once, and the letter "
    "inside it cannot cite a document that came later.",
}

# Problems a person has to act on (the others resolve themselves: the next run does it).
NEEDS_A_PERSON = frozenset(k for k, todo in WHAT_TO_DO.items() if not todo.startswith("Nothing:"))
