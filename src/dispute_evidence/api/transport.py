"""The transport tier: aiohttp session, pacing, retries, and the one place aiohttp errors
are translated into ours (nothing above this module catches aiohttp.*)."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple, Protocol

import aiohttp
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    stop_any,
)
from tenacity.stop import stop_base

from dispute_evidence.api.config import ApiSettings
from dispute_evidence.api.errors import (
    ApiConnectionError,
    ApiError,
    ApiTimeout,
    ApiUnavailable,
    OutcomeUnknown,
    RateLimited,
    RequestInfo,
    UnexpectedResponse,
    WaitTooLong,
)
from dispute_evidence.api.pacer import RequestGate, RequestPacer
from dispute_evidence.api.response_errors import error_from_response
from dispute_evidence.api.retry import parse_retry_after, retry_wait, should_retry
from dispute_evidence.cardnumbers import covered

log = logging.getLogger("dispute_evidence.api")
FIRST_CONTACT_ATTEMPTS = 2  # attempts while the API has never answered and times out


@dataclass(slots=True)
class RawResponse:
    status: int
    body: bytes
    headers: dict[str, str]
    request: RequestInfo


class HttpRequest(NamedTuple):
    """One attempt as it goes on the wire (the bearer token is added below this: never here).
    A named tuple, not a frozen dataclass: one is made per attempt."""

    method: str
    url: str
    params: Any
    json: Any
    form: aiohttp.FormData | None
    timeout: float  # seconds for the whole attempt


class HttpTransport(Protocol):
    """Sends one attempt and returns the answer, as httpx's transports do: the default sends
    it with aiohttp; tests pass a fake (api/testing.py MockTransport). Pacing, retries and the
    translation of errors stay above it, in `Transport`, whichever sends."""

    async def __call__(self, request: HttpRequest, /) -> RawResponse: ...


@dataclass
class TransportStats:
    attempts: int = 0
    retries: int = 0
    rate_limited: int = 0


class Transport:
    """Sends requests with the bearer token, paced and retried; one per API key."""

    def __init__(
        self,
        settings: ApiSettings,
        *,
        pacer: RequestPacer | None = None,
        gate: RequestGate | None = None,
        sleep: Callable[[float], Any] = asyncio.sleep,
        rand: Callable[[], float] | None = None,
        http: HttpTransport | None = None,
    ) -> None:
        self.settings = settings
        self._http: HttpTransport = http or self._aiohttp
        self.gate = gate
        self.pacer = pacer or RequestPacer(
            settings.rate_limit_per_hour, settings.rate_limit_period, settings.rate_limit_burst
        )
        self.stats = TransportStats()
        self._sleep = sleep
        self._rand = rand
        self._limit = asyncio.Semaphore(settings.max_concurrency)
        self._session: aiohttp.ClientSession | None = None
        self._timeouts: dict[tuple[float, bool], aiohttp.ClientTimeout] = {}
        self._answered = False  # the API answered once: its first byte is no longer bounded
        self._waited, self._wait_end = 0.0, 0.0  # seconds waited in all (overlaps once)
        self._retrying = self._build_retrying()

    def __repr__(self) -> str:
        return f"Transport(base_url={self.settings.base_url!r}, token=***)"

    def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                headers={
                    "Authorization": f"Bearer {self.settings.token.get_secret_value()}",
                    "User-Agent": "dispute-evidence/0.1",
                },
                connector=aiohttp.TCPConnector(limit=self.settings.max_concurrency * 2),
                raise_for_status=False,
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def request(
        self,
        method: str,
        path: str,
        *,
        idempotent: bool,
        params: dict[str, Any] | None = None,
        json: Any = None,
        form: Callable[[], aiohttp.FormData] | None = None,
        timeout: float | None = None,
    ) -> RawResponse:
        """One logical request: attempts are paced, and retried while the error is transient.

        The first attempt goes straight out; only a transient failure enters the tenacity loop
        (built once per transport, copied per failing request: its state is per call), which
        makes the remaining attempts. Most requests succeed at once, and building a retry loop
        for each of them cost a third of the client's throughput (issue 32).

        The one door to the API for text: every string of a JSON body has its card numbers
        covered (cardnumbers.covered); a file's name is covered by names.upload_name."""
        json = covered(json)
        try:
            return await self._attempt(method, path, idempotent, params, json, form, timeout)
        except ApiError as exc:
            if not should_retry(exc) or self.settings.max_attempts < 2:
                raise
            first = exc
        self._count_retry(first, 1)
        await self._sleep(self._wait_after(first, 1))
        call = functools.partial(
            self._attempt, method, path, idempotent, params, json, form, timeout
        )
        async for attempt in self._retrying.copy():
            with attempt:
                return await call()
        raise AssertionError("unreachable")  # pragma: no cover

    def _build_retrying(self) -> AsyncRetrying:
        """The attempts after a failed first one: attempt_number 1 here is the 2nd attempt."""
        return AsyncRetrying(
            stop=stop_any(
                stop_after_attempt(self.settings.max_attempts - 1), _Stop(self._never_answered)
            ),
            wait=lambda state: self._wait_after(_failure(state), state.attempt_number + 1),
            retry=retry_if_exception(should_retry),
            sleep=self._sleep,
            reraise=True,
            before_sleep=lambda state: self._count_retry(_failure(state), state.attempt_number + 1),
        )

    def _wait_after(self, exc: BaseException | None, attempt: int) -> float:
        """The server's Retry-After when it gave one, else jittered backoff for this retry."""
        kw = {"rand": self._rand} if self._rand else {}
        seconds = retry_wait(
            exc, attempt, self.settings.backoff_base, self.settings.backoff_cap, **kw
        )
        self._charge(seconds, exc)
        return seconds

    def _never_answered(self, state: RetryCallState) -> bool:
        """Stop early when the API has never answered and timed out again (it accepts
        connections but says nothing, or cannot be connected to in time)."""
        first = not self._answered and isinstance(_failure(state), ApiTimeout)
        return first and state.attempt_number + 1 >= FIRST_CONTACT_ATTEMPTS

    def _charge(self, seconds: float, exc: BaseException | None) -> None:
        """Count a wait against max_wait (waits that overlap count once); WaitTooLong when
        it would go over: the run stops instead of waiting."""
        now = time.monotonic()
        added = max(0.0, now + seconds - max(now, self._wait_end))
        if self._waited + added > self.settings.max_wait:
            raise _too_long(exc, seconds, self._waited, self.settings.max_wait) from exc
        self._waited += added
        self._wait_end = max(self._wait_end, now + seconds)

    def _left(self) -> float:
        return max(0.0, self.settings.max_wait - self._waited)

    def _count_retry(self, exc: BaseException | None, attempt: int) -> None:
        self.stats.retries += 1
        log.info("retrying after %s (attempt %d)", type(exc).__name__, attempt)

    async def _attempt(
        self,
        method: str,
        path: str,
        idempotent: bool,
        params: Any,
        json: Any,
        form: Callable[[], aiohttp.FormData] | None,
        timeout: float | None,
    ) -> RawResponse:
        url = f"{self.settings.base_url}{path}"
        async with self._limit:
            await self.pacer.acquire()
            if self.gate is not None:  # the key's budget shared with other processes
                await self.gate.acquire()
            self.stats.attempts += 1
            # the form is built per attempt, once admitted: its file is opened only to be sent
            sent = HttpRequest(
                method,
                url,
                params,
                json,
                form() if form is not None else None,
                timeout or self.settings.timeout,
            )
            try:
                response = await self._http(sent)
            except (aiohttp.ClientError, TimeoutError) as exc:
                raise self._translate(exc, RequestInfo(method, url), idempotent) from None
        self._answered = True
        if response.status == 429:
            self.stats.rate_limited += 1
            retry_after = parse_retry_after(response.headers.get("Retry-After"))
            pause = retry_after if retry_after is not None else self.settings.backoff_base
            self.pacer.pause(min(pause, self._left()))  # never past what the run will wait
        if response.status >= 400:
            raise self._error(response, idempotent)
        if 300 <= response.status < 400:
            raise _redirected(response)
        if not _looks_like_json(response.body):
            raise _not_json(response)
        return response

    async def _aiohttp(self, request: HttpRequest) -> RawResponse:
        """The default HttpTransport: the attempt sent with this transport's aiohttp session."""
        key = (request.timeout, self._answered)
        client_timeout = self._timeouts.get(key) or self._timeouts.setdefault(
            key, self._bounds(request.timeout)
        )
        # a redirect is never followed: the body (evidence, a customer's files) goes to the
        # configured API or nowhere, and nothing is counted as sent that it did not receive
        async with self._get_session().request(
            request.method,
            request.url,
            params=request.params,
            json=request.json,
            data=request.form,
            timeout=client_timeout,
            allow_redirects=False,
        ) as r:
            body = await r.read()
            # an answer's headers are read only when it is not a success, or not JSON
            headers = dict(r.headers) if r.status >= 300 or not _looks_like_json(body) else {}
            return RawResponse(r.status, body, headers, RequestInfo(request.method, request.url))

    def _bounds(self, total: float) -> aiohttp.ClientTimeout:
        """The whole attempt; connecting, and until the API answered once its first byte,
        bounded apart (an API that accepts connections but never answers)."""
        first = self.settings.connect_timeout
        return aiohttp.ClientTimeout(
            total=total, sock_connect=first, sock_read=None if self._answered else first
        )

    def _error(self, response: RawResponse, idempotent: bool) -> ApiError:
        exc = error_from_response(
            response.status, response.body, response.headers, response.request
        )
        # RFC 9110: 503 means the server did not handle the request, so it is safe to repeat;
        # any other 5xx to a non-idempotent request may have taken effect.
        if not idempotent and response.status >= 500 and response.status != 503:
            return OutcomeUnknown(
                f"The API answered {response.status} to a request that may have taken effect; "
                "check before repeating it.",
                status=response.status,
                code=exc.code,
                body=exc.body,
                request=response.request,
                cause=exc,
            )
        return exc

    @staticmethod
    def _translate(exc: BaseException, info: RequestInfo, idempotent: bool) -> ApiError:
        """aiohttp's exceptions -> ours, deciding whether the request may have been processed."""
        if isinstance(exc, aiohttp.ClientConnectorError):  # never connected: nothing was sent
            return ApiConnectionError(f"Cannot connect to the API: {exc.os_error}", request=info)
        if isinstance(
            exc, aiohttp.ConnectionTimeoutError
        ):  # timed out connecting: nothing was sent
            return ApiTimeout("Timed out connecting to the API.", request=info)
        sent = (
            TimeoutError,
            aiohttp.ServerDisconnectedError,
            aiohttp.ClientOSError,
            aiohttp.ClientPayloadError,
            aiohttp.ClientResponseError,
        )
        if not isinstance(exc, sent):
            return ApiConnectionError(f"HTTP client error: {type(exc).__name__}", request=info)
        timed_out = isinstance(exc, TimeoutError)
        what = (
            "No answer within the timeout"
            if timed_out
            else f"Connection lost ({type(exc).__name__})"
        )
        if not idempotent:
            return OutcomeUnknown(
                f"{what}; the request may have taken effect.", request=info, cause=exc
            )
        return (ApiTimeout if timed_out else ApiConnectionError)(f"{what}.", request=info)


def _failure(state: Any) -> BaseException | None:
    """The exception of the attempt tenacity just finished (None if it returned)."""
    return state.outcome.exception() if state.outcome else None


class _Stop(stop_base):
    """A stop condition made of a plain function of the retry state."""

    def __init__(self, when: Callable[[RetryCallState], bool]) -> None:
        self._when = when

    def __call__(self, retry_state: RetryCallState) -> bool:
        return self._when(retry_state)


def _span(seconds: float) -> str:
    """A wait as a person reads it: 45 s, 60 min, 24 h, 3 days."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:,.0f} days"


def _too_long(
    exc: BaseException | None, seconds: float, waited: float, budget: float
) -> WaitTooLong:
    """One line: what the API answered, what it asked, and when to run again."""
    status = getattr(exc, "status", None)
    answer = f"answered {status}" if status else f"failed ({getattr(exc, 'message', exc)})"
    asked = (
        f"asked to wait {_span(seconds)} (Retry-After)"
        if getattr(exc, "retry_after", None) is not None
        else f"kept failing after {_span(waited)} of retries"
    )
    when = (datetime.now(UTC) + timedelta(seconds=seconds)).strftime("%Y-%m-%d %H:%M UTC")
    said = (
        f"The API {answer} and {asked}; a run waits at most {_span(budget)} in all ([api] max_wait)"
    )
    return WaitTooLong(
        f"{said}. Nothing more was sent; run again after {when}: the next run resumes where "
        "this one stopped.",
        status=status,
        request=getattr(exc, "request", None),
        retry_at=when,
        answer=said,
    )


def _looks_like_json(body: bytes) -> bool:
    """The API answers every success with a JSON object (or array): anything else came from
    something else at its address (a login page, a proxy, a captive portal)."""
    return body.lstrip()[:1] in (b"{", b"[")


def _not_json(response: RawResponse) -> UnexpectedResponse:
    """A success that is not the API's JSON, in one line: what came back and what to check."""
    kind = response.headers.get("Content-Type", "").split(";")[0].strip() or "no content type"
    text = " ".join(response.body[:200].decode("utf-8", "replace").split())
    text = "".join(c for c in text if c.isprintable())[:80] or "an empty body"
    return UnexpectedResponse(
        f"The API answered {response.status} with {kind}, not JSON ({text!r}): something else "
        "answers at this address (a login page, a proxy or a captive portal). Check "
        "DISPUTE_API_BASE_URL and the network.",
        status=response.status,
        request=response.request,
    )


def _redirected(response: RawResponse) -> UnexpectedResponse:
    """A 3xx: the configured API did not take the request, and we do not follow it."""
    where = response.headers.get("Location", "elsewhere")
    return UnexpectedResponse(
        f"The API redirected the request to {where}; redirects are not followed, so it was "
        "not sent. Check DISPUTE_API_BASE_URL (it must be where the API answers).",
        status=response.status,
        request=response.request,
    )


__all__ = [
    "ApiUnavailable",
    "HttpRequest",
    "HttpTransport",
    "RateLimited",
    "RawResponse",
    "Transport",
]
