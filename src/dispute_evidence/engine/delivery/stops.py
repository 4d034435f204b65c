"""Why a run stops sending, typed, from the API error that stopped it: one place for the
submit phase (engine/delivery/phase.py) and the first request to an API the state has not
met (engine/run_steps.py). Each reason's words say what happened and what to do; its exit code is
exits.py's (`exit_for`), never chosen here."""

from __future__ import annotations

from dispute_evidence.api import ApiSettings
from dispute_evidence.api.errors import (
    ApiConnectionError,
    ApiUnavailable,
    AuthenticationFailed,
    PermissionDenied,
    UnexpectedResponse,
    WaitTooLong,
)
from dispute_evidence.engine.delivery.submit import RunAborted
from dispute_evidence.exits import Stop, Stopped

# what stops a run's sending before its first dispute (the cheap first request, or proving a key)
FIRST_REQUEST_STOPS = (
    AuthenticationFailed,
    PermissionDenied,
    ApiConnectionError,
    ApiUnavailable,
    WaitTooLong,
    UnexpectedResponse,
)
# ... and while sending (a refused key is RunAborted there; an unreachable API is per dispute)
SENDING_STOPS = (
    AuthenticationFailed,
    PermissionDenied,
    RunAborted,
    WaitTooLong,
    UnexpectedResponse,
)


def stopped_by(api: ApiSettings, exc: Exception, *, sent: bool) -> Stopped:
    """The stop `exc` means (`sent`: whether this run sent anything before it). A redirect is
    a configuration error, not a stop: it is raised again (the CLI says so, exit 2), as is
    anything else that is not a stop."""
    match exc:
        case AuthenticationFailed() | PermissionDenied():
            return Stopped(Stop.KEY_REFUSED, refused(exc))
        case RunAborted():  # refused while sending: the submitter said what stopped
            return Stopped(Stop.KEY_REFUSED, str(exc))
        case ApiConnectionError() | ApiUnavailable():
            return Stopped(Stop.UNREACHABLE, unreachable(api, exc))
        case WaitTooLong():
            return Stopped(Stop.WAIT_TOO_LONG, exc.message, exc.retry_at, exc.answer)
        case UnexpectedResponse() if not redirected(exc):
            return Stopped(Stop.NOT_THE_API, not_the_api(exc, sent=sent))
    raise exc


def redirected(exc: UnexpectedResponse) -> bool:
    return exc.status is not None and 300 <= exc.status < 400


def not_the_api(exc: UnexpectedResponse, *, sent: bool) -> str:
    after = "Nothing more was sent; what was sent is recorded" if sent else "Nothing was sent"
    return f"{exc.message} {after}; run again once the API answers there."


def unreachable(api: ApiSettings, exc: ApiConnectionError | ApiUnavailable) -> str:
    return (
        f"Could not reach the API at {api.base_url} ({exc.message}). Nothing was sent; "
        "check DISPUTE_API_BASE_URL and the network, then run again."
    )


def refused(exc: AuthenticationFailed | PermissionDenied) -> str:
    return (
        f"The API refused the key ({exc.message}). Nothing was sent; "
        "check DISPUTE_API_TOKEN (or the Secret block) and run again."
    )
