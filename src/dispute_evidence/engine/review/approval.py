"""Review before sending: which disputes wait for a person's approval, and approving them.

`[review] hold` says what waits: nothing (the default), disputes whose evidence misses what
their reason needs, or all. A held dispute is *awaiting_approval* (state/lifecycle.py): the work
queue leaves it out, so neither its evidence nor its files go. An approval covers one version
of the evidence: the hash of its payload and of its files' contents (`evidence_hash`; the
generated summary PDF is made from those, so it is left out). Evidence that changes after
approval is held again. Approvals come from `dispute-evidence approve`, from an `Approve`
column dropped back into the inbox (table kind "approvals", read like any sheet), or from the
deadline sweep, which approves complete evidence nobody acted on `send_before_deadline_hours`
before its deadline, never after it, and only a deadline the API confirmed (read back): a
sheet's deadline alone never sends anything unapproved.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from dispute_evidence import clock
from dispute_evidence.engine.prepare.case import CaseReader, case_reader
from dispute_evidence.engine.review.log import approved_words
from dispute_evidence.engine.review.preview import write_dry_run_preview
from dispute_evidence.evidence.case_checks import DECIDES
from dispute_evidence.evidence.case_record import CaseFacts
from dispute_evidence.evidence.completeness import assess_case
from dispute_evidence.evidence.letter import letter_for
from dispute_evidence.policies import ReviewPolicy
from dispute_evidence.problems import Problem, ProblemKind
from dispute_evidence.state.approvals import SECOND_WANTED
from dispute_evidence.state.holders import (
    HasApprovals,
    HasDisputes,
    HasGenerated,
    HasKept,
    HasRecords,
    HasReports,
    HasRuns,
    HasTransitions,
)
from dispute_evidence.state.lifecycle import (
    APPROVAL_RELEASES,
    OPEN_FILE,
    DisputeStatus,
    IllegalTransition,
)
from dispute_evidence.state.ports import ReviewLedger
from dispute_evidence.states import ADVICE_ACCEPT, Hold, HoldKind


class ApprovalParts(
    HasApprovals,
    HasDisputes,
    HasGenerated,
    HasKept,
    HasRecords,
    HasReports,
    HasRuns,
    HasTransitions,
    Protocol,
):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


D = DisputeStatus
ANYONE = ReviewPolicy()  # no approvers list, no second approver
SWEEP = "deadline sweep"
NO_CLAIM_HELD = (
    "the letter would make no claim: nothing in your data answers the dispute's reason; add what "
    "'What to add' names, or approve it to send it as it is ([review] hold_without_claim = false "
    "sends such disputes)"
)
ALREADY = "already approved"  # another approval of the same version won the race
APPROVALS_SEQ = "approvals_seq"  # meta: the last ingest whose Approve rows were applied
YES = frozenset({"yes", "y", "x", "approve", "approved", "ok", "true", "1", "✓", "✔"})
NO = frozenset({"", "no", "n", "false", "0", "-"})
PREVIEW = "waiting-for-approval"  # the report's folder of what held disputes would send
UNCONFIRMED = (
    "the API has not confirmed its deadline: the sweep trusts only a deadline read back from "
    "the API, and the API names a dispute only once evidence has been sent to it"
)


@dataclass
class ReviewOutcome:
    held: list[str] = field(default_factory=list)
    swept: list[str] = field(default_factory=list)  # approved by the sweep this run
    sweep_at: dict[str, str] = field(default_factory=dict)  # held and complete: sent from then
    sweep_on: bool = False  # the deadline sweep is configured (incomplete evidence: never swept)
    sweep_waits: list[str] = field(default_factory=list)  # complete, deadline not confirmed
    from_sheets: list[str] = field(default_factory=list)  # approved by an Approve column
    problems: list[Problem] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # the policy differs from the state's


@dataclass(frozen=True)
class Candidate:
    """A dispute with evidence that is, or could be, waiting to be sent."""

    pid: str
    status: str
    payload: bytes
    payload_hash: str
    submitted_hash: str | None
    approved_hash: str | None
    due: datetime | None
    files: tuple[tuple[str, str, str, str], ...]  # (sha256, name, status, kind); summaries too
    confirmed_due: datetime | None = None  # the deadline the API said when read back

    @property
    def evidence_hash(self) -> str:
        own = sorted(sha for sha, name, *_ in self.files if not _is_summary(self.pid, name))
        return hashlib.sha256("\n".join([self.payload_hash, *own]).encode()).hexdigest()

    @property
    def version(self) -> str:
        """The evidence version a person sees in disputes.xlsx ("v" keeps it text in Excel)."""
        return "v" + self.evidence_hash[:12]

    @property
    def has_work(self) -> bool:
        """Something would be sent now: its evidence, or files not yet uploaded."""
        unsent = self.payload_hash != self.submitted_hash
        return unsent or any(status in OPEN_FILE for _, _, status, _ in self.files)

    def case(self, cases: CaseReader) -> CaseFacts:
        """The dispute's case, built as the report builds it (engine/prepare/case.py's case_reader:
        its documents with the facts read from them)."""
        return cases(self.pid, self.payload)

    def complete(self, cases: CaseReader) -> bool:
        return assess_case(self.case(cases)).complete

    def concedes(self, cases: CaseReader, no_claim: bool = False) -> str:
        """Why the merchant's own data concedes the claim ("" when it does not): held as
        "advice: accept" until a person approves fighting it. With `no_claim`, a letter that
        would make no claim is held so too (nothing answers the reason: sending it argues
        nothing and costs the dispute's one response)."""
        case = self.case(cases)
        if because := case.accept_because:
            return f"{ADVICE_ACCEPT} ({'; '.join(because)})"
        if no_claim and not letter_for(case).claims:
            return f"{ADVICE_ACCEPT} ({NO_CLAIM_HELD})"
        return ""

    def unconfirmed(self, cases: CaseReader) -> bool:
        """What waits for the analyst (case_checks.py DECIDES: a message's reading, a duplicate's
        other charge, a parcel not delivered): held, never swept, until settled or approved."""
        return any(c.name in DECIDES for c in self.case(cases).contradictions)

    def released_to(self) -> DisputeStatus:
        return D.SUBMITTED if self.payload_hash == self.submitted_hash else D.PENDING


def _is_summary(pid: str, file_name: str) -> bool:
    """A generated PDF of ours (summary or packet): made from the evidence, so not part of it."""
    return file_name.endswith(".pdf") and file_name.startswith(
        (f"{pid}-evidence-summary", f"{pid}-evidence-packet")
    )


def parse_time(value: str | None) -> datetime | None:
    try:
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None
    except ValueError:
        return None
    return when.replace(tzinfo=UTC) if when and when.tzinfo is None else when


def _at(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


# -- the state, as review sees it ------------------------------------------------------
def candidates(
    store: ApprovalParts,
    pids: Iterable[str] | None = None,
    statuses: Iterable[str] = (D.PENDING, D.SUBMITTED, D.AWAITING_APPROVAL),
    *,
    payloads: bool = True,
) -> dict[str, Candidate]:
    """Disputes open to evidence that have a payload (optionally only `pids`); without
    `payloads` their bodies are not read (b"": enough for hashes and versions)."""
    wanted = None if pids is None else set(pids)
    rows, files = store.approvals.review_rows(wanted, statuses, payloads=payloads)
    return {
        r[0]: Candidate(
            r[0],
            r[1],
            bytes(r[2]) if payloads else b"",
            r[3],
            r[4],
            r[5],
            parse_time(r[6]),
            tuple(sorted(files.get(r[0], []))),
            parse_time(r[7]),
        )
        for r in rows
    }


def record_approval(
    store: ReviewLedger, c: Candidate, by: str, source: str = "", who: str | None = None
) -> bool:
    """Approve this version of the dispute's evidence; False when its payload changed since
    it was read (then nothing is recorded). Every approval applied is kept in the log."""
    held = c.status == D.AWAITING_APPROVAL  # then only while it is, and once per version
    done = store.approvals.set_approval(c.pid, c.payload_hash, c.evidence_hash, by, held=held)
    if done:
        store.approvals.log_approval(c.pid, c.evidence_hash, who or by, source or by, applied=True)
    return done


def approved_already(store: ApprovalParts, c: Candidate) -> str | None:
    """Who approved `c`'s version already ("alice (approve command)"), else None."""
    row = store.approvals.approval_of(c.pid, c.payload_hash)
    if row is None or row[0] != c.evidence_hash:
        return None
    return str(row[1] or "someone")


def give_approval(
    store: ApprovalParts, c: Candidate, who: str, source: str, policy: ReviewPolicy
) -> str | None:
    """An approval by `who` (a user name) through `source`, under `[review] approvers` and
    `second_approver_over`. None: applied; otherwise why not (kept in the log either way)."""
    if policy.approvers and who not in policy.approvers:
        why = f"{who} is not one of [review] approvers ({', '.join(policy.approvers)}): not applied"
        store.approvals.log_approval(c.pid, c.evidence_hash, who, source, applied=False, note=why)
        return why
    names = [who]
    if policy.second_approver_over is not None and _over(store, c, policy.second_approver_over):
        names = [w for w in store.approvals.approvers_of(c.pid, c.evidence_hash) if w != who][
            :1
        ] + names
        if len(names) < 2:
            store.approvals.log_approval(
                c.pid, c.evidence_hash, who, source, applied=False, note=SECOND_WANTED
            )
            return (
                f"over {policy.second_approver_over:,.2f} (or its amount is unknown): "
                f"{c.version} needs a second approver, not {who}; approved by {who} so far"
            )
    if not record_approval(store, c, f"{' and '.join(names)} ({source})", source, who=who):
        if by := approved_already(store, c):
            return f"{ALREADY} ({c.version}) by {by}: nothing more to do"
        return "its evidence changed while it was read: approve it from the newest report"
    return None


def _over(store: ApprovalParts, c: Candidate, limit: float) -> bool:
    """The disputed amount is above `limit`, or unknown (then two approvers are asked for)."""
    from dispute_evidence.engine.prepare.case import _amounts
    from dispute_evidence.engine.prepare.kept_facts import facts_lookup

    table = pd.DataFrame({"provider_dispute_id": [c.pid]})
    listed = store.records.load_records(["disputes"])["disputes"]
    listed = listed.loc[listed["provider_dispute_id"] == c.pid].tail(1)
    if "amount" in listed:
        table = table.merge(listed[["provider_dispute_id", "amount"]], how="left")
    facts = facts_lookup(store, {c.pid: c.payload} if c.payload else {})
    amount = _amounts(table, facts).get(c.pid)
    return amount is None or amount > limit


# -- the step: hold, release, sweep ----------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    """What a held-or-not decision needs of a dispute's case: its evidence is complete, why
    its own records concede the claim ("advice: accept (…)", "" when they do not), and a
    message's stance waits for the analyst."""

    complete: bool
    accept: str = ""
    confirm: bool = False


Judge = Callable[[Candidate], Verdict]


def review_step(
    store: ApprovalParts,
    policy: ReviewPolicy,
    now: datetime | None = None,
    inbox: Path | None = None,
) -> ReviewOutcome:
    """Apply approvals dropped in the inbox, then hold what the policy holds and release what
    is approved (or no longer held). Runs after the build, before anything is sent. `inbox`:
    whose documents folder holds what was read from each document (the report's verdict)."""
    out = ReviewOutcome(sweep_on=policy.sweep_hours is not None)
    out.from_sheets, out.problems = apply_sheet_approvals(store, policy)
    # every dispute with work is looked at: whatever the policy, one whose own records concede
    # the claim is held as "advice: accept" until a person approves fighting it
    looked = [
        c for c in candidates(store).values() if c.status == D.AWAITING_APPROVAL or c.has_work
    ]
    cases = case_reader(store, inbox, {c.pid for c in looked})  # their documents, not the year's

    def judge(c: Candidate) -> Verdict:
        return Verdict(
            c.complete(cases) if policy.needs_verdict else True,
            c.concedes(cases, policy.hold_no_claim),
            c.unconfirmed(cases),  # a message's stance for the analyst to choose first
        )

    hold_and_release(store, policy, looked, judge, now or clock.now(), out)
    return out


def hold_and_release(
    ledger: ReviewLedger,
    policy: ReviewPolicy,
    looked: Iterable[Candidate],
    judge: Judge,
    now: datetime,
    out: ReviewOutcome,
) -> None:
    """Hold each of `looked` that the policy, its advice or an unconfirmed stance holds, release
    what is approved (this version) or no longer held, let the deadline sweep approve complete
    evidence in its window, and mark past its deadline what nobody approved in time."""
    for c in looked:
        v = judge(c)
        held = policy.holds(v.complete) or v.accept or v.confirm
        if not held or c.approved_hash == c.evidence_hash:
            _release(ledger, c)
            continue
        sweep = None if v.accept or v.confirm else sweep_time(policy, c, v.complete, out)
        in_window = (
            sweep is not None and c.confirmed_due is not None and sweep <= now < c.confirmed_due
        )
        if in_window and record_approval(ledger, c, SWEEP):
            out.swept.append(c.pid)
            _release(ledger, c)
            continue
        if c.due is not None and c.due <= now and c.status != D.SUBMITTED:
            held = "nobody approved it, so " if c.status == D.AWAITING_APPROVAL else ""
            ledger.transitions.mark_past_due(
                c.pid, f"response was due by {_at(c.due)}; {held}nothing was sent"
            )
            continue
        if c.status != D.AWAITING_APPROVAL:
            ledger.transitions.mark_awaiting_approval(c.pid, v.accept or None)
        out.held.append(c.pid)
        if sweep is not None:
            out.sweep_at[c.pid] = _at(max(sweep, now))


def sweep_time(
    policy: ReviewPolicy, c: Candidate, complete: bool, out: ReviewOutcome
) -> datetime | None:
    """When the sweep would send this held dispute: only complete evidence, and only from a
    deadline the API confirmed (read back); a sheet's deadline alone never sends anything
    unapproved. A complete dispute without a confirmed deadline is noted in `out`."""
    if not complete or policy.sweep_hours is None:
        return None
    if c.confirmed_due is None:
        out.sweep_waits.append(c.pid)
        return None
    return policy.sweep_from(c.confirmed_due)


def _release(store: ReviewLedger, c: Candidate) -> None:
    if c.status != D.AWAITING_APPROVAL:
        return
    try:
        store.transitions.release_approval(c.pid, c.released_to())
    except IllegalTransition:  # released since it was read: by an approve or a run at once
        if store.approvals.statuses_of([c.pid]).get(c.pid) not in APPROVAL_RELEASES:
            raise


# -- approvals from a sheet --------------------------------------------------------------
def apply_sheet_approvals(
    store: ApprovalParts, policy: ReviewPolicy = ANYONE
) -> tuple[list[str], list[Problem]]:
    """Approve rows read since the last run (an Approve cell of yes, x or approve), each by the
    sheet file's owner; each other value, unknown dispute, missing or changed evidence version,
    or approver the policy refuses is a problem naming the cell."""
    rows = store.records.load_records(["approvals"])["approvals"]
    if rows.empty:
        return [], []
    done = int(store.runs.get_meta(APPROVALS_SEQ) or 0)
    rows = rows.loc[pd.to_numeric(rows["_seq"]) > done]
    if rows.empty:
        return [], []
    known = candidates(store, rows["provider_dispute_id"].astype(str))
    approved, problems = [], []
    for r in rows.to_dict("records"):
        why = _sheet_approval(store, r, known.get(str(r["provider_dispute_id"])), policy)
        if why is None:
            approved.append(str(r["provider_dispute_id"]))
        elif why:
            problems.append(_cell_problem(r, why))
    store.runs.set_meta(APPROVALS_SEQ, str(int(pd.to_numeric(rows["_seq"]).max())))
    return approved, problems


def _sheet_approval(
    store: ApprovalParts, r: dict[str, Any], c: Candidate | None, policy: ReviewPolicy
) -> str | None:
    """None: approved; "": nothing asked; otherwise why the row approved nothing."""
    answer = str(r["approve"]).strip().lower()
    if answer in NO:
        return ""
    if answer not in YES:
        return (
            f"Approve says {str(r['approve'])[:40]!r}: write yes, x or approve (nothing approved)"
        )
    if c is None:
        return (
            f"no dispute {r['provider_dispute_id']} with evidence to send: check the id against "
            "the newest report (nothing approved)"
        )
    version = str(r["evidence_version"] or "").strip()
    if not version:  # a hand-made sheet: it cannot say which evidence its author saw
        return (
            "no Evidence version in this row: an approval covers the evidence a report showed, "
            f"so use the Approve column of the newest report's disputes.xlsx (now {c.version}; "
            "nothing approved)"
        )
    if version != c.version:
        return (
            f"its evidence changed since that report ({version}, now {c.version}): it waits "
            "again; approve it from the newest report"
        )
    who = str(r.get("_owner") or "unknown")
    return give_approval(store, c, who, f"sheet {r['_file']}", policy)


def _cell_problem(r: dict[str, Any], why: str) -> Problem:
    return Problem(
        ProblemKind.APPROVAL_NOT_APPLIED,
        f"{r['_file']} row {r['_row']}",
        why,
        file=str(r["_file"]),
        sheet=str(r["_sheet"] or ""),
        row=int(r["_row"]),
        column="Approve",
        value=str(r["approve"])[:80],
        dispute=str(r["provider_dispute_id"]),
    )


# -- approvals from the command line -----------------------------------------------------
@dataclass
class ApproveResult:
    """What approving recorded (engine/approve.py says what was sent, for each dispute)."""

    approved: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # unknown, or no evidence to approve
    already: list[str] = field(default_factory=list)  # approved by another at the same time
    versions: list[str] = field(default_factory=list)  # the evidence version each approved
    # approved before (by another, or by a run that stopped before it sent: a full disk):
    # released again, so sending it now is still this command's to try
    approved_before: dict[str, str] = field(default_factory=dict)  # {pid: version}


def approve(
    store: ApprovalParts,
    pids: Sequence[str],
    *,
    all_complete: bool = False,
    by: str = "unknown",
    source: str = "approve command",
    policy: ReviewPolicy = ANYONE,
    inbox: Path | None = None,
) -> ApproveResult:
    """Approve these disputes' current evidence (or every held one that is complete) as `by`
    (a user name) through `source`. Any id unknown or without evidence approves nothing at
    all: a typo never approves the rest. An approval the policy does not apply (approvers,
    a second approver) is refused with its reason, and kept in the log. `inbox`: whose
    documents folder holds what was read from each document (for "complete")."""
    out = ApproveResult()
    found = candidates(store)
    statuses = store.approvals.statuses_of(pids)
    for pid in pids:
        if pid not in found:
            status = statuses.get(pid)
            out.refused.append(
                f"{pid}: unknown dispute (not in this state); check the id in the report"
                if status is None
                else f"{pid}: nothing to approve ({_plain(status)})"
            )
    if out.refused:
        return out
    chosen = [found[p] for p in dict.fromkeys(pids)]
    if all_complete:
        cases = case_reader(store, inbox)
        chosen += [
            c
            for c in found.values()
            if c.status == D.AWAITING_APPROVAL
            and c.pid not in pids
            and c.complete(cases)
            and not c.concedes(
                cases, policy.hold_no_claim
            )  # advised accept: fighting it is approved one by one
            and not c.unconfirmed(cases)  # a message's stance to choose: approved one by one
        ]
    for c in chosen:
        if why := give_approval(store, c, by, source, policy):
            if why.startswith(ALREADY):
                out.already.append(f"{c.pid}: {why}")
                _release(store, c)
                out.approved_before[c.pid] = c.version
            else:
                out.refused.append(f"{c.pid}: {why}")
            continue
        _release(store, c)
        out.approved.append(c.pid)
        out.versions.append(c.version)
    return out


def _plain(status: str) -> str:
    from dispute_evidence.reports.wording import STATUS_WORDS

    return STATUS_WORDS.get(status, status)


# -- the report ----------------------------------------------------------------------
def annotate(table: pd.DataFrame, store: ApprovalParts, review: ReviewOutcome | None) -> None:
    """The dispute table's Approve column (empty, for a person to fill in), the evidence
    version it approves, and, for held disputes, when the deadline sweep would send them."""
    found = candidates(store, payloads=False)
    table["approve"] = ""
    approved = approved_words(store)
    table["approved"] = [approved.get(p, "") for p in table["provider_dispute_id"]]
    table["evidence_version"] = [
        found[p].version if p in found else "" for p in table["provider_dispute_id"]
    ]
    held = table.index[table["status"] == D.AWAITING_APPROVAL]  # a few: not every row of the year
    for i in held:
        if not _accept(Hold.parse(table.at[i, "detail"])):
            pid = table.at[i, "provider_dispute_id"]
            table.at[i, "next_step"] = "waiting for your approval" + _sweep_words(pid, review)


def _accept(hold: Hold | None) -> bool:
    """Held as "advice: accept": its own records concede the claim."""
    return hold is not None and hold.kind is HoldKind.ADVICE_ACCEPT


def held_problems(table: pd.DataFrame, review: ReviewOutcome | None) -> list[Problem]:
    """One line per held dispute: what approving it would send, and the sweep if on."""
    held = table.loc[table["status"] == D.AWAITING_APPROVAL]
    out = []
    for r in held.itertuples(index=False):
        files = int(r.files_total - r.files_uploaded)
        what = f"evidence {r.evidence_version} and {files} file(s) wait for your approval"
        if _accept(Hold.parse(r.detail)):
            what = f"{r.detail}: {what} to fight it anyway"
        what += _sweep_words(str(r.provider_dispute_id), review)
        out.append(
            Problem(
                ProblemKind.DISPUTE_AWAITING_APPROVAL,
                str(r.provider_dispute_id),
                what,
                dispute=str(r.provider_dispute_id),
            )
        )
    return out


def _sweep_words(pid: str, review: ReviewOutcome | None) -> str:
    """What the deadline sweep will do with a held dispute, if it is on."""
    if review is None or not review.sweep_on:
        return ""
    if when := review.sweep_at.get(pid):
        return f"; if nobody acts, the deadline sweep sends it from {when}"
    if pid in review.sweep_waits:
        return f"; the deadline sweep does not send it ({UNCONFIRMED})"
    return "; the deadline sweep does not send it (its evidence is incomplete)"


def write_approval_preview(folder: Path, store: ApprovalParts, held: Sequence[str]) -> None:
    """What approving each held dispute would send, as a dry run shows it: payloads/<id>.json,
    file_matches.csv, a copy of each one's summary PDF and its packet (<id>-packet.pdf)."""
    if not held:
        return
    target = folder / PREVIEW
    write_dry_run_preview(target, store, held)
    files = store.reports.file_table()
    mine = files.loc[files["provider_dispute_id"].isin(held) & (files["status"] != "uploaded")]
    for r in mine.itertuples(index=False):
        if _is_summary(str(r.provider_dispute_id), str(r.file_name)) and Path(r.path).is_file():
            shutil.copyfile(r.path, target / str(r.file_name))
    versions = store.generated.generated_versions(held)
    for pid in held:  # the packet: exactly what the reviewer would see
        packet = Path(str((versions.get(pid) or [{}])[-1].get("packet_path") or ""))
        if packet.name and packet.is_file() and not packet.is_symlink():
            shutil.copyfile(packet, target / f"{pid}-packet.pdf")
