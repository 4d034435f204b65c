"""The submitter's exactly-once rules at the unit tier: the real Submitter and the real client,
handed an in-memory ledger (tests/support/fake_ledger.py, held to the store's contract by
tests/unit/state/test_ledger_contract.py) and an in-memory API behind the client's fake
transport (api/testing.py MockTransport). No socket, no database file: milliseconds a test.

Each rule is one test: a file is 'sending' before its upload leaves; an upload whose answer was
lost is looked up, never sent again when it landed; a file a dead run (or another API) left
'sending' is looked up before any upload; a dispute another live run holds is not touched; a
refused key stops the run with nothing more sent and the lease given back; an answer naming
another dispute is never recorded as this one's."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from itertools import count
from pathlib import Path
from typing import Any

import orjson
import pytest

from dispute_evidence.api import DisputeEvidenceClient
from dispute_evidence.api.testing import HttpRequest, MockTransport, respond
from dispute_evidence.engine.delivery.submit import RunAborted, Submitter
from tests.support.fake_ledger import FakeLedger

URL = "https://api.example.com/v1"
TOKEN = "sk_test_submitter_unit"
PAYLOAD = orjson.dumps({"products": [], "shipping_tracking_numbers": ["1Z999"]})
HASH = hashlib.sha256(PAYLOAD).hexdigest()


async def _no_wait(_seconds: float) -> None:
    return None


class Api:
    """The API's side: evidence per dispute, files per API dispute id, and what was asked."""

    def __init__(self, ledger: FakeLedger) -> None:
        self.ledger = ledger
        self.evidence: dict[str, Any] = {}
        self.files: dict[str, list[dict[str, Any]]] = {}
        self.ids = count(1)
        self.uploads = 0
        self.status_at_upload: list[str] = []  # the ledger's file status as each upload left
        self.lose_upload_answers = 0  # this many uploads land, but their answer is lost (500)
        self.refuse_key = False
        self.refused = 0  # requests answered 401
        self.answer_for: str | None = None  # answer evidence updates as this other dispute's

    def __call__(self, request: HttpRequest):
        if self.refuse_key:
            self.refused += 1
            return respond(
                request, 401, {"error": {"type": "authentication_error", "message": "bad key"}}
            )
        path = request.url.removeprefix(URL)
        if path == "/disputes/update-evidence":
            pid = request.json["provider_dispute_id"]
            self.evidence[pid] = request.json["evidence"]
            named = self.answer_for or pid
            return respond(
                request,
                200,
                {"message": "ok", "dispute_id": f"api_{named}", "provider_dispute_id": named},
            )
        if path == "/files/upload":
            return self._upload(request)
        if path == "/files":
            data = self.files.get(request.params["dispute_id"], [])
            page = data[
                request.params["offset"] : request.params["offset"] + request.params["limit"]
            ]
            return respond(request, 200, {"data": page, "has_more": False})
        return respond(request, 404, {"error": {"type": "not_found", "message": path}})

    def _upload(self, request: HttpRequest):
        fields = {o["name"]: (o.get("filename"), v) for o, _h, v in request.form._fields}
        pid, name = fields["provider_dispute_id"][1], fields["file"][0]
        self.uploads += 1
        self.status_at_upload += [
            f["status"] for f in self.ledger.disputes.files_of(pid) if f["file_name"] == name
        ]
        file_id = f"file_{next(self.ids)}"
        self.files.setdefault(f"api_{pid}", []).append({
            "id": file_id, "object": "file", "created_at": "2026-11-28T10:00:00Z",
            "url": f"{URL}/files/{file_id}", "file_name": name, "file_type": "pdf",
            "dispute_id": f"api_{pid}",
        })  # fmt: skip
        if self.lose_upload_answers:
            self.lose_upload_answers -= 1
            return respond(request, 500, {"error": {"type": "api_error", "message": "lost"}})
        summary = {"id": file_id, "url": f"{URL}/files/{file_id}", "name": name}
        return respond(request, 200, {"message": "ok", "dispute_id": f"api_{pid}", "provider_dispute_id": pid, "file": summary})  # fmt: skip


def _seed(tmp_path: Path, ledger: FakeLedger, pid: str = "dp_1", status: str = "pending") -> str:
    pdf = tmp_path / f"{pid}-receipt.pdf"
    pdf.write_bytes(b"%PDF-1.4\n% receipt of " + pid.encode() + b"\n%%EOF\n")
    sha = hashlib.sha256(pdf.read_bytes()).hexdigest()
    ledger.add_dispute(pid, PAYLOAD, HASH, "2099-12-01T23:59:59Z")
    ledger.add_file(pid, sha, "receipt.pdf", str(pdf), pdf.stat().st_size, status=status)
    return sha


async def _submit(ledger: FakeLedger, api: Api, **kwargs: Any):
    transport = MockTransport(api)
    client = DisputeEvidenceClient(
        URL, TOKEN, transport=transport, sleep=_no_wait, rate_limit_per_hour=10**6
    )
    now = lambda: datetime(2026, 11, 28, tzinfo=UTC)  # noqa: E731
    async with client:
        stats = await Submitter(ledger, client, concurrency=2, now=now, **kwargs).run()
    return stats, transport.requests


async def test_a_file_is_sending_before_its_upload_leaves(tmp_path):
    ledger = FakeLedger()
    _seed(tmp_path, ledger)
    api = Api(ledger)
    stats, _ = await _submit(ledger, api)
    assert api.status_at_upload == ["sending"], "durable before the request leaves"
    assert (stats.evidence_sent, stats.files_uploaded) == (1, 1)
    writes = [w for w in ledger.rows.writes]
    assert writes == [
        ("disputes", "dp_1", "submitted"),
        ("evidence_files", "dp_1/receipt.pdf", "sending"),
        ("evidence_files", "dp_1/receipt.pdf", "uploaded"),
    ]


async def test_an_upload_whose_answer_was_lost_is_looked_up_not_sent_again(tmp_path):
    ledger = FakeLedger()
    sha = _seed(tmp_path, ledger)
    api = Api(ledger)
    api.lose_upload_answers = 1  # it landed; the 500 hid it
    stats, requests = await _submit(ledger, api)
    assert api.uploads == 1, "an upload that landed is never sent again"
    assert [r.method + " " + r.url.removeprefix(URL) for r in requests].count("GET /files") == 1
    (f,) = ledger.disputes.files_of("dp_1")
    assert (f["sha256"], f["status"], f["remote_file_id"]) == (sha, "uploaded", "file_1")
    assert (stats.files_reconciled, stats.files_uploaded) == (1, 0)


async def test_a_file_left_sending_is_looked_up_before_any_upload(tmp_path):
    """A run died after marking it 'sending' (or the state switched to this API): whether it
    landed is asked first. Here it had not: it is sent, once."""
    ledger = FakeLedger()
    _seed(tmp_path, ledger, status="sending")
    ledger.transitions.mark_submitted(
        "dp_1", submitted_hash=HASH, dispute_id="api_dp_1", attempts=1
    )
    api = Api(ledger)
    stats, requests = await _submit(ledger, api)
    asked = [r.method + " " + r.url.removeprefix(URL) for r in requests]
    assert asked == ["GET /files", "POST /files/upload"], "looked up first, then sent once"
    assert stats.reconcile_checks == 1 and stats.files_uploaded == 1 and stats.evidence_sent == 0


async def test_a_file_left_sending_that_landed_is_recorded_not_resent(tmp_path):
    ledger = FakeLedger()
    _seed(tmp_path, ledger, status="sending")
    ledger.transitions.mark_submitted(
        "dp_1", submitted_hash=HASH, dispute_id="api_dp_1", attempts=1
    )
    api = Api(ledger)
    api.files["api_dp_1"] = [{
        "id": "file_9", "object": "file", "created_at": "2026-11-28T09:00:00Z",
        "url": f"{URL}/files/file_9", "file_name": "receipt.pdf", "file_type": "pdf",
        "dispute_id": "api_dp_1",
    }]  # fmt: skip
    stats, _ = await _submit(ledger, api)
    assert api.uploads == 0 and stats.files_reconciled == 1
    assert ledger.disputes.files_of("dp_1")[0]["remote_file_id"] == "file_9"


async def test_a_dispute_another_live_run_holds_is_not_touched(tmp_path):
    ledger = FakeLedger()
    _seed(tmp_path, ledger)
    assert ledger.locks.claim_and_load("dp_1", "elsewhere:1:other-run") is not None
    api = Api(ledger)
    stats, requests = await _submit(ledger, api)
    assert requests == [] and stats.locked == 1
    assert ledger.disputes.dispute("dp_1")["status"] == "pending"


async def test_a_refused_key_stops_with_nothing_more_sent_and_the_lease_given_back(tmp_path):
    ledger = FakeLedger()
    for pid in ("dp_1", "dp_2", "dp_3"):
        _seed(tmp_path, ledger, pid)
    api = Api(ledger)
    api.refuse_key = True
    with pytest.raises(RunAborted, match="refused the key"):
        await _submit(ledger, api)
    assert api.evidence == {} and api.uploads == 0
    assert api.refused == 1  # the first refusal stops the run: dp_2 and dp_3 are not tried
    assert all(d["lease_owner"] is None for d in ledger.rows.disputes.values())
    assert {d["status"] for d in ledger.rows.disputes.values()} == {"pending"}


async def test_an_answer_naming_another_dispute_is_never_recorded_as_this_one(tmp_path):
    ledger = FakeLedger()
    _seed(tmp_path, ledger)
    api = Api(ledger)
    api.answer_for = "dp_other"
    stats, _ = await _submit(ledger, api)
    d = ledger.disputes.dispute("dp_1")
    assert d["status"] == "rejected" and d["dispute_id"] is None and "dp_other" in d["detail"]
    assert api.uploads == 0 and stats.rejected == 1
