"""The standing per statement descriptor (issue 46 item 5): Visa identifies a merchant per
descriptor and may aggregate several, so where the payments export carries one (Stripe's
`Statement Descriptor`) each month's figures are given per descriptor and for all together,
cold (a whole history) and night to night (the kept counts, v24), and in standing.csv."""

from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd

from dispute_evidence.engine.reporting.standing_read import merchant_standing
from dispute_evidence.ingest import ingest_paths
from dispute_evidence.policies import StandingPolicy
from dispute_evidence.reports.standing_files import page_rows, write_standing
from dispute_evidence.standing.counts import StandingInputs, standing
from dispute_evidence.state.store import StateStore
from tests.support.export_layouts import CHARGE_1001, STRIPE_PAYMENTS, write_csv
from tests.unit.engine.test_standing_kept import ingest
from tests.unit.evidence.test_standing import charges, disputed, frame

NOW = datetime(2026, 8, 1, tzinfo=UTC)  # May 2026 is wholly past
ONE, TWO = "SHOP*ONE", "SHOP*TWO"


def two_descriptors() -> StandingInputs:
    """May 2026, Visa: 1,000 charges under SHOP*ONE and 500 under SHOP*TWO; 10 fraud disputes
    opened in May on SHOP*ONE charges and 15 on SHOP*TWO ones (each paid in January); 5 fraud
    reports in May on SHOP*TWO charges that were not disputed.
    Known answer, May: SHOP*ONE (10 + 0) / 1,000 = 1.0%; SHOP*TWO (15 + 5) / 500 = 4.0%; all
    (25 + 5) / 1,500 = 2.0%. Each is at the acquirer's "excessive" tier (>= 0.70%): $8 per
    counted event, so $80, $160 and $240; none is `over` (VAMP's floor: 1,501 events)."""
    one = charges("2026-05", "Visa", 1000, statement_descriptor=ONE)
    two = charges("2026-05", "Visa", 500, statement_descriptor=f"  {TWO} ")  # as exported
    one_paid, one_listed = disputed("2026-05", "Visa", 10)
    two_paid, two_listed = disputed("2026-05", "Visa", 15)
    for c in one_paid:
        c["statement_descriptor"] = ONE
    for c in two_paid:
        c["statement_descriptor"] = TWO
    fraud = [
        {"payment_id": c["payment_id"], "reported_at": "2026-05-12T00:00:00Z"} for c in two[:5]
    ]
    return StandingInputs(
        disputes=frame(one_listed + two_listed),
        payments=frame(one + two + one_paid + two_paid),
        fraud=frame(fraud),
    )


def _may(rows: pd.DataFrame) -> dict[str, dict[str, object]]:
    may = rows.loc[(rows["month"] == "2026-05") & (rows["network"] == "visa")]
    return {str(r["descriptor"]): r for r in may.to_dict("records")}


def test_two_descriptors_have_their_figures_each_and_all_together():
    result = standing(two_descriptors(), StandingPolicy(), NOW)
    may = _may(result.rows())
    assert sorted(may) == ["SHOP*ONE", "SHOP*TWO", "all"]
    figures = {
        d: (
            r["transactions"],
            r["disputes"],
            r["fraud_reports"],
            r["ratio_percent"],
            r["acquirer_tier"],
            r["estimated_fine_usd"],
            r["status"],
        )
        for d, r in may.items()
    }
    assert figures == {
        "all": (1500, 25, 5, 2.0, "excessive", 240.0, "watch"),
        ONE: (1000, 10, 0, 1.0, "excessive", 80.0, "watch"),
        TWO: (500, 15, 5, 4.0, "excessive", 160.0, "watch"),
    }
    # the month's figures for all together are the table the alerts and the chart read
    assert set(result.table["descriptor"]) == {"all"}
    assert any(
        n.startswith("who is measured: 2 statement descriptors (SHOP*ONE, SHOP*TWO)")
        for n in result.notes
    )


def test_standing_csv_and_the_page_carry_each_descriptor(tmp_path):
    result = standing(two_descriptors(), StandingPolicy(), NOW)
    section = write_standing(result, tmp_path, NOW)
    # above the table (it scrolls sideways on a phone): each descriptor's tier and fine too
    assert (
        "Visa · SHOP*TWO 2026-05: acquirer's tier excessive; estimated fine $160 (20 counted events)"
        in (section.costs)
    )
    csv = pd.read_csv(tmp_path / "standing.csv", dtype=str, keep_default_na=False)
    assert list(csv.columns[:3]) == ["month", "network", "descriptor"]
    may = csv.loc[(csv["month"] == "2026-05") & (csv["network"] == "visa")]
    assert list(may["descriptor"]) == ["all", ONE, TWO]
    assert list(may["ratio_percent"]) == ["2.0", "1.0", "4.0"]
    shown = [r[1] for r in page_rows(result) if r[0] == "2026-05" and r[1].startswith("Visa")]
    assert shown == ["Visa", "Visa · SHOP*ONE", "Visa · SHOP*TWO"]


def test_one_descriptor_or_none_gives_the_figures_for_all_and_says_so():
    inputs = StandingInputs(
        disputes=frame([]).reindex(columns=["provider_dispute_id", "order_number"]),
        payments=frame(charges("2026-05", "Visa", 10, statement_descriptor=ONE)),
    )
    result = standing(inputs, StandingPolicy(), NOW)
    assert result.by_descriptor.empty and set(result.rows()["descriptor"]) == {"all"}
    assert any(
        n.startswith("who is measured: one statement descriptor, SHOP*ONE") for n in result.notes
    )
    bare = StandingInputs(disputes=inputs.disputes, payments=frame(charges("2026-05", "Visa", 10)))
    assert any(
        "your payments export carries no statement descriptor" in n
        for n in standing(bare, StandingPolicy(), NOW).notes
    )


def test_the_kept_counts_are_per_descriptor_night_after_night(tmp_path):
    """Night 1: the history above; night 2: 500 more SHOP*ONE charges in May. The kept counts
    (v24: by descriptor) give what a cold count of both exports gives: SHOP*ONE 10 / 1,500."""
    inputs = two_descriptors()
    more = frame(charges("2026-05", "Visa", 500, statement_descriptor=ONE))
    with StateStore(tmp_path / "s.sqlite3") as store:
        ingest(store, "disputes.csv", {"disputes": inputs.disputes})
        ingest(store, "fraud.csv", {"fraud_warnings": inputs.fraud})
        ingest(store, "payments-1.csv", {"payments": inputs.payments})
        first = _may(merchant_standing(store, StandingPolicy(), NOW, ce3=False).rows())
        ingest(store, "payments-2.csv", {"payments": more})
        second = _may(merchant_standing(store, StandingPolicy(), NOW, ce3=False).rows())
        kept = store.standing.standing_counts().counts
    assert (first[ONE]["ratio_percent"], first[TWO]["ratio_percent"]) == (1.0, 4.0)
    assert (second[ONE]["transactions"], second[ONE]["ratio_percent"]) == (1500, 0.667)
    assert (second["all"]["transactions"], second[TWO]["transactions"]) == (2000, 500)
    may = kept.loc[(kept["month"] == "2026-05") & (kept["network"] == "visa")]
    assert dict(zip(may["descriptor"], may["transactions"], strict=True)) == {ONE: 1500, TWO: 500}
    cold = standing(
        StandingInputs(
            disputes=inputs.disputes,
            fraud=inputs.fraud,
            payments=pd.concat([inputs.payments, more], ignore_index=True),
        ),
        StandingPolicy(),
        NOW,
    ).rows()
    assert _may(cold)[ONE]["ratio_percent"] == second[ONE]["ratio_percent"]


def test_the_stripe_export_gives_each_charges_statement_descriptor(tmp_path):
    f = write_csv(
        tmp_path / "unified_payments.csv",
        STRIPE_PAYMENTS,
        [{**CHARGE_1001, "Statement Descriptor": "SHOP*ONE"}],
    )
    charge = ingest_paths([f], tmp_path).records["payments"].iloc[0]
    assert charge["statement_descriptor"] == "SHOP*ONE"
