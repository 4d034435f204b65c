"""An alert the first run a month's dispute ratio crosses `watch` or `over` on a network
(standing/counts.py decides the status), through the same doors as the deadline alerts
(engine/reporting/deadline_alerts.py: an event, one message through the `[alerts] block`, by the
run's sink).

Once per month, network and level: the state keeps each alert sent in `alerts_sent`, its
subject `standing:<month>:<network>:<level>`, so a later run of the same month says nothing
more; a month that goes from watch to over is alerted again (a higher level), one that falls
back is not. Only this month and last month are alerted: older months are history, and a first
run over a year of exports must not send twelve alerts about months long gone.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import pandas as pd

from dispute_evidence import clock
from dispute_evidence.engine.options import RunOptions
from dispute_evidence.engine.reporting import deadline_alerts
from dispute_evidence.engine.reporting.standing_read import merchant_standing
from dispute_evidence.engine.session import AlertSink
from dispute_evidence.policies import AlertPolicy, StandingPolicy
from dispute_evidence.standing.counts import FRAUD_COUNTED, NAMES, Standing, status_line
from dispute_evidence.standing.descriptors import EVERY
from dispute_evidence.state.holders import HasAlerts, HasRecords, HasScoped, HasStanding
from dispute_evidence.state.ports import AlertLedger


class StandingAlertsParts(HasAlerts, HasRecords, HasScoped, HasStanding, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


log = logging.getLogger("dispute_evidence.alerts")
EVENT = "dispute-evidence.standing.crossed"
RESOURCE = "dispute-evidence.standing."  # + the network
SUBJECT = "standing:"  # an alerts_sent row about the standing, not a dispute
LEVELS = {"watch": 1, "over": 2}


@dataclass(frozen=True)
class Crossing:
    month: str
    network: str
    level: str  # watch | over
    ratio: float
    threshold: float | None
    transactions: int
    events: int
    row: Any  # the table's row (standing/counts.py's status_line words it)
    descriptor: str = ""  # one statement descriptor's figures ('': every descriptor together)

    @property
    def key(self) -> str:
        return f"{SUBJECT}{self.month}:{_scope(self.network, self.descriptor)}:{self.level}"

    def line(self) -> str:
        line = status_line(self.row)
        return f"{line} (statement descriptor {self.descriptor})" if self.descriptor else line


def _scope(network: str, descriptor: str) -> str:
    """What an alert is about: a network's figures for every descriptor (the key alerts kept
    before descriptors were read), or one descriptor's: Visa identifies a merchant per
    descriptor, so one descriptor over the threshold is alerted even when all together are not."""
    return f"{network}:{descriptor}" if descriptor else network


def crossings(table: pd.DataFrame, sent: set[str], now: datetime) -> list[Crossing]:
    """This month's and last month's rows at watch or over not yet alerted at that level or
    higher, over first."""
    this = pd.Period(now.strftime("%Y-%m"), freq="M")
    months = {str(this), str(this - 1)}
    out = []
    for r in table.loc[table["month"].isin(months) & table["status"].isin(LEVELS)].itertuples():
        level, descriptor = str(r.status), str(getattr(r, "descriptor", EVERY))
        descriptor = "" if descriptor in (EVERY, "") else descriptor
        scope = _scope(str(r.network), descriptor)
        done = (
            f"{SUBJECT}{r.month}:{scope}:{lv}" for lv, n in LEVELS.items() if n >= LEVELS[level]
        )
        if any(key in sent for key in done):
            continue
        threshold = (
            float(r.threshold_percent) if r.threshold_percent == r.threshold_percent else None
        )
        counted = int(r.disputes) + (int(r.fraud_reports) if r.network in FRAUD_COUNTED else 0)
        events = int(getattr(r, "events", counted))
        figures = (float(r.ratio_percent), threshold, int(r.transactions), events)
        out.append(Crossing(str(r.month), str(r.network), level, *figures, r, descriptor))
    return sorted(out, key=lambda c: (-LEVELS[c.level], c.month, c.network, c.descriptor))


def standing_alerted(ledger: AlertLedger) -> set[str]:
    """The standing's alerts sent so far (their subjects)."""
    return ledger.alerted_subjects(SUBJECT)


def send_standing_alerts(
    ledger: AlertLedger,
    policy: AlertPolicy,
    standing: Standing,
    run_id: str,
    now: datetime,
    sink: AlertSink | None = None,
) -> deadline_alerts.AlertOutcome:
    """Alert about each month and network newly at watch or over; recorded once it reached
    someone (as the deadline alerts are), so a failed alert is tried again next run."""
    new = crossings(standing.rows(), standing_alerted(ledger), now)
    out = deadline_alerts.AlertOutcome()
    if not new:
        return out
    if (why := deadline_alerts.unavailable(sink, [c.line() for c in new])) is not None:
        if policy.block:
            out.problem = f"{policy.block}: {why}; the dispute-ratio alert was not sent"
        return out
    assert sink is not None  # `unavailable` said why otherwise
    if policy.events:
        out.events = sum(1 for c in new if _emit(sink, c, run_id))
    if policy.block:
        try:
            sink.notify(policy.block, _subject(new), "\n".join(c.line() for c in new))
            out.notified = True
        except deadline_alerts.AlertNotSent as exc:  # said, and tried again next run
            out.problem = (
                f"{policy.block}: {exc}; the dispute-ratio alert was not sent, the "
                "next run tries again"
            )
            log.warning("alert not sent through %s", out.problem)
    if out.notified or (not policy.block and out.events):
        _record(ledger, new, now, run_id)
        out.alerted = [c.key for c in new]
    return out


def add_standing_alerts(
    out: deadline_alerts.AlertOutcome,
    store: StandingAlertsParts,
    opts: RunOptions,
    run_id: str,
    sink: AlertSink | None = None,
) -> deadline_alerts.AlertOutcome:
    """`out` (the deadline alerts) with the standing worked out and its alerts sent."""
    assert opts.alerts is not None
    out.standing = merchant_standing(store, opts.standing)
    ratio = send_standing_alerts(store.alerts, opts.alerts, out.standing, run_id, clock.now(), sink)
    out.ratio_alerted = ratio.alerted
    out.events += ratio.events
    out.problem = out.problem or ratio.problem  # the same block: one line says it
    return out


def standing_of(
    alerted: deadline_alerts.AlertOutcome | None, store: StandingAlertsParts, policy: StandingPolicy
) -> Standing:
    """The standing the alerts worked out this run, else worked out now."""
    if alerted is not None and alerted.standing is not None:
        return alerted.standing
    return merchant_standing(store, policy)


def ratio_alert_counts(alerted: deadline_alerts.AlertOutcome | None) -> dict[str, int]:
    """The run's count of ratio alerts, when it sent any."""
    return (
        {"ratio_alerted": len(alerted.ratio_alerted)} if alerted and alerted.ratio_alerted else {}
    )


def _subject(new: list[Crossing]) -> str:
    worst = new[0]
    more = f" (and {len(new) - 1} more)" if len(new) > 1 else ""
    word = "over its threshold" if worst.level == "over" else "on watch"
    name = NAMES.get(worst.network, worst.network)
    if worst.descriptor:
        name = f"{name} ({worst.descriptor})"
    return f"Dispute ratio {word}: {name} {worst.month}{more}"


def _emit(sink: AlertSink, c: Crossing, run_id: str) -> bool:
    return sink.emit(
        EVENT,
        RESOURCE + c.network,
        c.network,
        {
            "month": c.month,
            "network": c.network,
            "status": c.level,
            "ratio_percent": c.ratio,
            "threshold_percent": c.threshold,
            "transactions": c.transactions,
            "events": c.events,
            "descriptor": c.descriptor or EVERY,
            "run_id": run_id,
        },
    )


def _record(ledger: AlertLedger, new: list[Crossing], now: datetime, run_id: str) -> None:
    ledger.record_alerts(((c.key, c.line()) for c in new), now.strftime("%Y-%m-%d"), run_id)
