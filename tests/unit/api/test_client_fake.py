"""The client over a fake transport (api/testing.py MockTransport): no server, no sockets,
milliseconds a test. Pacing, retries, error translation and parsing run as in production."""

from __future__ import annotations

import aiohttp
import pytest

from dispute_evidence.api import (
    ApiConnectionError,
    DisputeEvidenceClient,
    Evidence,
    OutcomeUnknown,
    UnexpectedResponse,
)
from dispute_evidence.api.testing import HttpRequest, MockTransport, respond

URL = "https://api.example.com/v1"
TOKEN = "sk_test_fake_transport"
DISPUTE = {"id": "dp_1", "object": "dispute", "status": "needs_response", "amount": 12.5}


async def _no_wait(_seconds: float) -> None:
    return None


def client(handler, **kw) -> tuple[DisputeEvidenceClient, MockTransport]:
    fake = MockTransport(handler)
    kw.setdefault("rate_limit_per_hour", 1_000_000)
    return DisputeEvidenceClient(URL, TOKEN, transport=fake, sleep=_no_wait, **kw), fake


async def test_a_page_of_disputes_is_asked_for_and_parsed() -> None:
    c, fake = client(lambda r: respond(r, 200, {"data": [DISPUTE], "has_more": False}))
    async with c:
        disputes = await c.list_disputes(limit=5, offset=10)
    assert [d.id for d in disputes] == ["dp_1"] and disputes[0].amount == 12.5
    (sent,) = fake.requests
    assert (sent.method, sent.url) == ("GET", f"{URL}/disputes")
    assert sent.params == {"limit": 5, "offset": 10} and TOKEN not in repr(sent)


async def test_a_503_is_retried_until_it_succeeds() -> None:
    answers = iter([503, 503, 200])

    def handler(r: HttpRequest):
        status = next(answers)
        return respond(r, status, DISPUTE if status == 200 else {"error": {"type": "x"}})

    c, fake = client(handler)
    async with c:
        dispute = await c.get_dispute("dp_1")
    assert dispute.id == "dp_1" and len(fake.requests) == 3 and c.stats.retries == 2


async def test_a_500_to_an_upload_is_an_unknown_outcome_never_repeated(tmp_path) -> None:
    pdf = tmp_path / "receipt.pdf"
    pdf.write_bytes(b"%PDF-1.4\n% receipt\n")
    c, fake = client(lambda r: respond(r, 500, {"error": {"message": "boom"}}))
    async with c:
        with pytest.raises(OutcomeUnknown):
            await c.upload_file("dp_1", pdf)
    (sent,) = fake.requests
    assert sent.method == "POST" and sent.form is not None


async def test_an_evidence_update_is_repeated_after_a_500_it_replaces_whole() -> None:
    answers = iter([500, 200])
    result = {"message": "ok", "dispute_id": "dp_1", "provider_dispute_id": "pd_1"}

    def handler(r: HttpRequest):
        status = next(answers)
        return respond(r, status, result if status == 200 else {"error": {}})

    c, fake = client(handler)
    evidence = Evidence.model_validate({"additional_evidence": {"order_number": "1"}})
    async with c:
        await c.update_evidence("pd_1", evidence)
    assert [r.json["provider_dispute_id"] for r in fake.requests] == ["pd_1", "pd_1"]


async def test_a_dropped_connection_on_a_read_is_retried_then_said() -> None:
    def handler(r: HttpRequest):
        raise aiohttp.ServerDisconnectedError()

    c, fake = client(handler, max_attempts=3)
    async with c:
        with pytest.raises(ApiConnectionError, match="Connection lost"):
            await c.get_dispute("dp_1")
    assert len(fake.requests) == 3


async def test_a_redirect_is_never_followed() -> None:
    c, fake = client(lambda r: respond(r, 302, b"", {"Location": "https://elsewhere.test/"}))
    async with c:
        with pytest.raises(UnexpectedResponse, match="elsewhere.test"):
            await c.get_dispute("dp_1")
    assert len(fake.requests) == 1


async def test_a_429_pauses_then_the_request_goes_through() -> None:
    answers = iter([(429, {"Retry-After": "0"}), (200, {})])

    def handler(r: HttpRequest):
        status, headers = next(answers)
        return respond(r, status, DISPUTE if status == 200 else {"error": {}}, headers)

    c, fake = client(handler)
    async with c:
        assert (await c.get_dispute("dp_1")).id == "dp_1"
    assert c.stats.rate_limited == 1 and len(fake.requests) == 2


async def test_a_login_page_for_an_answer_is_one_typed_line() -> None:
    page = b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head></html>"
    c, fake = client(lambda r: respond(r, 200, page, {"Content-Type": "text/html; charset=utf-8"}))
    async with c:
        with pytest.raises(UnexpectedResponse) as caught:
            await c.get_dispute("dp_1")
    said = str(caught.value)
    assert "answered 200 with text/html, not JSON" in said and "<title>Sign in</title>" in said
    assert "DISPUTE_API_BASE_URL" in said and "\n" not in said and TOKEN not in said
    assert len(fake.requests) == 1  # terminal: not retried
