"""The standing's kept counts (engine/reporting/standing_kept.py) against a full recompute over
every record, night after night of generated exports: charges on several brands and statuses,
a month with no transactions, exports dropped again with rows changed (a charge failed, moved
to another month, on another brand), disputes and fraud reports, an orders-only start. And the
CE 3.0 coverage kept as of its day, worked out again when the history grew or a week passed."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest

from dispute_evidence.engine.reporting.standing_kept import HISTORY, kept_coverage
from dispute_evidence.engine.reporting.standing_read import merchant_standing
from dispute_evidence.evidence.ce3 import transactions
from dispute_evidence.policies import StandingPolicy
from dispute_evidence.standing.ce3_coverage import coverage
from dispute_evidence.standing.counts import StandingInputs, standing
from dispute_evidence.state.store import StateStore
from tests.support.examples import some

NOW = datetime(2026, 7, 10, 12, tzinfo=UTC)
MONTHS = ["2026-01", "2026-02", "2026-04", "2026-05", "2026-06", "2026-07"]  # none in March
BRANDS = ["Visa", "MasterCard", "American Express", "Discover", "JCB", ""]
STATUSES = ["Paid", "Paid", "Paid", "failed", "Refunded", "canceled"]
POLICY = StandingPolicy()


def full_standing(store: StateStore) -> pd.DataFrame:
    """The standing worked out from every record, as before anything was kept."""
    r = store.records.load_records(["disputes", "payments", "orders", "fraud_warnings"])
    given = not r["fraud_warnings"].empty or "fraud_warnings" in store.records.kinds_read()
    inputs = StandingInputs(
        disputes=r["disputes"],
        payments=r["payments"] if not r["payments"].empty else None,
        orders=r["orders"] if not r["orders"].empty else None,
        fraud=r["fraud_warnings"] if given else None,
        opened=store.standing.opened_dates(),
        ce3_qualified=store.standing.ce3_qualified(),
        api_status=store.standing.api_statuses(),
    )
    result = standing(inputs, POLICY, NOW)
    return result.table, result.notes


def charge(rng: random.Random, i: int) -> dict[str, str]:
    month = rng.choice(MONTHS)
    row = {"payment_id": f"ch_{i}", "order_number": f"{i}", "paid_at": f"{month}-0{rng.randint(1, 9)}T10:00:00Z",
           "payment_status": rng.choice(STATUSES), "card_brand": rng.choice(BRANDS),
           "captured": rng.choice(["true", "true", "false"]), "dispute_reason": "",
           "dispute_date": "", "dispute_status": ""}  # fmt: skip
    if rng.random() < 0.15:
        row.update(dispute_reason="fraudulent", dispute_date=f"{rng.choice(MONTHS)}-20T00:00:00Z")
    return row


def changed(rng: random.Random, row: dict[str, str]) -> dict[str, str]:
    """The row as a later export of the same charges has it: failed, moved, rebranded, or its
    dispute gone or come."""
    row = dict(row)
    what = rng.randrange(4)
    if what == 0:
        row["payment_status"] = "failed" if row["payment_status"] == "Paid" else "Paid"
    elif what == 1:
        row["paid_at"] = f"{rng.choice(MONTHS)}-15T10:00:00Z"
    elif what == 2:
        row["card_brand"] = rng.choice(BRANDS)
    else:
        row["dispute_reason"] = "" if row["dispute_reason"] else "product_not_received"
    return row


def ingest(store: StateStore, name: str, records: dict[str, pd.DataFrame]) -> None:
    store.records.record_ingest(name.encode().hex().ljust(64, "0")[:64], name, "r", records, [])


@pytest.mark.parametrize("seed", some([1, 2, 3]))  # seed 1 only in make test-fast
def test_the_kept_counts_equal_a_full_recompute_night_after_night(tmp_path, seed):
    rng, exports, n = random.Random(seed), [], 0
    with StateStore(tmp_path / "s.sqlite3") as store:
        orders = pd.DataFrame([{"order_number": f"o{i}", "order_date": f"{rng.choice(MONTHS)}-03",
                                "financial_status": rng.choice(["paid", "voided"])}
                               for i in range(40)])  # fmt: skip
        ingest(store, "orders-0.csv", {"orders": orders})  # orders only: network `all`
        for night in range(12):
            rows = [charge(rng, n + i) for i in range(25)]
            n += 25
            exports.append(rows)
            ingest(store, f"payments-{night}.csv", {"payments": pd.DataFrame(rows)})
            if night % 3 == 2:  # an earlier export dropped again, some of its rows changed
                again = [changed(rng, r) if rng.random() < 0.4 else r for r in rng.choice(exports)]
                ingest(store, f"payments-{night}-again.csv", {"payments": pd.DataFrame(again)})
            listed = [r for r in rows if r["dispute_reason"] and rng.random() < 0.7]
            ingest(store, f"disputes-{night}.csv", {"disputes": pd.DataFrame(
                [{"provider_dispute_id": f"dp_{r['payment_id']}", "order_number": r["order_number"],
                  "network_reason_code": "", "dispute_date": ""} for r in listed],
                columns=["provider_dispute_id", "order_number", "network_reason_code", "dispute_date"])})  # fmt: skip
            if night == 5:
                fraud = [{"payment_id": r["payment_id"], "reported_at": f"{rng.choice(MONTHS)}-11"}
                         for r in rng.sample(rows, 5)]  # fmt: skip
                ingest(store, "fraud.csv", {"fraud_warnings": pd.DataFrame(fraud)})
            kept = merchant_standing(store, POLICY, NOW, ce3=False)
            table, notes = full_standing(store)
            pd.testing.assert_frame_equal(kept.table, table, check_dtype=False)
            assert kept.notes == notes
        assert "2026-03" in set(table["month"])  # a month with disputes and no transactions
        assert store.standing.standing_counts().seen == store.scoped.latest_ingest()


def test_a_row_dropped_again_with_a_change_changes_the_kept_count(tmp_path):
    paid = {"payment_id": "ch_1", "order_number": "1", "paid_at": "2026-02-05T10:00:00Z",
            "payment_status": "Paid", "card_brand": "Visa", "captured": "true"}  # fmt: skip
    other = {**paid, "payment_id": "ch_2", "order_number": "2"}

    def kept(store: StateStore) -> dict[tuple[str, str], int]:
        merchant_standing(store, POLICY, NOW, ce3=False)
        c = store.standing.standing_counts().counts
        return {(m, n): int(t) for m, n, t in zip(c["month"], c["network"], c["transactions"], strict=True)}  # fmt: skip

    with StateStore(tmp_path / "s.sqlite3") as store:
        ingest(store, "payments-1.csv", {"payments": pd.DataFrame([paid, other])})
        assert kept(store) == {("2026-02", "visa"): 2}
        moved = {**paid, "paid_at": "2026-04-05T10:00:00Z"}
        ingest(store, "payments-2.csv", {"payments": pd.DataFrame([moved, other])})
        assert kept(store) == {("2026-02", "visa"): 1, ("2026-04", "visa"): 1}
        ingest(
            store,
            "payments-3.csv",
            {"payments": pd.DataFrame([{**moved, "payment_status": "failed"}])},
        )
        assert kept(store) == {("2026-02", "visa"): 1}
        ingest(
            store,
            "payments-4.csv",
            {"payments": pd.DataFrame([{**other, "card_brand": "MasterCard"}])},
        )
        assert kept(store) == {("2026-02", "mastercard"): 1}


def test_a_standing_not_kept_leaves_the_state_as_it_was(tmp_path):
    row = {"payment_id": "ch_1", "order_number": "1", "paid_at": "2026-02-05T10:00:00Z",
           "payment_status": "Paid", "card_brand": "Visa"}  # fmt: skip
    with StateStore(tmp_path / "s.sqlite3") as store:
        ingest(store, "payments-1.csv", {"payments": pd.DataFrame([row])})
        shown = merchant_standing(store, POLICY, NOW, ce3=False, keep=False)
        assert list(shown.table["transactions"][shown.table["network"] == "visa"]) == [1]
        assert (
            store.standing.standing_counts().seen == 0
            and store.standing.standing_counts().counts.empty
        )


def orders_with(n: int, start: int, ip: bool) -> pd.DataFrame:
    return pd.DataFrame([{"order_number": f"{start + i}", "order_date": "2026-05-01",
                          "price": 10.0, "quantity": 1, "financial_status": "paid",
                          "customer_ip": "81.2.69.160" if ip else ""} for i in range(n)])  # fmt: skip


def full_coverage(store: StateStore, now: datetime):
    records = {
        kind: store.records.load_records([kind], cols)[kind] for kind, cols in HISTORY.items()
    }
    return coverage(transactions(records), now)


def test_the_ce3_coverage_is_kept_as_of_its_day_until_the_history_grows_or_a_week_passes(
    tmp_path,
):
    with StateStore(tmp_path / "s.sqlite3") as store:
        ingest(store, "orders-1.csv", {"orders": orders_with(100, 0, ip=False)})
        first = kept_coverage(store, NOW)
        assert first.as_of == "2026-07-10" and first.lines[0].startswith("as of 2026-07-10")
        assert first.with_element["customer_ip"] == 0
        ingest(store, "orders-2.csv", {"orders": orders_with(4, 100, ip=True)})  # 4%: kept
        later = kept_coverage(store, NOW + timedelta(days=1))
        assert later.as_of == "2026-07-10" and later.with_element["customer_ip"] == 0
        ingest(store, "orders-3.csv", {"orders": orders_with(2, 104, ip=True)})  # 6% since
        grown = kept_coverage(store, NOW + timedelta(days=2))
        assert grown.as_of == "2026-07-12" and grown.with_element["customer_ip"] == 6
        assert grown.with_element == full_coverage(store, NOW).with_element
        assert kept_coverage(store, NOW + timedelta(days=8)).as_of == "2026-07-12"
        assert kept_coverage(store, NOW + timedelta(days=9)).as_of == "2026-07-19"


def test_an_empty_fraud_sheet_is_told_from_none(tmp_path):
    row = {"payment_id": "ch_1", "order_number": "1", "paid_at": "2026-02-05T10:00:00Z",
           "payment_status": "Paid", "card_brand": "Visa"}  # fmt: skip
    with StateStore(tmp_path / "s.sqlite3") as store:
        ingest(store, "payments-1.csv", {"payments": pd.DataFrame([row])})
        store.records.record_ingest(
            "f" * 64, "orders_fraud_warnings.csv", "r", {}, [{"kind": "orders"}]
        )
        notes = merchant_standing(store, POLICY, NOW, ce3=False).notes
        assert "fraud reports: not in your exports; the ratio counts disputes only" in notes
        store.records.record_ingest(
            "e" * 64, "efw.csv", "r", {}, [{"kind": "fraud_warnings", "rows": 0}]
        )
        notes = merchant_standing(store, POLICY, NOW, ce3=False).notes
        assert "fraud reports: your fraud-warnings sheet lists none" in notes
        assert notes == full_standing(store)[1]


def test_counts_kept_by_another_process_meanwhile_are_not_added_twice(tmp_path):
    row = {"payment_id": "ch_1", "order_number": "1", "paid_at": "2026-02-05T10:00:00Z",
           "payment_status": "Paid", "card_brand": "Visa"}  # fmt: skip
    with StateStore(tmp_path / "s.sqlite3") as store:
        ingest(store, "payments-1.csv", {"payments": pd.DataFrame([row])})
        change = pd.DataFrame([{"source": "payments", "month": "2026-02", "network": "visa",
                                "descriptor": "", "transactions": 1}])  # fmt: skip
        assert store.standing.keep_standing_counts(0, 1, change, set(), set())
        assert not store.standing.keep_standing_counts(0, 1, change, set(), set())  # the slower one
        assert list(store.standing.standing_counts().counts["transactions"]) == [1]
        table = merchant_standing(store, POLICY, NOW, ce3=False).table
        assert list(table.loc[table["network"] == "visa", "transactions"]) == [1]
