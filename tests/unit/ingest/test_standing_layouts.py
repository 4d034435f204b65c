"""What the merchant's standing reads from the exports: the payments export's dispute date and
capture, a disputes list's `initiated_at`, and the fraud-warnings sheets (Stripe's and ours)."""

from __future__ import annotations

from dispute_evidence.ingest import ingest_paths
from tests.support.export_layouts import CHARGE_1001, STRIPE_PAYMENTS, write_csv


def test_the_payments_export_gives_the_dispute_date_and_the_capture(tmp_path):
    f = write_csv(tmp_path / "unified_payments.csv", STRIPE_PAYMENTS, [CHARGE_1001])
    charge = ingest_paths([f], tmp_path).records["payments"].iloc[0]
    assert charge["dispute_date"] == "2025-06-01T10:00:00Z"
    assert charge["captured"] == "true"


def test_a_disputes_list_with_initiated_at_gives_its_opening_date(tmp_path):
    header = ["provider_dispute_id", "order_number", "initiated_at"]
    f = write_csv(
        tmp_path / "disputes.csv",
        header,
        [dict(zip(header, ["dp_1", "1001", "2026-05-04"], strict=True))],
    )
    dispute = ingest_paths([f], tmp_path).records["disputes"].iloc[0]
    assert dispute["dispute_date"] == "2026-05-04T00:00:00Z"


def test_stripes_early_fraud_warnings_are_a_fraud_warnings_table(tmp_path):
    header = ["id", "charge", "created", "fraud_type", "actionable"]
    rows = [
        dict(
            zip(
                header,
                ["issfr_1", "ch_3PxA1", "2026-05-12 08:00:00", "made_with_stolen_card", "false"],
                strict=True,
            )
        )
    ]
    f = write_csv(tmp_path / "early_fraud_warnings.csv", header, rows)
    res = ingest_paths([f], tmp_path)
    assert (res.files[0].kind, res.files[0].layout) == (
        "fraud_warnings",
        "Stripe early fraud warnings",
    )
    warning = res.records["fraud_warnings"].iloc[0]
    assert (warning["payment_id"], warning["reported_at"]) == ("ch_3PxA1", "2026-05-12T08:00:00Z")
    assert warning["fraud_type"] == "made_with_stolen_card"


def test_the_canonical_fraud_warnings_layout_takes_an_order_and_a_date(tmp_path):
    header = ["order_number", "reported_at", "fraud_type"]
    rows = [dict(zip(header, ["1001", "2026-05-12", "misc"], strict=True)),
            dict(zip(header, ["1002", "not a date", "misc"], strict=True))]  # fmt: skip
    f = write_csv(tmp_path / "fraud.csv", header, rows)
    res = ingest_paths([f], tmp_path)
    assert res.files[0].kind == "fraud_warnings"
    assert res.records["fraud_warnings"]["order_number"].tolist() == ["1001"]
    (bad,) = res.rejects  # one clear line naming the cell
    assert (bad.row, bad.column) == (3, "reported_at")
