"""The merchant's standing on generated histories whose answers are known: the ratio per month
and network, the programs' floors and dates, the CE 3.0 what-if, Mastercard's last-month
denominator, the projection, the fraud sheet absent or empty, a month without transactions."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pandas as pd
import pytest

from dispute_evidence.policies import StandingPolicy
from dispute_evidence.standing.counts import COLUMNS, StandingInputs, standing
from dispute_evidence.standing.inputs import card_network, code_network

_ids = itertools.count(1)
NOW = datetime(2026, 8, 1, tzinfo=UTC)  # every month below is wholly past


def charges(month: str, brand: str, n: int, **extra: str) -> list[dict[str, str]]:
    """`n` settled charges in `month` on `brand`, each its own order."""
    rows = []
    for _ in range(n):
        i = next(_ids)
        rows.append({"payment_id": f"ch_{i}", "order_number": f"{i}", "paid_at": f"{month}-05T10:00:00Z",
                     "payment_status": "Paid", "card_brand": brand, "captured": "true", **extra})  # fmt: skip
    return rows


def disputed(month: str, brand: str, n: int) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """`n` disputes opened in `month` on charges of `brand` paid the month before: (charges,
    disputes list rows)."""
    paid = charges(
        "2026-01", brand, n, dispute_reason="fraudulent", dispute_date=f"{month}-20T00:00:00Z"
    )
    listed = [{"provider_dispute_id": f"dp_{c['order_number']}", "order_number": c["order_number"]}
              for c in paid]  # fmt: skip
    return paid, listed


def frame(rows: list[dict[str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows).fillna("")


def row(table: pd.DataFrame, month: str, network: str) -> dict[str, object]:
    found = table.loc[(table["month"] == month) & (table["network"] == network)]
    assert len(found) == 1, (month, network)
    return found.iloc[0].to_dict()


def history() -> StandingInputs:
    """May 2026: 1,000 Visa and 200 Mastercard charges; June: 800 Visa, 100 Mastercard.
    May: 10 Visa disputes and 5 Visa fraud reports; June: 8 Visa disputes, 3 Mastercard
    chargebacks (known by their reason code only: no charge of theirs in the export)."""
    pay = charges("2026-05", "Visa", 1000) + charges("2026-05", "MasterCard", 200)
    pay += charges("2026-06", "Visa", 800) + charges("2026-06", "MasterCard", 100)
    may_paid, may_list = disputed("2026-05", "Visa", 10)
    june_paid, june_list = disputed("2026-06", "Visa", 8)
    mc = [{"provider_dispute_id": f"dp_mc{i}", "order_number": f"mc{i}", "network_reason_code": "4853",
           "dispute_date": "2026-06-11"} for i in range(3)]  # fmt: skip
    fraud = [
        {"payment_id": c["payment_id"], "reported_at": "2026-05-12T00:00:00Z"} for c in pay[:5]
    ]
    return StandingInputs(
        disputes=frame(may_list + june_list + mc),
        payments=frame(pay + may_paid + june_paid),
        fraud=frame(fraud),
    )


def test_ratio_per_month_and_network():
    result = standing(history(), StandingPolicy(), NOW)
    table = result.table
    assert list(result.file_rows().columns) == COLUMNS
    may, june = row(table, "2026-05", "visa"), row(table, "2026-06", "visa")
    # the disputed charges were paid in January: those months count them as transactions
    assert (may["transactions"], may["disputes"], may["fraud_reports"]) == (1000, 10, 5)
    assert may["ratio_percent"] == pytest.approx(1.5)  # (10 + 5) / 1,000
    assert june["ratio_percent"] == pytest.approx(1.0)  # 8 / 800
    assert may["threshold_percent"] == june["threshold_percent"] == 1.5  # from 1 April 2026
    assert any("fraud reports: 5 from your fraud-warnings sheet" in n for n in result.notes)


def test_mastercard_divides_by_last_months_transactions():
    table = standing(history(), StandingPolicy(), NOW).table
    june = row(table, "2026-06", "mastercard")
    assert june["transactions"] == 200  # May's, not June's 100
    assert june["disputes"] == 3
    assert june["ratio_percent"] == pytest.approx(1.5)  # 3 / 200, not 3 / 100
    may = row(table, "2026-05", "mastercard")  # April: no Mastercard charge in the exports
    assert may["ratio_percent"] != may["ratio_percent"]  # NaN: no ratio
    assert "no Mastercard transactions the month before" in may["note"]


def test_the_floor_keeps_a_small_merchant_from_over_and_says_so():
    table = standing(history(), StandingPolicy(), NOW).table
    may = row(table, "2026-05", "visa")  # 1.5%: at Visa's threshold, 15 events << 1,501
    assert may["status"] == "watch"
    assert "below its 1,501-a-month floor; the program does not name you" in may["note"]
    june_mc = row(table, "2026-06", "mastercard")  # 1.5% with 3 chargebacks (< 100)
    assert june_mc["status"] == "watch"
    low_floor = StandingPolicy(floors={"visa": 10, "mastercard": 3})
    table = standing(history(), low_floor, NOW).table
    assert row(table, "2026-05", "visa")["status"] == "over"
    assert row(table, "2026-06", "mastercard")["status"] == "over"
    assert row(table, "2026-06", "visa")["status"] == "watch"  # 1.0%: over 0.9, under 1.5


def test_each_month_is_held_to_the_threshold_in_force_then():
    policy = StandingPolicy()
    assert policy.threshold("visa", "2026-03") == 2.2
    assert policy.threshold("visa", "2026-04") == 1.5
    assert policy.threshold("visa", "2025-01") == 2.2  # before the first entry: the first
    assert policy.threshold("all", "2026-05") == 1.5  # no brand known: Visa's, the strictest
    assert policy.threshold("amex", "2026-05") is None  # no program figure by default


def test_ce3_qualified_fraud_leaves_the_visa_what_if():
    base = history()
    may_disputes = base.disputes.iloc[:10]
    covered = frozenset(may_disputes["provider_dispute_id"].iloc[:2])
    # one fraud report on a covered dispute's charge: VAMP leaves both out
    charge = base.payments.loc[
        base.payments["order_number"] == may_disputes["order_number"].iloc[0], "payment_id"
    ].iloc[0]
    fraud = pd.concat([base.fraud, frame([{"payment_id": charge, "reported_at": "2026-05-13"}])])
    inputs = StandingInputs(base.disputes, base.payments, fraud=fraud, ce3_qualified=covered)
    may = row(standing(inputs, StandingPolicy(), NOW).table, "2026-05", "visa")
    assert may["ratio_percent"] == pytest.approx(1.6)  # (10 + 6) / 1,000
    assert may["ratio_without_ce3_percent"] == pytest.approx(1.3)  # (16 - 2 - 1) / 1,000


def test_the_month_so_far_is_projected_to_its_end():
    now = datetime(2026, 6, 10, tzinfo=UTC)  # 9 of June's 30 days gone: 0.3 of the month
    table = standing(history(), StandingPolicy(), now).table
    visa = row(table, "2026-06", "visa")  # 8 / 800 so far: the same ratio at the same pace
    assert visa["projected_events"] == 27  # 8 / 0.3
    assert visa["projected_percent"] == pytest.approx(1.0, abs=0.01)
    mc = row(table, "2026-06", "mastercard")  # 3 so far over May's fixed 200
    assert mc["projected_events"] == 10
    assert mc["projected_percent"] == pytest.approx(5.0)
    assert "month so far (to 10 June): at this pace 5.00%" in mc["note"]
    past = row(table, "2026-05", "visa")
    assert past["projected_percent"] == past["ratio_percent"]


def test_no_fraud_sheet_and_an_empty_one_are_said_apart():
    base = history()
    none = standing(StandingInputs(base.disputes, base.payments), StandingPolicy(), NOW)
    assert "fraud reports: not in your exports; the ratio counts disputes only" in none.notes
    assert row(none.table, "2026-05", "visa")["ratio_percent"] == pytest.approx(1.0)  # 10 / 1,000
    empty = pd.DataFrame(columns=["payment_id", "order_number", "reported_at", "fraud_type"])
    given = standing(
        StandingInputs(base.disputes, base.payments, fraud=empty), StandingPolicy(), NOW
    )
    assert "fraud reports: your fraud-warnings sheet lists none" in given.notes
    assert (given.table["fraud_reports"] == 0).all()


def test_a_month_without_transactions_has_no_ratio_and_says_so():
    pay = charges("2026-03", "Visa", 100) + charges("2026-05", "Visa", 100)
    april_paid, april_list = disputed("2026-04", "Visa", 2)  # paid in January
    inputs = StandingInputs(frame(april_list), frame(pay + april_paid))
    table = standing(inputs, StandingPolicy(), NOW).table
    april = row(table, "2026-04", "visa")
    assert april["transactions"] == 0 and april["disputes"] == 2
    assert april["ratio_percent"] != april["ratio_percent"]  # NaN, never inf
    assert april["status"] == "no ratio"
    assert april["note"] == "no transactions in your exports for this month: no ratio"
    assert row(table, "2026-02", "visa")["transactions"] == 0  # every month in between listed


def test_without_a_payments_export_the_orders_count_as_all():
    orders = frame([{"order_number": f"o{i}", "order_date": "2026-05-03T09:00:00Z",
                     "financial_status": "paid" if i < 400 else "voided"} for i in range(410)])  # fmt: skip
    # line items: the same order on two rows is one transaction
    orders = pd.concat([orders, orders.iloc[:50]])
    listed = frame([{"provider_dispute_id": "dp_a", "order_number": "o1", "dispute_date": "2026-05-30"},
                    {"provider_dispute_id": "dp_b", "order_number": "o2"}])  # fmt: skip
    result = standing(StandingInputs(listed, orders=orders, opened={"dp_b": "2026-05-31"}),
                      StandingPolicy(), NOW)  # fmt: skip
    assert result.table[["month", "network", "transactions", "disputes"]].values.tolist() == [
        ["2026-05", "all", 400, 2]
    ]
    assert row(result.table, "2026-05", "all")["ratio_percent"] == pytest.approx(0.5)
    assert any("from your orders export" in n for n in result.notes)


def test_a_dispute_opens_when_the_api_says_else_the_exports():
    paid, listed = disputed("2026-05", "Visa", 1)  # the payments export: 20 May
    listed[0]["dispute_date"] = "2026-04-02"  # the list: April (the payments export wins)
    base = StandingInputs(frame(listed), frame(paid))
    assert standing(base, StandingPolicy(), NOW).table["disputes"].tolist() == [0, 0, 0, 0, 1]
    pid = listed[0]["provider_dispute_id"]
    api = StandingInputs(frame(listed), frame(paid), opened={pid: "2026-03-30"})
    table = standing(api, StandingPolicy(), NOW).table
    assert row(table, "2026-03", "visa")["disputes"] == 1  # the API's initiated_at wins


def test_brands_and_reason_codes_name_their_network():
    brands = pd.Series(["Visa", "MasterCard", "American Express", "Discover", "JCB", ""])
    assert card_network(brands).tolist() == ["visa", "mastercard", "amex", "discover", "jcb", ""]
    codes = pd.Series(["10.4", "13.1", "4853", "F29", "UA02", "fraud", ""])
    assert code_network(codes).tolist() == [
        "visa",
        "visa",
        "mastercard",
        "amex",
        "discover",
        "",
        "",
    ]


def test_charges_that_never_settled_are_not_transactions():
    pay = charges("2026-05", "Visa", 10)
    pay += charges("2026-05", "Visa", 3, payment_status="Failed")
    pay += charges("2026-05", "Visa", 2, payment_status="Refunded", captured="false")  # voided
    pay += charges("2026-05", "Visa", 4, payment_status="Refunded")  # after capture: settled
    table = standing(StandingInputs(frame([]).assign(provider_dispute_id=[]), frame(pay)),
                     StandingPolicy(), NOW).table  # fmt: skip
    assert row(table, "2026-05", "visa")["transactions"] == 14


def test_disputes_only_in_the_payments_export_count_in_their_month_and_network():
    """May: 1,000 Visa charges; 10 Visa and 2 Mastercard charges disputed in the payments
    export (Dispute Date in May), of which the disputes list names 4 Visa ones."""
    pay = charges("2026-05", "Visa", 1000) + charges("2026-04", "MasterCard", 100)
    visa_paid, visa_list = disputed("2026-05", "Visa", 10)
    mc_paid, _ = disputed("2026-05", "MasterCard", 2)
    inputs = StandingInputs(
        disputes=frame(visa_list[:4]), payments=frame(pay + visa_paid + mc_paid)
    )
    result = standing(inputs, StandingPolicy(), NOW)
    assert row(result.table, "2026-05", "visa")["disputes"] == 10
    assert row(result.table, "2026-05", "mastercard")["disputes"] == 2
    assert any(
        n.startswith("8 dispute(s) found only in your payments export") for n in result.notes
    )


def test_disputes_resolved_before_a_chargeback_are_left_out_and_counted_in_the_notes():
    """10 listed Visa disputes in May: the API shows 2 as inquiries and 1 as prevented (RDR);
    one more, not read from the API, is an inquiry by the payments export's Dispute Status; and
    an unlisted charge is an inquiry too. 6 count; 5 are said to be left out."""
    pay = charges("2026-05", "Visa", 1000)
    paid, listed = disputed("2026-05", "Visa", 11)
    paid[3]["dispute_status"] = "warning_closed"
    paid[2]["dispute_reason"] = "product_not_received"  # RDR keeps out a non-fraud dispute only
    statuses = {listed[0]["provider_dispute_id"]: "warning_closed",
                listed[1]["provider_dispute_id"]: "warning_needs_response",
                listed[2]["provider_dispute_id"]: "prevented",
                listed[4]["provider_dispute_id"]: "lost"}  # fmt: skip
    paid[10]["dispute_status"] = "warning_under_review"  # its order is not in the list
    inputs = StandingInputs(disputes=frame(listed[:10]), payments=frame(pay + paid),
                            api_status=statuses)  # fmt: skip
    result = standing(inputs, StandingPolicy(), NOW)
    may = row(result.table, "2026-05", "visa")
    assert may["disputes"] == 6
    assert may["ratio_percent"] == 0.6  # 6 / the 1,000 May charges (the disputed: January)
    assert (
        "5 dispute(s) resolved before a chargeback (inquiry, or RDR on a non-fraud dispute) left out"
        in may["note"]
    )
    assert any(n.startswith("5 dispute(s) resolved before they became chargebacks")
               for n in result.notes)  # fmt: skip
