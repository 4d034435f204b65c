"""CE 3.0 coverage on a generated history whose answers are known: the share of orders carrying
each element, the active Visa cards that would qualify if disputed today, and what capturing
one element at checkout would change, with the counts behind each line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pandas as pd

from dispute_evidence.evidence.ce3 import transactions
from dispute_evidence.standing.ce3_coverage import coverage

NOW = datetime(2026, 11, 1, 12, tzinfo=UTC)


def _order(n: int, card: str, days_ago: int, **extra: str) -> dict[str, object]:
    day = (NOW - timedelta(days=days_ago)).strftime("%Y-%m-%d")
    return {"order_number": str(n), "order_date": day, "financial_status": "paid",
            "order_total": 50.0, "price": 50.0, "quantity": 1, "currency_code": "USD", "card_fingerprint": card,
            "customer_ip": "", "device_id": "", "customer_account_id": "",
            "shipping_address": "1 Main St, Springfield", "_seq": 1, **extra}  # fmt: skip


def history() -> dict[str, pd.DataFrame]:
    """10 Visa cards, each with an order 10 days ago (active) and two 150 and 200 days ago:
    cards 0-5 logged a public IP on those two (IP + address: they qualify), cards 6-9 only the
    address (they would with an IP or a device ID). Card 6's device ID is too short (12)."""
    rows, n = [], 1000
    for c in range(10):
        ip = {"customer_ip": f"81.2.69.{c + 1}"} if c < 6 else {}
        short = {"device_id": "dev-12345678"} if c == 6 else {}
        for days in (200, 150):
            rows.append(_order(n, f"fp{c}", days, **ip, **short))
            n += 1
        rows.append(_order(n, f"fp{c}", 10))
        n += 1
    rows.append(_order(n, "fp_old", 400, customer_ip="81.2.69.99"))  # not active: over a year
    return {"orders": pd.DataFrame(rows).fillna(""), "payments": pd.DataFrame(),
            "disputes": pd.DataFrame({"order_number": pd.Series([], dtype=str)})}  # fmt: skip


def test_shares_of_orders_and_cards_with_the_counts_behind_them():
    c = coverage(transactions(history()), NOW)
    assert c.orders == 31
    assert c.with_element == {"customer_ip": 13, "device_id": 0, "customer_account_id": 0,
                              "shipping_address": 31}  # fmt: skip
    assert (c.active_cards, c.qualify) == (10, 6)
    assert c.if_captured == {"customer_ip": 10, "device_id": 10, "customer_account_id": 6,
                             "shipping_address": 6}  # fmt: skip
    assert "IP address: on 13 of 31 orders (42%)" in c.lines
    assert ("as captured today, 6 of your 10 active cards (60%) would qualify for CE 3.0 if "
            "disputed today") in c.lines  # fmt: skip
    assert ("capture the device ID (15+ characters) at checkout: 100% of your cards would "
            "qualify (10 of 10, against 6 today)") in c.lines  # fmt: skip
    assert not any(line.startswith("record the customer account ID") for line in c.lines)
    table = c.table().set_index("element")
    assert table.loc["device ID", "share of active cards (%)"] == 100.0
    assert table.loc["as captured today", "share of active cards (%)"] == 60.0


def test_a_disputed_or_refunded_earlier_order_does_not_count_and_other_brands_are_left_out():
    records = history()
    orders = records["orders"]
    orders.loc[orders["order_number"] == "1000", "financial_status"] = "refunded"  # card 0
    records["disputes"] = pd.DataFrame({"order_number": ["1003"]})  # card 1's earlier order
    c = coverage(transactions(records), NOW)
    assert (c.active_cards, c.qualify) == (10, 4)
    payments = pd.DataFrame([{"payment_id": "ch_x", "order_number": "1029", "paid_at": "",
                              "payment_amount": 50.0, "payment_status": "succeeded",
                              "card_brand": "MasterCard", "card_fingerprint": "fp9"}])  # fmt: skip
    records["payments"] = payments
    assert coverage(transactions(records), NOW).active_cards == 9  # card 9: a Mastercard


def test_no_orders_and_no_cards_are_said_plainly():
    empty = coverage(pd.DataFrame(), NOW)
    assert empty.lines == ["CE 3.0 coverage: no orders or charges in your exports yet"]
    records = history()
    records["orders"]["card_fingerprint"] = ""
    c = coverage(transactions(records), NOW)
    assert c.active_cards == 0 and c.table().iloc[-1]["share of active cards (%)"] is None
    assert any(line.startswith("no card fingerprint on an order") for line in c.lines)


def test_an_order_listed_again_counts_once_as_its_first_line_in_its_latest_file_says():
    records = history()
    orders = records["orders"]
    again = orders.loc[orders["order_number"] == "1000"].assign(_seq=2, customer_ip="")
    line_2 = orders.loc[orders["order_number"] == "1002"].assign(customer_ip="81.2.69.50")
    records["orders"] = pd.concat([orders, again, line_2], ignore_index=True)
    c = coverage(transactions(records, shown=False), NOW)
    # order 1000 (card 0) dropped again without its IP; order 1002's second line not counted
    assert (c.orders, c.with_element["customer_ip"]) == (31, 12)
    assert (c.active_cards, c.qualify) == (10, 5)


def test_a_refunded_amount_covering_the_order_is_a_refund_and_an_empty_column_is_none():
    records = history()
    orders = records["orders"]
    orders["refunded_amount"] = ""
    assert coverage(transactions(records, shown=False), NOW).qualify == 6
    orders.loc[orders["order_number"] == "1000", "refunded_amount"] = "50.00"  # card 0
    assert coverage(transactions(records, shown=False), NOW).qualify == 5
