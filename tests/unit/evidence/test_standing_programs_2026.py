"""The standing counted as the programs count in late 2026 (issue 46; issue 45 items 4 and 11),
on generated histories whose answers are known: brands under their network, RDR leaving out
only non-fraud disputes, a fraud dispute counted twice or once, the acquirer's tiers and the
fines, the one-month exit, a month with no ratio, a month still to come."""

from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd
import pytest

from dispute_evidence.policies import StandingPolicy
from dispute_evidence.standing.counts import Counted, StandingInputs, standing, status_line
from tests.unit.evidence.test_standing import charges, disputed, frame, row

NOW = datetime(2026, 8, 1, tzinfo=UTC)  # every month below is wholly past


def test_every_spelling_of_a_brand_counts_under_its_network_and_the_rest_is_named():
    """May: Visa 10 as 'Visa', 'Visa Electron', 'Visa Debit', 'VISA_CREDIT'; Mastercard as
    'Maestro', 'Mastercard Debit', 'MC', 'Debit MasterCard'; Amex as 'american_express'; 3 JCB
    and 2 'Carte Blanche X' charges fall in no row, and the notes say so."""
    visa = ["Visa", "Visa Electron", "Visa Debit", "VISA_CREDIT"]
    mastercard = ["Maestro", "Mastercard Debit", "MC", "Debit MasterCard"]
    pay = [c for b in visa for c in charges("2026-05", b, 10)]
    pay += [c for b in mastercard for c in charges("2026-05", b, 5)]
    pay += charges("2026-05", "american_express", 7) + charges("2026-05", "JCB", 3)
    pay += charges("2026-05", "Carte Blanche X", 2)
    maestro_paid, maestro_listed = disputed("2026-05", "Maestro", 2)
    electron_paid, electron_listed = disputed("2026-05", "Visa Electron", 1)
    inputs = StandingInputs(
        disputes=frame(maestro_listed + electron_listed),
        payments=frame(pay + maestro_paid + electron_paid),
    )
    result = standing(inputs, StandingPolicy(), NOW)
    may = {n: row(result.table, "2026-05", n) for n in ("visa", "mastercard", "amex")}
    assert may["visa"]["transactions"] == 40 and may["visa"]["disputes"] == 1
    assert may["mastercard"]["disputes"] == 2  # Maestro: Mastercard's chargebacks
    assert may["amex"]["transactions"] == 7
    assert (
        "transactions: 75 settled charge(s) from your payments export, by card brand; in no "
        "row: 3 on JCB, which no program here counts, 2 on no known card brand or reason code; "
        "Mastercard: each month's row shows the month before's transactions, which its ratio "
        "divides by"  # May's 20 Mastercard charges are June's row: the row's count says so
    ) in result.notes


def test_a_fraud_dispute_rdr_resolved_counts_as_its_fraud_report_not_as_a_dispute():
    """May, 1,000 Visa charges: 4 fraud disputes RDR resolved (status prevented), 1 non-fraud
    one RDR resolved, 2 fraud disputes lost, and a refund outside RDR (status lost, refunded).
    No fraud-warnings sheet: the 4 prevented fraud disputes count as 4 fraud reports, the
    non-fraud one is left out; 2 + 1 disputes count as disputes."""
    pay = charges("2026-05", "Visa", 1000)
    paid, listed = disputed("2026-05", "Visa", 8)
    paid[4]["dispute_reason"] = "product_not_received"
    status = {listed[i]["provider_dispute_id"]: "prevented" for i in range(5)}
    status[listed[5]["provider_dispute_id"]] = "lost"
    status[listed[6]["provider_dispute_id"]] = "lost"
    status[listed[7]["provider_dispute_id"]] = "charge_refunded"
    inputs = StandingInputs(disputes=frame(listed), payments=frame(pay + paid), api_status=status)
    result = standing(inputs, StandingPolicy(), NOW)
    may = row(result.table, "2026-05", "visa")
    assert (may["disputes"], may["fraud_reports"]) == (3, 4)
    assert may["ratio_percent"] == 0.7  # (3 + 4) / 1,000
    assert "4 fraud dispute(s) RDR resolved counted as fraud reports" in may["note"]
    assert "1 dispute(s) resolved before a chargeback" in may["note"]
    assert any(
        n.startswith(
            "4 fraud dispute(s) RDR resolved with no fraud report in your "
            "exports: each counted as a fraud report"
        )
        for n in result.notes
    )


def test_with_the_sheet_a_prevented_fraud_disputes_report_counts_once():
    """The same 4 prevented fraud disputes, and a fraud-warnings sheet that lists the reports
    of 3 of them (May): 3 from the sheet + 1 raised, never 3 + 4."""
    pay = charges("2026-05", "Visa", 1000)
    paid, listed = disputed("2026-05", "Visa", 4)
    status = {d["provider_dispute_id"]: "prevented" for d in listed}
    fraud = [
        {"payment_id": c["payment_id"], "reported_at": "2026-05-10T00:00:00Z"} for c in paid[:3]
    ]
    inputs = StandingInputs(
        disputes=frame(listed), payments=frame(pay + paid), fraud=frame(fraud), api_status=status
    )
    result = standing(inputs, StandingPolicy(), NOW)
    may = row(result.table, "2026-05", "visa")
    assert (may["disputes"], may["fraud_reports"]) == (0, 4)
    assert any(
        n.startswith(
            "3 fraud dispute(s) RDR resolved whose fraud report your sheet lists: counted once"
        )
        for n in result.notes
    )


@pytest.mark.parametrize("counts", ["twice", "once"])
def test_a_fraud_dispute_with_its_report_is_shown_counted_twice_and_once(counts):
    """May, 1,000 Visa charges: 6 fraud disputes (chargebacks), 4 of which the sheet lists a
    fraud report for, and 2 more reports on undisputed charges. Twice: 6 + 6 = 1.2%; once:
    1.2% - 4 = 0.8%. The status and the fine use the setting's figure; the note shows both."""
    pay = charges("2026-05", "Visa", 1000)
    paid, listed = disputed("2026-05", "Visa", 6)
    reported = paid[:4] + pay[:2]
    fraud = [
        {"payment_id": c["payment_id"], "reported_at": "2026-05-03T00:00:00Z"} for c in reported
    ]
    inputs = StandingInputs(disputes=frame(listed), payments=frame(pay + paid), fraud=frame(fraud))
    may = row(
        standing(inputs, StandingPolicy(fraud_dispute_counts=counts), NOW).table, "2026-05", "visa"
    )
    assert (may["ratio_counted_twice_percent"], may["ratio_counted_once_percent"]) == (1.2, 0.8)
    assert may["ratio_percent"] == (1.2 if counts == "twice" else 0.8)
    assert (
        f"counted twice: 1.20%, once: 0.80%; the status uses {counts} ([standing] "
        "fraud_dispute_counts)"
    ) in may["note"]
    assert may["events"] == (12 if counts == "twice" else 8)


def counted(months: dict[str, int]) -> Counted:
    """Settled Visa transactions per month, as the engine keeps them."""
    rows = [{"month": m, "network": "visa", "transactions": n} for m, n in months.items()]
    return Counted(True, pd.DataFrame(rows))


def visa_disputes(per_month: dict[str, int]) -> pd.DataFrame:
    """Visa fraud disputes (reason code 10.4) opened in each month: only the disputes list."""
    rows = [
        {
            "provider_dispute_id": f"dp_{m}_{i}",
            "order_number": f"{m}-{i}",
            "network_reason_code": "10.4",
            "reason": "fraudulent",
            "dispute_date": f"{m}-15",
        }
        for m, n in per_month.items()
        for i in range(n)
    ]
    return pd.DataFrame(rows)


def test_an_excessive_month_is_fined_8_dollars_a_counted_event():
    """May 2026: 1,600 Visa disputes over 100,000 transactions = 1.6%, over the 1.5% threshold
    and the 1,501 floor: 'over', the acquirer's tier 'excessive', fine $8 x 1,600 = $12,800;
    with 300 of them CE 3.0-qualified, the what-if is 1,300 events: 1.3%, not named, still
    the acquirer's 'excessive' tier at $8: $10,400."""
    disputes = visa_disputes({"2026-05": 1600})
    qualified = frozenset(disputes["provider_dispute_id"][:300])
    inputs = StandingInputs(
        disputes=disputes, counted=counted({"2026-05": 100_000}), ce3_qualified=qualified
    )
    may = row(standing(inputs, StandingPolicy(), NOW).table, "2026-05", "visa")
    assert (may["status"], may["acquirer_tier"]) == ("over", "excessive")
    assert may["estimated_fine_usd"] == 12_800.0
    assert may["fine_without_ce3_usd"] == 10_400.0
    assert "estimated fine $12,800 (1,600 counted events" in may["note"]
    assert "without CE 3.0-qualified fraud: $10,400" in may["note"]


def test_a_month_at_045_percent_is_in_the_acquirers_early_warning_tier():
    """March 2026: 45 disputes over 10,000 transactions = 0.45%: 'ok' for the program, the
    acquirer's early-warning tier, no fine; June 2026 at 0.6%: 'above standard', $4 x 60;
    December 2025 at 0.6%: 'above standard' not yet in force (1 January 2026): early warning."""
    months = {"2025-12": 10_000, "2026-03": 10_000, "2026-06": 10_000}
    inputs = StandingInputs(
        disputes=visa_disputes({"2025-12": 60, "2026-03": 45, "2026-06": 60}),
        counted=counted(months),
    )
    table = standing(inputs, StandingPolicy(), NOW).table
    march = row(table, "2026-03", "visa")
    assert (march["ratio_percent"], march["status"]) == (0.45, "ok")
    assert (march["acquirer_tier"], march["estimated_fine_usd"]) == ("early warning", 0.0)
    assert "acquirer's tier: early warning" in march["note"]
    june = row(table, "2026-06", "visa")
    assert (june["acquirer_tier"], june["estimated_fine_usd"]) == ("above standard", 240.0)
    assert row(table, "2025-12", "visa")["acquirer_tier"] == "early warning"


def test_a_merchant_leaves_the_program_after_one_month_below_both_thresholds():
    """Named in May 2026 (1.6%, 1,600 events). June: 1.2% but 1,800 events, over the floor:
    still in the program, fined as named. July: 1.0% and 1,000 events, below both: it leaves,
    and is fined only by its acquirer's tier."""
    months = {"2026-05": 100_000, "2026-06": 150_000, "2026-07": 100_000}
    inputs = StandingInputs(
        disputes=visa_disputes({"2026-05": 1600, "2026-06": 1800, "2026-07": 1000}),
        counted=counted(months),
    )
    table = standing(inputs, StandingPolicy(), NOW).table
    statuses = [row(table, m, "visa")["status"] for m in months]
    assert statuses == ["over", "in program", "watch"]
    june = row(table, "2026-06", "visa")
    assert june["estimated_fine_usd"] == 8 * 1800  # named: $8 an event, above its tier's
    assert "still in the program" in june["note"]
    assert "still in the program" in status_line(pd.Series(june))
    assert row(table, "2026-07", "visa")["estimated_fine_usd"] == 8 * 1000  # tier: excessive


def test_a_month_with_nothing_to_divide_by_says_no_ratio_not_ok():
    inputs = StandingInputs(
        disputes=visa_disputes({"2026-04": 2}), counted=counted({"2026-03": 100, "2026-05": 100})
    )
    april = row(standing(inputs, StandingPolicy(), NOW).table, "2026-04", "visa")
    assert april["status"] == "no ratio"
    assert april["note"].startswith("no transactions in your exports for this month: no ratio")


def test_the_floor_that_keeps_a_month_at_watch_is_said_and_mastercard_counts_chargebacks():
    """Visa May: 1.6% on 16 events, under the 1,501 floor: its status line says the floor keeps
    it at watch. Mastercard June: 3 chargebacks over May's 100 transactions: 'chargebacks'."""
    inputs = StandingInputs(
        disputes=visa_disputes({"2026-05": 16}), counted=counted({"2026-05": 1000})
    )
    may = row(standing(inputs, StandingPolicy(), NOW).table, "2026-05", "visa")
    assert may["status"] == "watch"
    line = status_line(pd.Series(may))
    assert "on watch (over the threshold, below the program's count floor)" in line
    pay = charges("2026-05", "Mastercard", 100)
    mc_paid, mc_listed = disputed("2026-06", "Mastercard", 3)
    result = standing(StandingInputs(frame(mc_listed), frame(pay + mc_paid)), StandingPolicy(), NOW)
    june = row(result.table, "2026-06", "mastercard")
    assert june["ratio_percent"] == 3.0
    assert "(3 chargebacks / 100 transactions)" in status_line(pd.Series(june))
    assert "fraud reports and disputes" not in status_line(pd.Series(june))


def test_a_month_after_today_is_listed_with_a_note():
    inputs = StandingInputs(
        disputes=visa_disputes({"2026-07": 1, "2026-10": 1}),
        counted=counted({"2026-07": 100, "2026-10": 100}),
    )
    table = standing(inputs, StandingPolicy(), NOW).table
    assert "a month still to come" in row(table, "2026-10", "visa")["note"]
    assert "a month still to come" not in row(table, "2026-07", "visa")["note"]


def efm_history(fraud_disputes: int, secure: str | None) -> StandingInputs:
    """May 2026, Mastercard: 1,200 settled charges of USD 5,000 (6,000,000), 60 of them 3-D
    Secure (5%) when `secure` says so; `fraud_disputes` fraud chargebacks in May on charges of
    USD 5,000 (their amount from the payments export); June: 10 charges (May's row follows)."""
    extra = {"payment_amount": "5000", "currency": "usd"}
    pay = charges("2026-05", "Mastercard", 1200, **extra)
    if secure is not None:
        for i, c in enumerate(pay):
            c["three_d_secure"] = secure if i < 60 else "false"
    pay += charges("2026-06", "Mastercard", 10, **extra)
    paid, listed = disputed("2026-05", "Mastercard", fraud_disputes)
    for c in paid:
        c.update(extra)
    return StandingInputs(disputes=frame(listed), payments=frame(pay + paid))


def test_mastercard_excessive_fraud_merchant_is_flagged_from_the_exports():
    """11 fraud chargebacks of USD 5,000 (55,000, 0.92% of sales), 1,200 transactions, 5% 3-D
    Secure: met. Without a 3-D Secure flag: possible, and it says what is missing. With 9
    (45,000): not met, whatever the rest."""
    may = row(
        standing(efm_history(11, "true"), StandingPolicy(), NOW).table, "2026-05", "mastercard"
    )
    assert may["efm"].startswith("EFM met")
    assert "single secondary source" in may["efm"] and "EFM met" in may["note"]
    unknown = row(
        standing(efm_history(11, None), StandingPolicy(), NOW).table, "2026-05", "mastercard"
    )
    assert unknown["efm"].startswith("EFM possible")
    assert "not in your exports: a 3-D Secure flag on the charges" in unknown["efm"]
    low = row(
        standing(efm_history(9, "true"), StandingPolicy(), NOW).table, "2026-05", "mastercard"
    )
    assert low["efm"].startswith("EFM not met ($45,000 of fraud chargebacks, under $50,000")
    assert "EFM" not in low["note"]


def test_a_tier_on_all_cards_says_it_overstates():
    """No payments export: 1,000 orders in May, 6 disputes (0.6%): the acquirer's tier is
    Visa's over every card's disputes, and the note says that overstates it."""
    orders = pd.DataFrame(
        {
            "order_number": [str(i) for i in range(1000)],
            "order_date": "2026-05-03",
            "financial_status": "paid",
        }
    )
    disputes = visa_disputes({"2026-05": 6}).drop(columns=["network_reason_code"])
    may = row(
        standing(StandingInputs(disputes, orders=orders), StandingPolicy(), NOW).table,
        "2026-05",
        "all",
    )
    assert may["acquirer_tier"] == "above standard"
    assert (
        "no card brand known: Visa's tiers over every card's disputes overstate them" in may["note"]
    )
