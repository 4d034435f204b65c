"""The read-back's rules at the unit tier: the real read_back and client, handed the in-memory
ledger (tests/support/fake_ledger.py, held to the store's contract) and an in-memory API
behind MockTransport. An ended status closes a dispute for good; one under review gets nothing
new; one with work whose status was not read this run is held; the read budget is never
exceeded; the API's deadline replaces the sheet's and the move is said; a listing is read
where it costs fewer requests than one read per dispute."""

from __future__ import annotations

from typing import Any

from dispute_evidence.api import DisputeEvidenceClient
from dispute_evidence.api.testing import HttpRequest, MockTransport, respond
from dispute_evidence.engine.delivery.api_readback import read_back
from dispute_evidence.policies import ReadPolicy
from tests.support.fake_ledger import FakeLedger

URL = "https://api.example.com/v1"
TOKEN = "sk_test_read_back_unit"


async def _no_wait(_seconds: float) -> None:
    return None


class Api:
    """The API's disputes by its id; GET /disputes pages them, GET /disputes/{id} reads one."""

    def __init__(self) -> None:
        self.disputes: dict[str, dict[str, Any]] = {}

    def add(self, api_id: str, status: str, due: str = "2026-12-20T23:59:59Z") -> None:
        self.disputes[api_id] = {"id": api_id, "object": "dispute", "status": status,
                                 "response_due_by": due}  # fmt: skip

    def __call__(self, request: HttpRequest):
        path = request.url.removeprefix(URL)
        if path == "/disputes":
            offset, limit = request.params["offset"], request.params["limit"]
            page = list(self.disputes.values())[offset : offset + limit]
            return respond(
                request, 200, {"data": page, "has_more": offset + limit < len(self.disputes)}
            )
        api_id = path.removeprefix("/disputes/")
        if api_id in self.disputes:
            return respond(request, 200, self.disputes[api_id])
        return respond(request, 404, {"error": {"type": "not_found", "message": api_id}})


def _sent(
    ledger: FakeLedger, pid: str, due: str = "2026-12-20T23:59:59Z", work: bool = False
) -> None:
    """A dispute whose evidence went to the API (its id known); `work`: a file still to send."""
    ledger.add_dispute(pid, b"{}", "h", due)
    ledger.transitions.mark_submitted(pid, submitted_hash="h", dispute_id=f"api_{pid}", attempts=1)
    if work:
        ledger.add_file(pid, "f" * 64, "receipt.pdf", "/blobs/f", 10)


async def _read(ledger: FakeLedger, api: Api, budget_per_hour: int = 5000, **policy: Any):
    transport = MockTransport(api)
    client = DisputeEvidenceClient(
        URL, TOKEN, transport=transport, sleep=_no_wait, rate_limit_per_hour=10**6
    )
    async with client:
        out = await read_back(
            ledger, client, ReadPolicy(**policy), budget_per_hour=budget_per_hour, run_id="r1"
        )
    return out, [r.url.removeprefix(URL) for r in transport.requests]


async def test_an_ended_status_closes_the_dispute_for_good():
    ledger, api = FakeLedger(), Api()
    _sent(ledger, "dp_1", work=True)
    api.add("api_dp_1", "won")
    out, _ = await _read(ledger, api)
    assert out.closed == [("dp_1", "won")]
    assert ledger.disputes.dispute("dp_1")["status"] == "closed"
    assert ledger.disputes.work_queue() == [], "nothing more is ever sent to it"


async def test_a_dispute_under_review_gets_nothing_new():
    ledger, api = FakeLedger(), Api()
    _sent(ledger, "dp_1", work=True)
    api.add("api_dp_1", "under_review")
    out, _ = await _read(ledger, api)
    assert (
        "under review" in out.held["dp_1"]
        and ledger.disputes.dispute("dp_1")["status"] == "submitted"
    )


async def test_work_whose_status_was_not_read_is_held_and_the_budget_is_kept():
    """A budget of 20 an hour gives 2 reads (10%): of five disputes with work, three are not
    read this run, and nothing new goes to them. (The API held 10,000 disputes at the last
    listing: reading each by id is cheaper than paging through them.)"""
    ledger, api = FakeLedger(), Api()
    ledger.readback.set_meta("api_dispute_count", "10000")
    for i in range(5):
        _sent(ledger, f"dp_{i}", due=f"2026-12-0{i + 1}T23:59:59Z", work=True)
        api.add(f"api_dp_{i}", "needs_response")
    out, asked = await _read(ledger, api, budget_per_hour=20)
    assert len(asked) == out.reads == 2 == out.budget
    assert asked == ["/disputes/api_dp_0", "/disputes/api_dp_1"], "the most urgent first"
    assert set(out.held) == {"dp_2", "dp_3", "dp_4"}
    assert all("not read this run" in why for why in out.held.values())


async def test_the_apis_deadline_replaces_the_sheets_and_the_move_is_said():
    ledger, api = FakeLedger(), Api()
    _sent(ledger, "dp_1", due="2026-12-20T23:59:59Z", work=True)
    api.add("api_dp_1", "needs_response", due="2026-12-18T23:59:59Z")
    out, _ = await _read(ledger, api)
    assert out.moved == [("dp_1", "2026-12-20T23:59:59Z", "2026-12-18T23:59:59Z")]
    assert ledger.disputes.dispute("dp_1")["response_due_by"] == "2026-12-18T23:59:59Z"
    assert ledger.rows.history == [("dp_1", "needs_response", "r1")]


async def test_a_listing_is_read_where_it_costs_fewer_requests():
    ledger, api = FakeLedger(), Api()
    for i in range(150):
        _sent(ledger, f"dp_{i:03}", work=True)
        api.add(f"api_dp_{i:03}", "needs_response")
    out, asked = await _read(ledger, api)
    assert asked == ["/disputes", "/disputes"] and out.listed_pages == 2 and out.fetched == 0
    assert out.held == {} and len(out.listed) == 150
    assert ledger.readback.get_meta("api_dispute_count") == "150"
