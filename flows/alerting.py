"""The engine's alerts through Prefect: an event per alert on the Prefect server (automations
act on it) and one message through the notification block the config names (Slack, Teams, a
custom webhook, SendGrid e-mail, ...: the block does the HTTP). The CLI's own runs and the
flows hand `PrefectAlerts()` to the engine (engine/reporting/deadline_alerts.py `AlertSink`).

Prefect is imported only when an alert is to go out: a run with nothing at risk, in the
CLI's own process, does not load it."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from dispute_evidence.engine.reporting.deadline_alerts import AlertNotSent

NO_SERVER = "no Prefect server to load it from (alerts need `serve` or PREFECT_API_URL)"

# what a block's libraries log while sending can carry its resolved URL (and the secrets in it)
_SENDERS = ("apprise", "httpx", "httpcore", "urllib3")


class PrefectAlerts:
    """Alerts as Prefect events and notification blocks (`AlertSink` of
    engine/reporting/deadline_alerts.py)."""

    def unavailable(self) -> str | None:
        """Without a Prefect API configured, Prefect would start a temporary server of its own
        to take an event or load a block (seconds, and the alerts would go nowhere)."""
        from prefect.settings import get_current_settings

        return None if get_current_settings().api.url else NO_SERVER

    def emit(self, event: str, resource: str, name: str, payload: dict[str, Any]) -> bool:
        """One Prefect event on `resource`; False when no Prefect server takes events."""
        from prefect.events import emit_event

        sent = emit_event(
            event=event,
            resource={"prefect.resource.id": resource, "prefect.resource.name": name},
            payload=payload,
        )
        return sent is not None

    def notify(self, block: str, subject: str, body: str) -> None:
        """One message through the named notification block (its own notify()); AlertNotSent,
        in words that never quote the failure, when the block reports one (Apprise-based
        blocks only do inside raise_on_failure) or cannot be loaded."""
        try:
            _notify(block, subject, body)
        except Exception as exc:  # noqa: BLE001 - any failure of the block: said, retried
            raise AlertNotSent(failure_words(exc)) from None


def _notify(slug: str, subject: str, body: str) -> None:
    import prefect.blocks.notifications  # noqa: F401 - registers the notification block types
    from prefect.blocks.core import Block

    block: Any = Block.load(slug)
    failing = block.raise_on_failure() if hasattr(block, "raise_on_failure") else nullcontext()
    with _quiet(), failing:
        block.notify(body, subject=subject)


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
