"""The case each dispute makes, as the report shows it: its Visa CE 3.0 verdict (kept from the
last build, which alone sees the whole history), whether its letter makes any claim, and the
fight-or-accept advice. Columns for the dispute table and the lines a person reads about them."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from datetime import date
from pathlib import Path
from typing import Protocol

import pandas as pd

from dispute_evidence import clock
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.documents.kinds import kind_of
from dispute_evidence.documents.reading import facts_from_cache
from dispute_evidence.engine.prepare.kept_facts import facts_lookup, facts_reader
from dispute_evidence.engine.prepare.stances import chosen, opened_at_api, with_choices
from dispute_evidence.evidence.advice import OwnOutcomes, advise, unknown_amount_words
from dispute_evidence.evidence.case_build import build_case
from dispute_evidence.evidence.case_record import CaseFacts
from dispute_evidence.evidence.ce3 import Ce3, ce3_summary
from dispute_evidence.evidence.dispute_facts import DisputeFacts
from dispute_evidence.evidence.letter import letter_for
from dispute_evidence.evidence.views import DisputeView
from dispute_evidence.inbox import PRIVATE, PRIVATE_DIR, UnsafeFolder, safe_folder
from dispute_evidence.policies import AdvicePolicy, outcome
from dispute_evidence.problems import Problem, ProblemKind
from dispute_evidence.state.holders import HasDisputes, HasKept, HasRecords, HasReports, HasRuns
from dispute_evidence.states import HELD, HELD_UNKNOWN, AdviceKind, AdviceLine


class CaseParts(HasDisputes, HasKept, HasRecords, HasReports, HasRuns, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


def api_views(store: CaseParts, within: Iterable[str] | None = None) -> dict[str, DisputeView]:
    """The API's view of each dispute compared so far (the case's `api`); `within`: of these
    disputes only (a report's open ones, not the year's)."""
    return {
        pid: DisputeView(v.reason, v.amount, v.currency, "", v.opened_on)
        for pid, v in store.kept.api_views(None if within is None else set(within)).items()
    }


NO_CLAIMS = "no claims: nothing in your exports answers this dispute's reason"


def _kept_ce3(store: CaseParts) -> dict[str, Ce3]:
    return {
        pid: Ce3(
            v.qualifies,
            "" if v.qualifies else v.text.removeprefix("does not qualify: "),
            (),
            v.with_ip_or_device,
        )
        for pid, v in store.kept.ce3_verdicts().items()
    }


def case_documents(
    store: CaseParts, inbox: Path | None = None, pids: Collection[str] | None = None
) -> dict[str, list[DocumentFacts]]:
    """{dispute: its evidence documents}: what was read from each (kept by content hash in the
    inbox's documents folder), else its name, content hash and kind (a file registered before
    kinds were kept is judged by its name). The verdict, letter and data sheet read these.
    `pids`: only these disputes' (each kept reading is a file to open)."""
    cache, rows = _documents_cache(inbox), store.disputes.evidence_documents(pids)
    return {pid: _documents(cache, files) for pid, files in rows.items()}


CaseReader = Callable[[str, bytes], CaseFacts]  # (dispute, its payload) -> its case


def case_reader(
    store: CaseParts, inbox: Path | None = None, within: Collection[str] | None = None
) -> CaseReader:
    """The one way a dispute's case is built, for the report, `status`, the review hold and the
    alerts alike: its payload and its documents with the facts read from them (kept in
    `inbox`'s documents folder; without an inbox, or unread, a document counts by its kind).
    `within`: the disputes it will be asked about (their files are read at once)."""
    read, facts = documents_reader(store, inbox, within), facts_reader(store, within)
    picks = chosen(store, within)  # the analyst's stance on messages not read with certainty
    opened = opened_at_api(store, within)

    def case(pid: str, payload: bytes) -> CaseFacts:
        told = with_choices(facts(pid, payload), picks.get(pid, ()), opened.get(pid, ""))
        return build_case(told, read(pid))

    return case


def documents_reader(
    store: CaseParts, inbox: Path | None = None, within: Collection[str] | None = None
) -> Callable[[str], list[DocumentFacts]]:
    """case_documents of one dispute at a time, read when asked (a report reads only the
    disputes it shows, not every one the state ever had; the files' rows are loaded at the
    first ask, so a review with nothing to look at loads none). `within`: the disputes whose
    files' rows are loaded then (else every dispute's); one outside it is read on its own."""
    cache = _documents_cache(inbox)
    rows: dict[str, list[tuple[str, str, str]]] | None = None
    scope = None if within is None else frozenset(within)

    def read(pid: str) -> list[DocumentFacts]:
        nonlocal rows
        if scope is not None and pid not in scope:
            return _documents(cache, store.disputes.evidence_documents([pid]).get(pid, []))
        if rows is None:
            rows = store.disputes.evidence_documents(scope)
        return _documents(cache, rows.get(pid, []))

    return read


def _documents(cache: Path | None, files: list[tuple[str, str, str]]) -> list[DocumentFacts]:
    """A dispute's documents from its files (name, sha256, kind): each as read (kept in the
    documents folder `cache`), else by its name, content hash and kind."""
    return [
        (facts_from_cache(cache, sha, name) if cache else None)
        or DocumentFacts(name, sha, kind or kind_of(name), "not_read")
        for name, sha, kind in files
    ]


def _documents_cache(inbox: Path | None) -> Path | None:
    if inbox is None:
        return None
    try:
        return safe_folder(inbox, PRIVATE, "documents", mode=PRIVATE_DIR)
    except UnsafeFolder:  # unusable: documents count by kind only
        return None


def add_case_columns(
    table: pd.DataFrame,
    store: CaseParts,
    policy: AdvicePolicy | None = None,
    *,
    payloads: dict[str, bytes] | None = None,
    cases: dict[str, CaseFacts] | None = None,
) -> None:
    """Columns visa_ce3 ("qualifies: prior orders …" or "does not qualify: why", fraud only),
    letter (how many claims the rebuttal letter makes, or that it makes none) and advice
    (fight or accept, and why; engine/reporting/report.py's next step says a held one's advice)."""
    kept = store.kept.ce3_verdicts()
    table["visa_ce3"] = table["provider_dispute_id"].map(
        lambda p: kept[p].text if p in kept else ""
    )
    qualifies = {pid for pid, v in kept.items() if v.qualifies}
    payloads = store.disputes.payloads() if payloads is None else payloads
    if cases is None:
        build = case_reader(store)
        cases = {p: build(p, b) for p, b in payloads.items()}
    letters = []
    for pid in table["provider_dispute_id"]:
        case = cases.get(pid)
        if case is None:
            letters.append("")
            continue
        letter = letter_for(case)
        n = len(letter.points)  # an attachment list is not a claim
        letters.append(f"{n} claim{'s' * (n != 1)} ({letter.family})" if n else NO_CLAIMS)
    table["letter"] = letters
    views = api_views(store, table["provider_dispute_id"])
    facts = facts_lookup(store, payloads)
    _add_advice(table, facts, policy or AdvicePolicy(), cases, views, qualifies)


OPEN = ("pending", "submitted", "incomplete", "awaiting_approval")


def _add_advice(
    table: pd.DataFrame,
    facts: Callable[[str], DisputeFacts | None],
    policy: AdvicePolicy,
    cases: dict[str, CaseFacts],
    views: dict[str, DisputeView],
    qualifies: Collection[str],
) -> None:
    reasons = (
        table["reason"].fillna("").astype(str)
        if "reason" in table
        else pd.Series("", index=table.index)
    )
    complete = table["completeness"] == "complete"
    results = (
        table["api_status"].map(outcome)
        if "api_status" in table
        else pd.Series("open", index=table.index)
    )
    decided = results.isin(("won", "lost"))
    own = OwnOutcomes(
        zip(reasons[decided], complete[decided], results[decided] == "won", strict=True)
    )
    # with a threshold, only the disputed amount decides (as held_by_advice holds them)
    amounts = _amounts(table, facts, order_total=policy.hold_under_amount is None)
    opened = {pid: v.opened_on for pid, v in views.items()}
    texts = []
    for i, (pid, status) in enumerate(
        zip(table["provider_dispute_id"], table["status"], strict=True)
    ):
        if status not in OPEN:
            texts.append("")
            continue
        ce3 = pid in qualifies  # for Visa CE 3.0 (kept from the last build)
        case = cases.get(pid)
        concede = case.accept_because if case else ()
        advice = advise(
            reasons.iat[i],
            bool(complete.iat[i]),
            amounts.get(pid),
            own,
            policy,
            ce3,
            concede,
            days_open(opened.get(pid)),
        )
        texts.append(advice.text)
    table["advice"] = texts


def days_open(opened_on: str | None) -> int | None:
    """Days since the dispute opened (the API's initiated_at), None when not known."""
    if not opened_on:
        return None
    return (clock.now().date() - date.fromisoformat(opened_on)).days


def _amounts(
    table: pd.DataFrame, facts: Callable[[str], DisputeFacts | None], *, order_total: bool = True
) -> dict[str, float]:
    """The disputed amount: the disputes list's, else the facts' disputed amount, else (with
    `order_total`) the order's total; absent when none is known."""
    listed = pd.to_numeric(table["amount"], errors="coerce") if "amount" in table else None
    out = {}
    for i, pid in enumerate(table["provider_dispute_id"]):
        value = listed.iat[i] if listed is not None else float("nan")
        if value != value and (known := facts(pid)) is not None:  # NaN: not in the list
            total = known.order.order_total if order_total else None
            value = known.claim.amount if known.claim.amount is not None else total
        if value is not None and value == value:
            out[str(pid)] = float(value)
    return out


def held_by_advice(store: CaseParts, policy: AdvicePolicy) -> dict[str, str]:
    """Disputes to hold back from sending: under the merchant's fight threshold."""
    if policy.hold_under_amount is None:
        return {}
    table = store.reports.dispute_rows()
    listed = store.records.load_records(["disputes"])["disputes"].drop_duplicates(
        "provider_dispute_id", keep="last"
    )
    table = table.merge(
        listed[["provider_dispute_id", "amount"]], on="provider_dispute_id", how="left"
    )
    payloads = store.disputes.payloads()
    # the threshold weighs the disputed amount only: an order's total is not what is disputed
    amounts = _amounts(table, facts_lookup(store, payloads), order_total=False)
    limit = policy.hold_under_amount
    held = {
        pid: f"{HELD} ({amount:,.2f} is under {limit:,.2f})"
        for pid, amount in amounts.items()
        if amount < limit
    }
    unknown = [p for p in table["provider_dispute_id"] if p in payloads and p not in amounts]
    return held | {p: f"{HELD_UNKNOWN} ({unknown_amount_words(limit)})" for p in unknown}


def pending_by_threshold(store: CaseParts, held: Mapping[str, str]) -> tuple[int, int]:
    """(disputes left unsent by `hold_under_amount`, of which with an unknown amount): skipped
    by the merchant's rule, not failed; an unknown amount waits for a person to add it.
    `held`: what the delivery plan held back (engine/review/plan.py)."""
    if not held:
        return 0, 0
    table = store.reports.dispute_rows()
    pending = table.loc[table["status"] == "pending", "provider_dispute_id"].astype(str)
    mine = [held[p] for p in pending if p in held]
    unknown = sum(AdviceLine.parse(why).kind is AdviceKind.HELD_UNKNOWN for why in mine)
    return len(mine), unknown


def case_problems(table: pd.DataFrame, store: CaseParts) -> list[Problem]:
    """The CE 3.0 summary line (the share of fraud disputes that could have qualified), a line
    per dispute held under the fight threshold, and per open dispute whose letter makes no
    claim."""
    listed = set(table["provider_dispute_id"])
    verdicts = {p: v for p, v in _kept_ce3(store).items() if p in listed}
    line = ce3_summary(verdicts)
    out = [Problem(ProblemKind.CASE_CE3, "fraud disputes", line)] if line else []
    if "advice" in table:
        held = table["advice"].map(lambda a: AdviceLine.parse(a).held).astype(bool)
        for r in table.loc[held].itertuples(index=False):
            pid = str(r.provider_dispute_id)
            out.append(Problem(ProblemKind.CASE_HELD, pid, str(r.advice), dispute=pid))
    open_ = table["status"].isin(("pending", "submitted"))
    if "letter" in table:
        for pid in table.loc[open_ & (table["letter"] == NO_CLAIMS), "provider_dispute_id"]:
            out.append(Problem(ProblemKind.CASE_NO_CLAIMS, str(pid), NO_CLAIMS, dispute=str(pid)))
    return out
