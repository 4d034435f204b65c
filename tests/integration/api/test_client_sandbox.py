"""The client against the real sandbox over loopback: every endpoint and error type."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from dispute_evidence.api import (
    ApiTimeout,
    ApiUnavailable,
    AuthenticationFailed,
    DisputeEvidenceClient,
    Evidence,
    FileRejected,
    InvalidRequest,
    NotFound,
    OutcomeUnknown,
    TerminalError,
    TransientError,
)  # fmt: skip
from dispute_evidence.sandbox import SandboxConfig
from tests.conftest import TOKEN, seed_rows

EVIDENCE = Evidence.model_validate({
    "products": [{"product_title": "Linen shirt", "price": 49.5, "quantity": 2, "currency_code": "USD"}],
    "merchant_profile": {"merchant_id": "m_1", "merchant_name": "Acme", "merchant_website": "https://acme.test"},
    "shipping_tracking_numbers": ["1Z999AA10123456784"],
    "additional_evidence": {"order_number": "1001"},
})  # fmt: skip


def client_for(sb, **kw) -> DisputeEvidenceClient:
    kw.setdefault("backoff_base", 0.01)
    kw.setdefault("rate_limit_per_hour", 1_000_000)
    return DisputeEvidenceClient(sb.base_url, kw.pop("token", TOKEN), **kw)


@pytest.fixture
def pdf(tmp_path):
    p = tmp_path / "receipt.pdf"
    p.write_bytes(b"%PDF-1.4\n% receipt\n")
    return p


async def test_every_endpoint(sandbox, pdf):
    async with client_for(sandbox) as c:
        disputes = await c.list_disputes(limit=2)
        assert len(disputes) == 2 and disputes[0].object == "dispute"
        one = await c.get_dispute(disputes[0].id)
        assert one.id == disputes[0].id and one.response_due_by is not None
        res = await c.update_evidence("dp_test_0", EVIDENCE)
        assert res.provider_dispute_id == "dp_test_0"
        assert (await c.get_dispute(res.dispute_id)).evidence == EVIDENCE.model_dump(
            mode="json", exclude_none=True
        )
        up = await c.upload_file("dp_test_0", pdf)
        assert up.file.name == "receipt.pdf" and up.dispute_id == res.dispute_id
        files = await c.list_files(res.dispute_id)
        assert [f.id for f in files] == [up.file.id] and files[0].file_type == "application/pdf"


async def test_pagination_walks_every_page(sandbox_factory, pdf):
    sb = sandbox_factory(rows=seed_rows(53))
    async with client_for(sb) as c:
        ids = [d.id async for d in c.iter_disputes(page_size=7)]
        assert len(ids) == 53 == len(set(ids))
        res = None
        for i in range(12):
            res = await c.upload_file("dp_test_5", pdf, file_name=f"r{i}.pdf")
        names = [f.file_name async for f in c.iter_files(res.dispute_id, page_size=5)]
        assert names == [f"r{i}.pdf" for i in range(12)]


async def test_error_types(sandbox, tmp_path):
    async with client_for(sandbox, token="sk_wrong_token_77") as bad:
        with pytest.raises(AuthenticationFailed) as info:
            await bad.list_disputes()
        assert info.value.status == 401 and isinstance(info.value, TerminalError)
        assert "sk_wrong_token_77" not in str(info.value) + repr(info.value) + repr(bad)
    async with client_for(sandbox) as c:
        with pytest.raises(NotFound) as nf:
            await c.get_dispute("dis_nope")
        assert nf.value.status == 404 and nf.value.param == "dispute_id"
        with pytest.raises(NotFound):
            await c.update_evidence("dp_unknown", EVIDENCE)
        with pytest.raises(InvalidRequest) as inv:
            await c.list_disputes(limit=101)  # refused locally, before a request
        assert inv.value.param == "limit" and inv.value.status is None
        exe = tmp_path / "invoice.pdf"
        exe.write_bytes(b"MZ\x90\x00" + b"\x00" * 100)
        before = c.stats.attempts
        with pytest.raises(FileRejected) as fr:
            await c.upload_file("dp_test_0", exe)
        assert "not PDF, PNG or JPG" in str(fr.value) and c.stats.attempts == before


async def test_server_side_invalid_request_carries_param_and_code(sandbox_factory, tmp_path):
    rows = [{**seed_rows(1, "dp_closed_")[0], "status": "lost"}]
    sb = sandbox_factory(rows=rows)
    async with client_for(sb) as c:
        with pytest.raises(InvalidRequest) as info:
            await c.update_evidence("dp_closed_0", EVIDENCE)
    assert info.value.status == 400 and info.value.code == "dispute_closed"
    assert info.value.param == "provider_dispute_id" and c.stats.attempts == 1  # never retried


async def test_oversize_file_refused_locally(sandbox, tmp_path):
    big = tmp_path / "big.pdf"
    big.write_bytes(b"%PDF-1.4" + b"\x00" * 10_000_000)
    async with client_for(sandbox) as c:
        with pytest.raises(FileRejected, match="over the 10 MB limit"):
            await c.upload_file("dp_test_0", big)
        # a stored copy is named by its hash: the line names the file as the API would
        with pytest.raises(FileRejected, match="^dp_test_0-evidence-packet.pdf: .* over the 10 MB"):
            await c.upload_file("dp_test_0", big, file_name="dp_test_0-evidence-packet.pdf")
        assert c.stats.attempts == 0


async def test_retries_under_injected_5xx(sandbox_factory):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), fail_rate=0.5, seed=7))
    async with client_for(sb, max_attempts=10) as c:
        results = await asyncio.gather(*(c.list_disputes() for _ in range(20)))
    assert all(len(r) == 3 for r in results)
    assert c.stats.retries > 0 and c.stats.attempts == 20 + c.stats.retries


async def test_5xx_exhausted_is_transient_api_unavailable(sandbox_factory):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), fail_rate=1.0))
    async with client_for(sb, max_attempts=3) as c:
        with pytest.raises(ApiUnavailable) as info:
            await c.list_disputes()
    assert isinstance(info.value, TransientError) and c.stats.attempts == 3


async def test_retry_count_and_waits_are_pinned(sandbox_factory):
    """max_attempts counts every attempt, the first included: N attempts, N-1 retries, each
    retry after its own backoff (1st, 2nd, 3rd: base, 2*base, 4*base at full jitter)."""
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), fail_rate=1.0))
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async with client_for(sb, max_attempts=4, backoff_base=1.0, sleep=sleep) as c:
        c._transport._rand = lambda: 1.0
        with pytest.raises(ApiUnavailable):
            await c.list_disputes()
    assert (c.stats.attempts, c.stats.retries) == (4, 3)
    assert waits == [1.0, 2.0, 4.0]


async def test_ambiguous_upload_is_outcome_unknown_and_not_repeated(sandbox_factory, pdf):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), ambiguous_rate=1.0, seed=3))
    async with client_for(sb) as c:
        kinds = []
        for _ in range(6):
            with pytest.raises(OutcomeUnknown) as info:
                await c.upload_file("dp_test_0", pdf)
            kinds.append(type(info.value.cause).__name__)
        assert c.stats.attempts == 6  # one attempt each: never blindly repeated
    assert len(sb.snapshot()["dp_test_0"]["files"]) == 6  # each one did land
    assert {"ApiUnavailable"} < set(kinds) or len(set(kinds)) == 2


async def test_ambiguous_evidence_update_is_repeated_until_answered(sandbox_factory):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), ambiguous_rate=0.5, seed=4))
    async with client_for(sb, max_attempts=20) as c:
        for _ in range(5):
            await c.update_evidence("dp_test_1", EVIDENCE)
    snap = sb.snapshot()["dp_test_1"]
    assert snap["evidence"] == EVIDENCE.model_dump(mode="json", exclude_none=True)
    assert snap["evidence_updates"] == c.stats.attempts


async def test_hang_times_out(sandbox_factory, pdf):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), hang_rate=1.0, hang_seconds=2.0))
    async with client_for(sb, timeout=0.2, upload_timeout=0.2, max_attempts=2) as c:
        with pytest.raises(ApiTimeout):
            await c.list_disputes()
        with pytest.raises(OutcomeUnknown):
            await c.upload_file("dp_test_0", pdf)


async def test_429_pauses_every_concurrent_caller(sandbox_factory):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), rate_limit=4, rate_window=2.0))
    starts: list[float] = []
    pauses: list[tuple[float, float]] = []
    async with client_for(sb, max_attempts=10, max_concurrency=10) as c:
        pacer = c._transport.pacer
        orig_acquire, orig_pause = pacer.acquire, pacer.pause

        async def recording_acquire():
            await orig_acquire()
            starts.append(time.monotonic())

        def recording_pause(seconds):
            pauses.append((time.monotonic(), seconds))
            orig_pause(seconds)

        pacer.acquire, pacer.pause = recording_acquire, recording_pause
        results = await asyncio.gather(*(c.list_disputes() for _ in range(10)))
    assert all(len(r) == 3 for r in results)
    assert c.stats.rate_limited >= 1 and pauses and all(s >= 1 for _, s in pauses)
    for at, seconds in pauses:  # no caller, whichever got the 429, started inside a pause
        assert not [t for t in starts if at < t < at + seconds - 0.01]
    assert sb.snapshot  # the server saw every request through to success


@pytest.mark.integration
async def test_connection_refused_is_transient(unused_tcp_port):
    async with DisputeEvidenceClient(f"http://127.0.0.1:{unused_tcp_port}/v1", TOKEN, max_attempts=2,
                                     backoff_base=0.01) as c:  # fmt: skip
        with pytest.raises(TransientError):
            await c.list_disputes()


async def test_token_never_logged(sandbox_factory, caplog):
    caplog.set_level(logging.DEBUG)
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), fail_rate=0.5, seed=1))
    async with client_for(sb, max_attempts=10) as c:
        await c.list_disputes()
        await c.update_evidence("dp_test_0", EVIDENCE)
    assert TOKEN not in caplog.text and TOKEN not in repr(c.settings) and TOKEN not in repr(c)


def test_plain_http_refused_off_loopback():
    with pytest.raises(ValueError, match="only allowed for loopback"):
        DisputeEvidenceClient("http://api.example.com/v1", "tok")
    DisputeEvidenceClient("https://api.example.com/v1", "tok")
    DisputeEvidenceClient("http://[::1]:8000/v1", "tok")


def test_settings_from_environment(monkeypatch):
    monkeypatch.setenv("DISPUTE_API_BASE_URL", "https://api.example.com/v1/")
    monkeypatch.setenv("DISPUTE_API_TOKEN", "sk_env_secret")
    monkeypatch.setenv("DISPUTE_API_RATE_LIMIT_PER_HOUR", "1200")
    c = DisputeEvidenceClient()
    assert (
        c.settings.base_url == "https://api.example.com/v1"
        and c.settings.rate_limit_per_hour == 1200
    )
    assert "sk_env_secret" not in repr(c.settings)


async def test_upload_answered_503_is_retried_and_lands_once(sandbox_factory, pdf):
    sb = sandbox_factory(
        SandboxConfig(tokens=(TOKEN,), fail_rate=0.5, seed=2)
    )  # 503 before doing anything
    async with client_for(sb, max_attempts=12) as c:
        for i in range(6):
            await c.upload_file("dp_test_0", pdf, file_name=f"r{i}.pdf")
        assert c.stats.retries > 0
    assert sorted(f["file_name"] for f in sb.snapshot()["dp_test_0"]["files"]) == [
        f"r{i}.pdf" for i in range(6)
    ]
