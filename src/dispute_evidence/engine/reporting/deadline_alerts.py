"""Alerts before it is too late: a dispute due within `[alerts] alert_hours` that still needs
something (its data, evidence its reason needs, or a person's approval) is at risk.

Each dispute at risk gets an event (`dispute-evidence.dispute.at-risk` on the resource
`dispute-evidence.dispute.<id>`, so automations can act on it), and one message per run lists
them through the notification block the config names (Slack, Teams, a custom webhook,
SendGrid e-mail, ...). Both go through the `AlertSink` the run is handed: flows/alerting.py's
Prefect events and notification blocks, which the CLI and the flows give; this module imports
no Prefect and does no HTTP of its own. Without a sink, each alert is only logged. A dispute is
alerted at most once per UTC day, once it reached someone: the state keeps the day (table
alerts_sent).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Protocol

from dispute_evidence import clock
from dispute_evidence.engine.prepare.case import CaseReader, case_reader
from dispute_evidence.engine.session import AlertSink
from dispute_evidence.errors import DisputeEvidenceError
from dispute_evidence.evidence.completeness import assess_case
from dispute_evidence.policies import AlertPolicy
from dispute_evidence.standing.counts import Standing
from dispute_evidence.state.holders import (
    HasAlerts,
    HasDisputes,
    HasKept,
    HasRecords,
    HasReports,
    HasRuns,
)
from dispute_evidence.state.lifecycle import DisputeStatus


class AlertsParts(HasAlerts, HasDisputes, HasKept, HasRecords, HasReports, HasRuns, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


log = logging.getLogger("dispute_evidence.alerts")
D = DisputeStatus
EVENT = "dispute-evidence.dispute.at-risk"
RESOURCE = "dispute-evidence.dispute."  # + the provider dispute id
WATCHED = (D.PENDING, D.SUBMITTED, D.INCOMPLETE, D.AWAITING_APPROVAL)
NO_SINK = "no alert channel was given to this run (the CLI and the flows give Prefect's)"


class AlertNotSent(DisputeEvidenceError):
    """A sink could not deliver a message: the message says why, in words that never quote the
    service's answer (it can hold the block's resolved URL and its secrets)."""


@dataclass(frozen=True)
class AtRisk:
    pid: str
    order_number: str
    due: datetime
    why: str

    def line(self, now: datetime) -> str:
        hours = max((self.due - now).total_seconds() / 3600, 0)
        due = self.due.strftime("%Y-%m-%d %H:%M UTC")
        return f"{self.pid} (order {self.order_number or '?'}): due {due}, in {hours:.0f} h: {self.why}"


@dataclass
class AlertOutcome:
    alerted: list[str] = field(default_factory=list)  # disputes alerted this run
    events: int = 0
    notified: bool = False
    problem: str | None = None  # why the notification block could not be used
    ratio_alerted: list[str] = field(default_factory=list)  # engine/reporting/standing_alerts.py
    standing: Standing | None = None  # worked out for the ratio alerts: the report reuses it


def at_risk(
    store: AlertsParts, now: datetime, hours: float, inbox: Path | None = None
) -> list[AtRisk]:
    """Disputes due within `hours` (not yet past) that still need something, nearest first;
    their evidence judged as the report judges it (`inbox`: whose documents folder holds what
    was read from each document)."""
    until = now + timedelta(hours=hours)
    cases = case_reader(store, inbox)
    out = []
    for pid, order, status, due_text, payload, detail in store.alerts.watched_deadlines(WATCHED):
        due = _time(due_text)
        if due is None or not now < due <= until:
            continue
        why = _needs(cases, pid, status, payload, detail)
        if why:
            out.append(AtRisk(pid, order or "", due, why))
    return out


def _needs(
    cases: CaseReader, pid: str, status: str, payload: bytes | None, detail: str | None
) -> str:
    """What the dispute still needs, in words ("" when nothing)."""
    if status == D.INCOMPLETE or payload is None:
        return f"waiting for data ({detail})" if detail else "waiting for data"
    if status == D.AWAITING_APPROVAL:
        return "waiting for your approval"
    verdict = assess_case(cases(pid, bytes(payload)))  # the case the report's row reads
    return "" if verdict.complete else f"evidence {verdict.text}; add: {verdict.what_to_add}"


def _time(value: str | None) -> datetime | None:
    try:
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def send_alerts(
    store: AlertsParts,
    policy: AlertPolicy,
    run_id: str,
    now: datetime | None = None,
    inbox: Path | None = None,
    sink: AlertSink | None = None,
) -> AlertOutcome:
    """Alert about each dispute at risk not yet alerted today through `sink`; record them once
    they reached someone (the block notified; without a block, the events emitted), so a failed
    alert is tried again next run. `inbox`: whose documents folder holds what was read from
    each. Without a sink, each alert is logged (and not recorded)."""
    now = now or clock.now()
    day = now.strftime("%Y-%m-%d")
    done = store.alerts.alerted_on(day)
    risks = [r for r in at_risk(store, now, policy.hours, inbox) if r.pid not in done]
    out = AlertOutcome()
    if not risks:
        return out
    if (why := unavailable(sink, [r.line(now) for r in risks])) is not None:
        if policy.block:
            out.problem = f"{policy.block}: {why}; not sent"
        return out
    assert sink is not None  # `unavailable` said why otherwise
    if policy.events:
        out.events = sum(1 for r in risks if _emit(sink, r, now, run_id))
    if policy.block:
        try:
            _notify(sink, policy.block, risks, now, policy.hours)
            out.notified = True
        except AlertNotSent as exc:  # said, and tried again next run
            out.problem = (
                f"{policy.block}: {exc}; {len(risks)} alert(s) not sent, the next run tries again"
            )
            log.warning("alert not sent through %s", out.problem)
    # with a block, a person is told only once it worked: until then, every run tries again
    if out.notified or (not policy.block and out.events):
        store.alerts.record_alerts(((r.pid, r.why) for r in risks), day, run_id)
        out.alerted = [r.pid for r in risks]
    return out


def unavailable(sink: AlertSink | None, lines: list[str]) -> str | None:
    """Why `sink` cannot send now (None: it can). Without a sink, the alerts are logged."""
    if sink is None:
        for line in lines:
            log.info("alert: %s", line)
        return NO_SINK
    return sink.unavailable()


def _emit(sink: AlertSink, r: AtRisk, now: datetime, run_id: str) -> bool:
    """One event for one dispute at risk; False when nothing took it."""
    return sink.emit(
        EVENT,
        RESOURCE + r.pid,
        r.pid,
        {
            "provider_dispute_id": r.pid,
            "order_number": r.order_number,
            "response_due_by": r.due.isoformat(),
            "hours_left": round((r.due - now).total_seconds() / 3600, 1),
            "needs": r.why,
            "run_id": run_id,
        },
    )


def _notify(sink: AlertSink, slug: str, risks: list[AtRisk], now: datetime, hours: float) -> None:
    """One message listing the disputes at risk."""
    n = len(risks)
    subject = f"{n} dispute{'s' if n != 1 else ''} due within {hours:g} h still need{'s' if n == 1 else ''} you"
    sink.notify(slug, subject, "\n".join(r.line(now) for r in risks))
