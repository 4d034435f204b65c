"""Errors of the Dispute Evidence API client, named by meaning.

    ApiError                         status, code, param, body, request
    ├── AuthenticationFailed         401                          terminal
    ├── PermissionDenied             403                          terminal
    ├── NotFound                     404                          terminal
    ├── InvalidRequest               400, 405, 409, 422, other 4xx terminal
    │   └── FileRejected             413, 415, or refused locally terminal
    ├── UnexpectedResponse           body not the documented shape terminal
    ├── RateLimited                  429 (+ retry_after)          transient
    ├── ApiUnavailable               5xx                          transient
    ├── ApiConnectionError           network failure              transient
    │   └── ApiTimeout               no answer in time            transient
    ├── OutcomeUnknown               a non-idempotent request was sent and no definitive
    │                                answer came back (5xx but 503, dropped, timed out): reconcile,
    │                                do not blindly repeat        neither: never auto-retried
    └── WaitTooLong                  the API asks to wait longer than the run's budget
                                     (Retry-After; [api] max_wait): stop, run again later

Callers branch with isinstance(exc, TransientError) / TerminalError, never on numbers.
No message, repr or attribute ever holds the API token.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class TransientError(Exception):
    """Mixin: trying again later may succeed."""


class TerminalError(Exception):
    """Mixin: trying again will not help until something changes."""


class RequestInfo(NamedTuple):
    """What was asked (never headers: they hold the token). A named tuple: one is made per
    response, and a frozen dataclass costs three times as much to make."""

    method: str
    url: str

    def __str__(self) -> str:
        return f"{self.method} {self.url}"


class ApiError(Exception):
    """Root of every error the client raises."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        param: str | None = None,
        body: Any = None,
        request: RequestInfo | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.param = param
        self.body = body
        self.request = request

    def __str__(self) -> str:
        parts = [self.message]
        if self.param:
            parts.append(f"(param: {self.param})")
        if self.status is not None:
            parts.append(f"[HTTP {self.status}{' ' + self.code if self.code else ''}]")
        if self.request is not None:
            parts.append(f"on {self.request}")
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, status={self.status}, code={self.code!r}, param={self.param!r})"


class AuthenticationFailed(ApiError, TerminalError):
    """The API key is missing, wrong, expired or revoked."""


class PermissionDenied(ApiError, TerminalError):
    """The key is valid but may not do this."""


class NotFound(ApiError, TerminalError):
    """The dispute, file or path does not exist."""


class InvalidRequest(ApiError, TerminalError):
    """The API refused the request as malformed; `param` names the field when it says."""


class FileRejected(InvalidRequest):
    """The file is too large, of a type the API does not take, or unreadable."""


class UnexpectedResponse(ApiError, TerminalError):
    """The API answered with a body that is not the documented shape."""


class RateLimited(ApiError, TransientError):
    """429: the request budget is spent; `retry_after` seconds until it may be tried again."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.retry_after = retry_after


class ApiUnavailable(ApiError, TransientError):
    """5xx on a request that is safe to repeat."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.retry_after = retry_after


class ApiConnectionError(ApiError, TransientError):
    """The network failed before a full answer arrived."""


class ApiTimeout(ApiConnectionError):
    """No answer within the client's timeout."""


class OutcomeUnknown(ApiError):
    """A non-idempotent request may or may not have taken effect; the caller must reconcile."""

    def __init__(self, message: str, *, cause: BaseException | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.cause = cause


class WaitTooLong(ApiError):
    """The API asked to wait (Retry-After), or kept failing, longer than this client may wait
    in all ([api] max_wait): never retried; the run stops and the next one resumes. The
    message names the API's answer and when to try again (`retry_at`); `answer` is its first
    half alone (what the API answered and asked), for a caller that says what to do its way."""

    def __init__(
        self, message: str, *, retry_at: str | None = None, answer: str = "", **kw: Any
    ) -> None:
        super().__init__(message, **kw)
        self.retry_at = retry_at
        self.answer = answer or message
