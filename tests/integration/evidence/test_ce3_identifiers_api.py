"""Visa CE 3.0 identifiers through a run against the sandbox: the API gets CE 3.0 only for the
real match, and every dispute once (the rules: tests/unit/evidence/test_ce3_identifiers.py)."""

from __future__ import annotations

from tests.unit.evidence.test_ce3_identifiers import charge, order, verdicts


def test_the_api_gets_ce3_only_for_the_real_match_and_every_dispute_once(sandbox_factory, tmp_path):
    """Through the engine against the sandbox: a good drop (real identifiers) beside disputes
    whose orders carry 0.0.0.0/unknown and a prefixed duplicate charge; each dispute gets one
    evidence update, and only the good one claims CE 3.0."""
    from dispute_evidence.policies import ReviewPolicy
    from dispute_evidence.state.store import StateStore
    from tests.conftest import seed_rows
    from tests.support.engine_helpers import engine_pass

    rows = seed_rows(3, prefix="dp_")
    for row, number in zip(rows, ("7000", "8000", "6000"), strict=True):
        row["provider_dispute_id"] = f"dp_{number}"
    sb = sandbox_factory(rows=rows)
    junk = {"customer_ip": "0.0.0.0", "device_id": "unknown", "customer_account_id": "n/a"}
    orders = [order("7000", 0), order("7001", 150), order("7002", 200)]
    orders += [order(n, d, **junk, card_fingerprint="fp_junk")
               for n, d in (("8000", 0), ("8001", 150), ("8002", 200))]  # fmt: skip
    orders += [order("6000", 0, card_fingerprint="fp_six"),
               order("6001", 150, card_fingerprint="fp_six")]  # fmt: skip
    charges = [charge(f"ch_{o['order_number']}", o["order_number"], d, card_fingerprint=o["card_fingerprint"])
               for o, d in zip(orders, (0, 150, 200, 0, 150, 200, 0), strict=False)]  # fmt: skip
    charges.append(charge("ch_6001", "SO-6001", 150, card_fingerprint="fp_six"))
    inbox = tmp_path / "inbox"
    verdicts(inbox, orders, charges, ["7000", "8000", "6000"])
    # dp_8000 and dp_6000 argue nothing but their CE 3.0 status: sent, not held as no-claim
    send_all = ReviewPolicy(hold_no_claim=False)
    with StateStore(tmp_path / "state.sqlite3") as store:
        engine_pass(store, sb.base_url, inbox, review=send_all)
        engine_pass(store, sb.base_url, inbox, review=send_all)  # a rerun sends nothing again
    snap = sb.snapshot()
    assert {pid: d["evidence_updates"] for pid, d in snap.items()} == {
        "dp_7000": 1, "dp_8000": 1, "dp_6000": 1
    }  # fmt: skip
    sent = {pid: d["evidence"]["additional_evidence"] for pid, d in snap.items()}
    assert [p["order_number"] for p in sent["dp_7000"]["visa_ce3"]["prior_transactions"]] == [
        "7001", "7002"
    ]  # fmt: skip
    assert "visa_ce3" not in sent["dp_8000"] and "visa_ce3" not in sent["dp_6000"]
