"""Alerts before it is too late: a dispute due within `[alerts] alert_hours` that still needs
something (its data, evidence its reason needs, or a person's approval) is at risk.

Each dispute at risk gets a Prefect event (`dispute-evidence.dispute.at-risk` on the resource
`dispute-evidence.dispute.<id>`, so automations can act on it), and one message per run lists
them through the Prefect notification block the config names (Slack, Teams, a custom webhook,
SendGrid e-mail, ...: the block does the HTTP, this module has none of its own). A dispute is
alerted at most once per UTC day: the state keeps the day (table alerts_sent).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from dispute_evidence import clock
from dispute_evidence.engine.prepare.case import CaseReader, case_reader
from dispute_evidence.evidence.completeness import assess_case
from dispute_evidence.evidence.standing import Standing
from dispute_evidence.policies import AlertPolicy
from dispute_evidence.state.status import DisputeStatus
from dispute_evidence.state.store import StateStore

log = logging.getLogger("dispute_evidence.alerts")
D = DisputeStatus
EVENT = "dispute-evidence.dispute.at-risk"
RESOURCE = "dispute-evidence.dispute."  # + the provider dispute id
WATCHED = (D.PENDING, D.SUBMITTED, D.INCOMPLETE, D.AWAITING_APPROVAL)


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
    store: StateStore, now: datetime, hours: float, inbox: Path | None = None
) -> list[AtRisk]:
    """Disputes due within `hours` (not yet past) that still need something, nearest first;
    their evidence judged as the report judges it (`inbox`: whose documents folder holds what
    was read from each document)."""
    until = now + timedelta(hours=hours)
    cases = case_reader(store, inbox)
    out = []
    for pid, order, status, due_text, payload, detail in store.watched_deadlines(WATCHED):
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
    store: StateStore,
    policy: AlertPolicy,
    run_id: str,
    now: datetime | None = None,
    inbox: Path | None = None,
) -> AlertOutcome:
    """Alert about each dispute at risk not yet alerted today; record them once they reached
    someone (the block notified; without a block, the events emitted), so a failed alert is
    tried again next run. `inbox`: whose documents folder holds what was read from each."""
    now = now or clock.now()
    day = now.strftime("%Y-%m-%d")
    done = store.alerted_on(day)
    risks = [r for r in at_risk(store, now, policy.hours, inbox) if r.pid not in done]
    out = AlertOutcome()
    if not risks:
        return out
    if not prefect_server():
        if policy.block:
            out.problem = (
                f"{policy.block}: no Prefect server to load it from (alerts need `serve` or "
                "PREFECT_API_URL); not sent"
            )
        return out
    if policy.events:
        out.events = sum(1 for r in risks if _emit(r, now, run_id))
    if policy.block:
        try:
            _notify(policy.block, risks, now, policy.hours)
            out.notified = True
        except Exception as exc:  # noqa: BLE001 - any failure of the block: said, retried
            out.problem = (
                f"{policy.block}: {failure_words(exc)}; {len(risks)} alert(s) not sent, "
                "the next run tries again"
            )
            log.warning("alert not sent through %s", out.problem)
    # with a block, a person is told only once it worked: until then, every run tries again
    if out.notified or (not policy.block and out.events):
        store.record_alerts(((r.pid, r.why) for r in risks), day, run_id)
        out.alerted = [r.pid for r in risks]
    return out


def prefect_server() -> bool:
    """A Prefect API is configured. Without one, Prefect would start a temporary server of its
    own to take an event or load a block (seconds, and the alerts would go nowhere)."""
    from prefect.settings import get_current_settings

    return bool(get_current_settings().api.url)


def _emit(r: AtRisk, now: datetime, run_id: str) -> bool:
    """One Prefect event for one dispute at risk; False when no Prefect server takes events."""
    return emit(
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


def emit(event: str, resource: str, name: str, payload: dict[str, Any]) -> bool:
    """One Prefect event on `resource`; False when no Prefect server takes events."""
    from prefect.events import emit_event

    sent = emit_event(
        event=event,
        resource={"prefect.resource.id": resource, "prefect.resource.name": name},
        payload=payload,
    )
    return sent is not None


def _notify(slug: str, risks: list[AtRisk], now: datetime, hours: float) -> None:
    """One message listing the disputes at risk (notify() says how it is sent)."""
    n = len(risks)
    subject = f"{n} dispute{'s' if n != 1 else ''} due within {hours:g} h still need{'s' if n == 1 else ''} you"
    notify(slug, subject, "\n".join(r.line(now) for r in risks))


def notify(slug: str, subject: str, body: str) -> None:
    """One message through the named Prefect notification block (its own notify()). Raises
    when the block reports a failure (Apprise-based blocks only do inside raise_on_failure)."""
    import prefect.blocks.notifications  # noqa: F401 - registers the notification block types
    from prefect.blocks.core import Block

    block: Any = Block.load(slug)
    failing = block.raise_on_failure() if hasattr(block, "raise_on_failure") else nullcontext()
    with _quiet(), failing:
        block.notify(body, subject=subject)


# what a block's libraries log while sending can carry its resolved URL (and the secrets in it)
_SENDERS = ("apprise", "httpx", "httpcore", "urllib3")


@contextmanager
def _quiet() -> Iterator[None]:
    """Silence the block's HTTP libraries while it sends: their lines may name the URL."""
    loggers = [logging.getLogger(name) for name in _SENDERS]
    was = [lg.disabled for lg in loggers]
    for lg in loggers:
        lg.disabled = True
    try:
        yield
    finally:
        for lg, disabled in zip(loggers, was, strict=True):
            lg.disabled = disabled


def failure_words(exc: BaseException) -> str:
    """Why a block failed, in words that never quote the exception: its text can hold the
    block's resolved URL, its secrets or the answer's body."""
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(status, int):
        return f"the service answered HTTP {status}"
    name = type(exc).__name__
    if name == "NotificationError":
        return "the block reports that the notification failed"
    if isinstance(exc, ValueError) and "unable to find block" in str(exc).lower():
        return "no such block on the Prefect server"
    if isinstance(exc, ConnectionError | TimeoutError | OSError) or "Connect" in name:
        return f"could not reach the service ({name})"
    return f"failed ({name})"
