"""Prepare, the first stage of a run: ingest the inbox, then build payloads and take in evidence files.

Each step takes explicit inputs and returns a typed outcome with its counts and problems;
engine/run_steps.py puts them in order (and is the only place that does). Plain functions, so the
Prefect flow, the CLI, tests and benchmarks all run the very same code."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from dispute_evidence import names
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.documents.files import EvidenceFile, FileIssue, match_evidence_files
from dispute_evidence.documents.kinds import kind_of
from dispute_evidence.documents.reading import (
    ReadLimits,
    ToRead,
    read_documents,
)
from dispute_evidence.engine.options import RunOptions
from dispute_evidence.engine.prepare.case import case_documents
from dispute_evidence.engine.prepare.kept_facts import facts_of
from dispute_evidence.engine.prepare.pdf_versions import refresh_generated
from dispute_evidence.engine.prepare.rebuild import (
    BUILT_HELD,
    changed_scope,
    held_digest,
    keep_build_problems,
    keep_ce3,
    scoped_records,
    unclaimed_orders,
)
from dispute_evidence.engine.prepare.retention_clearing import RetentionOutcome
from dispute_evidence.engine.prepare.storedocs_intake import take_store_documents
from dispute_evidence.evidence import BuildResult, build_evidence
from dispute_evidence.evidence.payments import UnjoinedCharges
from dispute_evidence.inbox import (
    ARCHIVE,
    PRIVATE,
    PRIVATE_DIR,
    REJECTED,
    InboxLayout,
    UnsafeFolder,
    archive,
    file_sha256,
    is_settled,
    reject,
    safe_folder,
    signature,
    store_blob,
    unreadable_reason,
)
from dispute_evidence.ingest import FileSummary, ingest_file, scan_inbox
from dispute_evidence.ingest.choice import INCOMPLETE_EXPORT, READ_AS
from dispute_evidence.ingest.near_headers import NEAR_HEADER
from dispute_evidence.ingest.tables import Reject
from dispute_evidence.names import upload_name
from dispute_evidence.problems import Problem, ProblemKind
from dispute_evidence.state.holders import (
    HasDisputes,
    HasGenerated,
    HasKept,
    HasRecords,
    HasReports,
    HasRuns,
    HasScoped,
    HasStoredocs,
)
from dispute_evidence.state.store import now_iso


class BuildParts(
    HasDisputes,
    HasGenerated,
    HasKept,
    HasRecords,
    HasReports,
    HasRuns,
    HasScoped,
    HasStoredocs,
    Protocol,
):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


log = logging.getLogger("dispute_evidence.steps")


@dataclass
class IngestOutcome:
    new_files: int = 0
    repeated_files: int = 0
    waiting_files: list[str] = field(default_factory=list)
    summaries: list[FileSummary] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    evidence_paths: list[Path] = field(default_factory=list)
    folder_problems: dict[str, str] = field(default_factory=dict)  # {folder: why unusable}
    not_moved: list[tuple[str, str]] = field(default_factory=list)  # (file, why it stayed)

    @property
    def rows_rejected(self) -> int:
        return sum(s.rows_rejected for s in self.summaries)

    def problems(self) -> list[Problem]:
        """About the inbox as it is now (row problems are kept in the state instead)."""
        out = [
            Problem(ProblemKind.INBOX_FOLDER, f"{folder}/", why)
            for folder, why in self.folder_problems.items()
        ]
        if self.waiting_files:
            shown = ", ".join(self.waiting_files[:5]) + (
                " …" if len(self.waiting_files) > 5 else ""
            )
            out.append(
                Problem(
                    ProblemKind.FILES_WAITING,
                    shown,
                    f"{len(self.waiting_files)} file(s) still "
                    "being written; they will be read next run",
                )
            )
        out += [
            Problem(ProblemKind.FILE_SKIPPED, path, why, file=path) for path, why in self.skipped
        ]
        out += [
            Problem(ProblemKind.FILE_LEFT_IN_INBOX, path, why, file=path)
            for path, why in self.not_moved
        ]
        return out


def reject_problem(kind: ProblemKind, r: Reject) -> Problem:
    """A problem that points at a cell (or a whole file) as the analyst sees it in Excel."""
    return Problem(
        kind,
        r.line().split(":")[0],
        r.reason,
        file=r.file,
        sheet=r.sheet or "",
        row=r.row,
        column=r.column or "",
        value=r.value or "",
        dispute=r.dispute,
        order=r.order,
    )


@dataclass
class PrepareOutcome:
    rebuilt: bool
    scope: int | None = None  # disputes a build of what changed rebuilt (None: all of them)
    payloads: int = 0
    incomplete: int = 0
    conflicts: list[Reject] = field(default_factory=list)
    unlisted_disputes: list[Reject] = field(default_factory=list)
    unjoined_charges: list[UnjoinedCharges] = field(default_factory=list)
    file_issues: list[FileIssue] = field(default_factory=list)
    files_added: int = 0  # (dispute, file) pairs registered
    evidence_read: int = 0  # evidence files of new content taken in (each counted once)
    evidence_repeated: int = 0  # matched files whose content was taken in before (copies)
    summaries_added: int = 0
    not_moved: list[tuple[str, str]] = field(default_factory=list)  # (file, why it stayed)
    retention: RetentionOutcome | None = None  # what [retention] removed (or would)
    pdf_problems: list[Problem] = field(default_factory=list)  # PDFs not made, over a limit

    def build_problems(self) -> list[Problem]:
        """Found by building payloads from every record: kept until the next build."""
        out = [reject_problem(ProblemKind.ROW_NOT_USED, r) for r in self.conflicts]
        out += [reject_problem(ProblemKind.UNLISTED_DISPUTE, r) for r in self.unlisted_disputes]
        return out + [
            reject_problem(
                ProblemKind.CHARGES_WITHOUT_ORDER
                if u.none_join
                else ProblemKind.CHARGES_OUTSIDE_ORDERS,
                u.line,
            )
            for u in self.unjoined_charges
        ]

    def problems(self) -> list[Problem]:
        """This run's own findings about the files in the inbox now (kept ones come from the
        state: see StateStore.open_problems)."""
        out = [i.problem() for i in self.file_issues if not i.dispute] + self.pdf_problems
        out += [
            Problem(ProblemKind.FILE_LEFT_IN_INBOX, path, why, file=path)
            for path, why in self.not_moved
        ]
        return out


BUILD_SOURCE = "(build)"


def held_orders(open_problems: list[dict[str, Any]]) -> dict[str, str]:
    """{order number: why its dispute is held}: orders with a row that was not used (kept
    until a corrected file of that name is read)."""
    out: dict[str, str] = {}
    for p in open_problems:
        order = p.get("order")
        if p.get("kind") != ProblemKind.ROW_NOT_USED or not order or order in out:
            continue
        where = f"{p['file']}" + (f" [{p['sheet']}]" if p.get("sheet") else "")
        cell = f" row {p['row']}, column '{p['column']}'" if p.get("row") else ""
        value = f" = {p['value']!r}" if p.get("value") else ""
        out[str(order)] = (
            f"held: {where}{cell}{value} was not used ({p['what']}), so the order would go out "
            f"incomplete; fix it and drop {p['file']} again (or set [evidence] "
            "send_partial_orders = true to send it as it is)"
        )
    return out


def refused_rows(open_problems: list[dict[str, Any]], known: set[str]) -> dict[str, str]:
    """{dispute id, and its order number: the refused row that named it} for disputes no list
    gave: a file named for one says its row was refused, not "did you mean" another."""
    out: dict[str, str] = {}
    for p in open_problems:
        pid = str(p.get("dispute") or "")
        if p.get("kind") != ProblemKind.ROW_NOT_USED or not pid or pid in known:
            continue
        where = f"{p['file']}" + (f" [{p['sheet']}]" if p.get("sheet") else "")
        cell = f" row {p['row']}, column '{p['column']}'" if p.get("row") else ""
        value = f" = {p['value']!r}" if p.get("value") else ""
        line = f"{where}{cell}{value}: {p['what']}"
        out.setdefault(pid, line)
        if p.get("order"):
            out.setdefault(str(p["order"]), line)
    return out


def ingest_inbox_step(store: BuildParts, opts: RunOptions, run_id: str) -> IngestOutcome:
    """Read every new, settled spreadsheet; each file's records land in one transaction, then
    the file is archived. Files seen before (same content) are archived without re-reading."""
    out = IngestOutcome()
    mover = Mover(opts.inbox, run_id, enabled=opts.archive)
    out.folder_problems = mover.broken
    sheets, evidence, out.skipped = scan_inbox(opts.inbox)
    for path in sheets:
        label = names.label(path, opts.inbox)
        try:
            if not is_settled(path, opts.settle_seconds):
                out.waiting_files.append(label)
                continue
            before = path.stat()
            sha = file_sha256(path)
        except OSError as exc:  # unreadable here: left where it is, the rest goes on
            out.skipped.append((label, unreadable_reason(exc)))
            continue
        if store.records.is_ingested(sha, opts.ingest_inputs()):
            out.repeated_files += 1
            mover.archive(path)
            continue
        tables, rejects, summaries = ingest_file(
            path, label, opts.mappings, opts.max_file_bytes, opts.dayfirst, opts.zone
        )
        after = path.stat()
        if (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
            out.waiting_files.append(label)  # written to while we read it: read it whole next run
            continue
        out.rejects.extend(rejects)
        out.summaries.extend(summaries)
        kept = [asdict(reject_problem(_reject_kind(r, bool(tables)), r)) for r in rejects]
        # kept until a file of this name is read again
        store.runs.replace_problems(label, kept, run_id)
        if not tables:
            mover.reject(path, "\n".join(r.line() for r in rejects) or "no recognised table")
            continue
        records: dict[str, list[pd.DataFrame]] = {}
        for kind, frame in tables:
            records.setdefault(kind, []).append(frame)
        store.records.record_ingest(
            sha,
            label,
            run_id,
            {k: pd.concat(v, ignore_index=True) for k, v in records.items()},
            [s.__dict__ for s in summaries],
            opts.ingest_inputs(),
        )
        out.new_files += 1
        mover.archive(path)
    for p in evidence:
        try:
            settled = is_settled(p, opts.settle_seconds)
        except OSError as exc:
            out.skipped.append((names.label(p, opts.inbox), unreadable_reason(exc)))
            continue
        if settled:
            out.evidence_paths.append(p)
        else:
            out.waiting_files.append(names.label(p, opts.inbox))
    out.not_moved = mover.not_moved
    return out


def _reject_kind(r: Reject, file_has_tables: bool) -> ProblemKind:
    """A whole sheet with no table in a workbook whose other sheets were read ("Read me",
    "Pivot") is information; a file with no table at all, or a bad row, needs a person."""
    whole_sheet = r.sheet and r.row is None and r.reason.startswith("no recognised table")
    if r.row is None and r.reason.startswith(NEAR_HEADER):
        return ProblemKind.COLUMN_NOT_READ
    if r.row is None and r.reason.startswith(READ_AS):
        return ProblemKind.LAYOUT_CHOSEN
    if r.row is None and r.reason.startswith(INCOMPLETE_EXPORT):
        return ProblemKind.EXPORT_INCOMPLETE
    if r.row is None and not file_has_tables:  # the whole file refused: no "other rows" used
        return ProblemKind.FILE_NOT_USED
    return (
        ProblemKind.SHEET_WITHOUT_TABLE
        if file_has_tables and whole_sheet
        else ProblemKind.ROW_NOT_USED
    )


class Mover:
    """Archives and rejects inbox files; a pipeline folder that is a link or a file is never
    used (checked once up front and again at every move): the file stays where it is, and
    the reason is kept for the report."""

    def __init__(self, inbox: Path, run_id: str, *, enabled: bool = True) -> None:
        self.inbox, self.run_id, self.enabled = inbox, run_id, enabled
        self.broken = InboxLayout.at(inbox).folder_problems() if enabled else {}
        self.not_moved: list[tuple[str, str]] = []

    def archive(self, path: Path) -> None:
        self._move(path, ARCHIVE, lambda: archive(self.inbox, path, self.run_id))

    def reject(self, path: Path, reason: str) -> None:
        self._move(path, REJECTED, lambda: reject(self.inbox, path, reason))

    def _move(self, path: Path, folder: str, move: Callable[[], Path]) -> None:
        if not self.enabled:
            return
        if folder in self.broken:
            self.not_moved.append((names.label(path, self.inbox), self.broken[folder]))
            return
        try:
            move()
        except (UnsafeFolder, OSError) as exc:
            why = (
                str(exc) if isinstance(exc, UnsafeFolder) else f"could not move it ({exc.strerror})"
            )
            self.not_moved.append((names.label(path, self.inbox), why))


def prepare_step(
    store: BuildParts, opts: RunOptions, ingest: IngestOutcome, run_id: str, *, rebuild: bool
) -> PrepareOutcome:
    """Rebuild payloads from all records (when anything new arrived) and register evidence files.

    A dry run calls this on a throwaway copy of the state, so it is the very same code."""
    out = PrepareOutcome(rebuilt=rebuild)
    records = _build(store, opts, out, run_id) if rebuild else None
    store.disputes.expire_incomplete(now_iso())
    store.disputes.expire_pending(now_iso())
    table = store.reports.dispute_rows()
    orders = dict(zip(table["provider_dispute_id"], table["order_number"].fillna(""), strict=True))
    matches, out.file_issues = match_evidence_files(
        ingest.evidence_paths,
        opts.inbox,
        orders,
        read=_reader(opts) if opts.read_limits is not None else None,
        tracking=lambda: tracking_numbers(store),
        refused=refused_rows(store.runs.open_problems(), set(orders)),
        sku_owners=lambda sku: sku_disputes(store, orders, sku),
    )
    mover = Mover(opts.inbox, run_id, enabled=opts.archive)
    for issue in out.file_issues:  # a file that names a dispute but fails its checks
        if issue.dispute:
            mover.reject(issue.path or opts.inbox / issue.label, issue.reason)
            store.runs.replace_problems(issue.label, [asdict(issue.problem())], run_id)
    try:
        blob_dir = opts.blob_dir or safe_folder(opts.inbox, PRIVATE, "blobs", mode=PRIVATE_DIR)
    except UnsafeFolder as exc:  # nowhere safe to keep what we upload from: take nothing
        out.file_issues += [
            FileIssue(f.label, f"not taken: {exc}") for fs in matches.values() for f in fs
        ]
        out.not_moved = mover.not_moved
        return out
    rows = _file_rows(matches, blob_dir)
    out.evidence_read, out.evidence_repeated = _count_read(matches, store)
    reader = _reader(opts) if opts.read_limits is not None else None
    shop = take_store_documents(
        store, opts.inbox, blob_dir, reader, opts.settle_seconds, disputes=orders
    )
    out.file_issues += shop.issues
    out.evidence_read += shop.new_versions
    out.files_added = store.disputes.sync_files(rows + shop.rows)
    if opts.summary_pdf or opts.packet.upload == "packet":
        made = refresh_generated(store, blob_dir, opts.packet, records, opts.inbox)
        out.summaries_added, out.pdf_problems = made.added, made.problems
    # what is left unmatched stays (its dispute may arrive later); remember it was considered
    matched = {f.path for files in matches.values() for f in files}
    store.runs.mark_evidence_seen(
        [
            *(
                signature(opts.inbox, p)
                for p in ingest.evidence_paths
                if p not in matched and p.exists()
            ),  # (a rejected one has moved)
            *shop.seen,  # the store's documents stay: seen, not new, until changed
        ]
    )
    notes: dict[str, list[dict[str, Any]]] = {}
    for pid, files in matches.items():
        for f in files:  # a good file replaces a bad one; how it was matched, how it was read
            notes[f.label] = [asdict(p) for p in file_notes(pid, f)]
    store.runs.replace_problems_of(notes, run_id)  # one transaction for every file's notes
    for files in matches.values():
        for f in files:
            if f.path.exists():  # (a product photo goes to several disputes: moved once)
                mover.archive(f.path)
    out.not_moved = mover.not_moved
    return out


def _build(
    store: BuildParts, opts: RunOptions, out: PrepareOutcome, run_id: str
) -> dict[str, pd.DataFrame] | None:
    """Build the payloads whose inputs changed since the last build (all of them when it
    cannot tell: engine/prepare/rebuild.py) and keep them; returns the records read for a full one."""
    held = held_orders(store.runs.open_problems())
    scope = changed_scope(store, opts.build_inputs(), held)
    store.runs.set_meta(BUILT_HELD, "")  # until this build is kept whole
    records = store.records.load_records() if scope is None else scoped_records(store, scope)
    built: BuildResult = build_evidence(
        records,
        opts.merchant,
        held,
        send_partial=opts.send_partial,
        merchant_country=opts.merchant_country,
        unclaimed=None if scope is None else unclaimed_orders(store),
    )
    out.scope = None if scope is None else len(scope.disputes)
    out.payloads, out.incomplete = len(built.payloads), len(built.incomplete)
    out.conflicts, out.unlisted_disputes = built.conflicts, built.unlisted_disputes
    out.unjoined_charges = built.unjoined_charges
    store.disputes.sync_disputes(built.payloads, built.incomplete, opts.build_inputs())
    keep_ce3(store, scope, built.ce3)
    found = [asdict(p) for p in out.build_problems()]
    store.runs.replace_problems(
        BUILD_SOURCE, keep_build_problems(store, scope, found, BUILD_SOURCE), run_id
    )
    store.runs.set_meta(BUILT_HELD, held_digest(held))
    return records if scope is None else None


def _count_read(matches: dict[str, list[EvidenceFile]], store: BuildParts) -> tuple[int, int]:
    """(new, already seen) among the matched files: a copy under another name, of a file read
    before or in this run, is used but its content is not new."""
    contents = {f.path: f.sha256 for files in matches.values() for f in files}
    new = set(contents.values()) - store.disputes.evidence_hashes(set(contents.values()))
    return len(new), len(contents) - len(new)


def _file_rows(matches: dict[str, list[EvidenceFile]], blob_dir: Path) -> list[dict[str, Any]]:
    """The evidence_files rows of the matched files, each kept as a blob first."""
    return [
        {
            "provider_dispute_id": pid,
            "sha256": f.sha256,
            "file_name": upload_name(names.readable(f.path.name)),
            "size": f.size,
            "mime": f.mime,
            "path": str(store_blob(blob_dir, f.path, f.sha256)),
            "kind": f.facts.kind if f.facts else kind_of(f.path.name),
            "matched": f.matched,
        }
        for pid, files in matches.items()
        for f in files
    ]


def file_notes(pid: str, f: EvidenceFile) -> list[Problem]:
    """What the report says of a matched file: matched by its text (not its name); not read
    (over its reading budget, or an image with no Tesseract here)."""
    out = []
    if f.matched != "name":
        what = f"matched to {pid}: its text {f.matched.removeprefix('content: ')}"
        out.append(
            Problem(
                ProblemKind.EVIDENCE_MATCHED_BY_CONTENT, f.label, what, file=f.label, dispute=pid
            )
        )
    # over its budget, or a scan with no OCR here: one line. A damaged PDF is sent as before
    # (its facts say why it was not read; the case quotes nothing from it).
    if f.facts is not None and f.facts.read in ("timeout", "no_ocr"):
        out.append(
            Problem(ProblemKind.DOCUMENT_NOT_READ, f.label, f.facts.note, file=f.label, dispute=pid)
        )
    return out


def documents_folder(inbox: Path) -> Path:
    """Where what was read from each document is kept, by content hash (read once, ever)."""
    return safe_folder(inbox, PRIVATE, "documents", mode=PRIVATE_DIR)


def _reader(opts: RunOptions) -> Callable[[list[EvidenceFile]], dict[str, DocumentFacts]]:
    limits = opts.read_limits or ReadLimits()

    def read(files: list[EvidenceFile]) -> dict[str, DocumentFacts]:
        try:
            cache: Path | None = documents_folder(opts.inbox)
        except UnsafeFolder:
            cache = None  # read again next run: slower, never wrong
        todo = [
            ToRead(f.path, upload_name(names.readable(f.path.name)), f.mime, f.sha256)
            for f in files
        ]
        return read_documents(todo, limits, cache)

    return read


def sku_disputes(store: BuildParts, orders: dict[str, str], sku: str) -> set[str]:
    """The disputes (of `orders`: dispute -> order number) whose order has a line of `sku`."""
    numbers = store.scoped.keys_where(
        "orders", "order_number", "sku", {sku, sku.upper(), sku.lower()}
    )
    return {pid for pid, order in orders.items() if order and order in numbers}


def tracking_numbers(store: BuildParts) -> dict[str, set[str]]:
    """{tracking number (upper case): the disputes whose evidence names it}."""
    out: dict[str, set[str]] = {}
    for pid, facts in facts_of(store, store.disputes.payloads()).items():
        for number in facts.tracking_numbers:
            out.setdefault(number.strip().upper(), set()).add(pid)
    return out


def dispute_documents(store: BuildParts, inbox: Path) -> dict[str, list[DocumentFacts]]:
    """{dispute: the DocumentFacts of each of its evidence files} (our own generated PDFs left
    out), as read when the file was matched; a file not read is there with read="not_read"
    and its kind. One reading for the case, the letter and the report (engine/prepare/case.py)."""
    return case_documents(store, inbox)


def is_summary(pid: str, file_name: str) -> bool:
    """A generated PDF of ours: the evidence summary or the packet, any version."""
    return file_name.endswith(".pdf") and (
        file_name.startswith(f"{pid}-evidence-summary")
        or file_name.startswith(f"{pid}-evidence-packet")
    )
