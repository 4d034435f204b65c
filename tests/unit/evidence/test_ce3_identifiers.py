"""Visa CE 3.0 counts only what identifies a purchase: placeholder, private and empty
identifiers never match; one purchase named by two exports is one transaction; a fully
refunded or future-dated earlier order never counts; the payments export's card wins."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest

from dispute_evidence.evidence import build_evidence
from dispute_evidence.evidence.ce3 import (
    PLACEHOLDER_IP_OR_DEVICE,
    History,
    is_placeholder,
    is_public_ip,
)
from dispute_evidence.ingest import ingest_paths
from tests.support.export_layouts import write_csv

DISPUTED_AT = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "order_date",
          "financial_status", "order_total", "refunded_amount", "customer_ip", "device_id",
          "customer_account_id", "card_fingerprint", "payment_reference", "shipping_address"]  # fmt: skip
PAYMENTS = ["payment_id", "order_number", "paid_at", "payment_amount", "amount_refunded",
            "currency", "payment_status", "card_brand", "card_fingerprint"]  # fmt: skip
GOOD = {"customer_ip": "81.2.69.160", "device_id": "dev-7f3a", "customer_account_id": "cus_1"}


def order(number: str, days: int, at: datetime = DISPUTED_AT, **kw: str) -> dict[str, str]:
    when = at - timedelta(days=days)
    return {"order_number": number, "product_title": "Linen shirt", "price": "80.00",
            "quantity": "1", "currency_code": "USD", "order_date": when.isoformat(),
            "financial_status": "paid", "order_total": "80.00", **GOOD,
            "card_fingerprint": "fp_ann", **kw}  # fmt: skip


def charge(pid: str, number: str, days: int, at: datetime = DISPUTED_AT, **kw: str):
    when = at - timedelta(days=days)
    return {"payment_id": pid, "order_number": number, "paid_at": when.isoformat(),
            "payment_amount": "80.00", "currency": "usd", "payment_status": "Paid",
            "card_brand": "Visa", "card_fingerprint": "fp_ann", **kw}  # fmt: skip


def verdicts(folder: Path, orders: list[dict], charges: list[dict], disputed: list[str]):
    """Write the three exports, build, and return (CE 3.0 verdicts, payload bodies by id)."""
    folder.mkdir(parents=True, exist_ok=True)
    files = [
        write_csv(folder / "orders.csv", ORDERS, orders),
        write_csv(folder / "payments.csv", PAYMENTS, charges),
        write_csv(folder / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
                  [{"provider_dispute_id": f"dp_{n}", "order_number": n, "reason": "fraudulent"}
                   for n in disputed]),
    ]  # fmt: skip
    built = build_evidence(ingest_paths(files, folder).records)
    bodies = {p.provider_dispute_id: orjson.loads(p.body) for p in built.payloads}
    return built.ce3, bodies


@pytest.mark.parametrize(
    "value",
    ["0.0.0.0", "10.1.2.3", "192.168.0.7", "172.16.4.4", "127.0.0.1", "169.254.9.9", "::1",
     "fe80::1", "100.64.0.1", "", "unknown", "not an ip"],
)  # fmt: skip
def test_an_ip_that_is_not_public_identifies_no_one(value):
    assert not is_public_ip(value)


@pytest.mark.parametrize(
    "value",
    ["", "unknown", "UNKNOWN", "n/a", "N/A", "-", "--", "none", "null", "0", "guest",
     "00000000-0000-0000-0000-000000000000", "00:00:00:00:00:00", "xxxx"],
)  # fmt: skip
def test_placeholder_identifiers_name_nobody(value):
    assert is_placeholder(value)
    assert not is_placeholder("dev-7f3a") and is_public_ip("81.2.69.160")


def test_placeholder_and_private_identifiers_never_match_while_real_ones_do(tmp_path):
    """Three fraud disputes on three cards, each with two earlier orders: real identifiers
    (qualifies), 0.0.0.0 + "unknown" everywhere, private IPs + all-zero device ids."""
    zero = "00000000-0000-0000-0000-000000000000"
    kinds = {
        "7000": GOOD,
        "8000": {"customer_ip": "0.0.0.0", "device_id": "unknown", "customer_account_id": "n/a"},
        "9000": {"customer_ip": "192.168.1.10", "device_id": zero, "customer_account_id": "-"},
    }
    orders, charges = [], []
    for base, ids in kinds.items():
        card = {"card_fingerprint": f"fp_{base}"}
        for i, days in enumerate((0, 150, 200)):
            number = str(int(base) + i)
            orders.append(order(number, days, **ids, **card))
            charges.append(charge(f"ch_{number}", number, days, **card))
    ce3, bodies = verdicts(tmp_path / "in", orders, charges, ["7000", "8000", "9000"])
    assert ce3["dp_7000"].text == "qualifies: prior orders 7001, 7002"
    for pid in ("dp_8000", "dp_9000"):
        assert (ce3[pid].qualifies, ce3[pid].why) == (False, PLACEHOLDER_IP_OR_DEVICE)
        assert "visa_ce3" not in bodies[pid]["additional_evidence"]
    assert "visa_ce3" in bodies["dp_7000"]["additional_evidence"]


def test_a_shared_placeholder_ip_is_not_the_primary_element(tmp_path):
    """The disputed order and its priors share the customer account and IP 0.0.0.0 (their
    devices differ): the account alone is one element, and no IP or device matches."""
    orders = [order("4000", 0, customer_ip="0.0.0.0", device_id="dev-7f3a-0000-0001"),
              order("4001", 150, customer_ip="0.0.0.0", device_id="dev-aa01-0000-0001"),
              order("4002", 200, customer_ip="0.0.0.0", device_id="dev-bb02-0000-0001")]  # fmt: skip
    charges = [charge(f"ch_{o['order_number']}", o["order_number"], d)
               for o, d in zip(orders, (0, 150, 200), strict=True)]  # fmt: skip
    ce3, _ = verdicts(tmp_path / "in", orders, charges, ["4000"])
    assert not ce3["dp_4000"].qualifies
    assert ce3["dp_4000"].why.startswith("2 prior orders in window, none matching on IP")


def test_an_order_and_its_prefixed_charge_are_one_transaction(tmp_path):
    """Order 6001 and its charge keyed SO-6001 are one purchase: with no other earlier order,
    there is one prior, not two."""
    orders = [order("6000", 0), order("6001", 150)]
    charges = [charge("ch_6000", "6000", 0), charge("ch_6001", "SO-6001", 150)]
    ce3, _ = verdicts(tmp_path / "in", orders, charges, ["6000"])
    assert not ce3["dp_6000"].qualifies
    assert ce3["dp_6000"].why == "only 1 prior order in window matches (1 in window; 2 needed)"
    records = ingest_paths(list((tmp_path / "in").iterdir()), tmp_path / "in").records
    history = History.from_records(records)
    assert sorted(history.keys) == ["6000", "6001"]  # no third "SO-6001" transaction


def test_a_fully_refunded_earlier_order_never_counts(tmp_path):
    """6102 was refunded in full (the order says so; its charge still says Paid), 6103's
    charge gave the whole amount back: neither counts, so 6101 alone is not enough."""
    orders = [order("6100", 0), order("6101", 150),
              order("6102", 200, financial_status="refunded", refunded_amount="80.00"),
              order("6103", 250)]  # fmt: skip
    charges = [charge("ch_6100", "6100", 0), charge("ch_6101", "6101", 150),
               charge("ch_6102", "6102", 200),
               charge("ch_6103", "6103", 250, amount_refunded="80.00")]  # fmt: skip
    ce3, _ = verdicts(tmp_path / "in", orders, charges, ["6100"])
    assert not ce3["dp_6100"].qualifies
    assert ce3["dp_6100"].why.startswith("only 1 prior order in window matches")


def test_earlier_orders_dated_in_the_future_never_count(tmp_path):
    """A disputed order dated a year ahead (a typo): its 'earlier' orders 150 and 200 days
    before it are still in the future, so they are not history."""
    ahead = datetime.now(UTC).replace(microsecond=0) + timedelta(days=365)
    orders = [order("6200", 0, ahead), order("6201", 150, ahead), order("6202", 200, ahead)]
    charges = [charge(f"ch_{o['order_number']}", o["order_number"], d, ahead)
               for o, d in zip(orders, (0, 150, 200), strict=True)]  # fmt: skip
    ce3, _ = verdicts(tmp_path / "in", orders, charges, ["6200"])
    assert not ce3["dp_6200"].qualifies
    assert ce3["dp_6200"].why.startswith("no earlier paid, undisputed order")
    records = ingest_paths(list((tmp_path / "in").iterdir()), tmp_path / "in").records
    later = ahead + timedelta(days=1)  # once those days have come, they count
    assert History.from_records(records, now=later).check("6200").qualifies


def test_the_payments_exports_card_wins_over_the_orders(tmp_path):
    """The orders export says fp_ann for the disputed order; its charge was on fp_other, a card
    with no history: the earlier orders on fp_ann are not this card's."""
    orders = [order("6300", 0), order("6301", 150), order("6302", 200)]
    charges = [charge("ch_6300", "6300", 0, card_fingerprint="fp_other"),
               charge("ch_6301", "6301", 150), charge("ch_6302", "6302", 200)]  # fmt: skip
    ce3, _ = verdicts(tmp_path / "in", orders, charges, ["6300"])
    assert not ce3["dp_6300"].qualifies
    assert ce3["dp_6300"].why.startswith("no earlier paid, undisputed order on this card")


def test_near_matches_are_not_ce3_matches(tmp_path):
    """Visa's FDMP withdraws CE 3.0 from a merchant that sends qualification data that does not
    hold: three fraud disputes whose two earlier orders match only nearly. Card A: the same
    account and a 14-character device ID (Visa's minimum is 15); card B: the same account and
    an IP address 50 other cards also used; card C: the same public IP and a shipping address
    that differs once normalised ("12 Main St" against "12 Main Street"). None qualifies; card D,
    as C with the same address all three times, does (the control: C's address is compared)."""
    near = {
        "A": ({"device_id": "dev-0123456789", "customer_ip": ""}, {}),
        "B": ({"customer_ip": "81.2.69.200", "device_id": ""}, {}),
        "C": ({"customer_account_id": "", "device_id": "", "customer_ip": "81.2.69.201"},
              {"shipping_address": "12 Main Street"}),
        "D": ({"customer_account_id": "", "device_id": "", "customer_ip": "81.2.69.202"},
              {"shipping_address": "12 Main St"}),
    }  # fmt: skip
    assert len(near["A"][0]["device_id"]) == 14
    orders, charges = [], []
    for n, (base, (ids, prior_extra)) in enumerate(near.items()):
        card = {"card_fingerprint": f"fp_{base}"}
        for i, days in enumerate((0, 150, 200)):
            number = str(5000 + n * 10 + i)
            extra = {"shipping_address": "12 Main St"} if i == 0 else prior_extra
            orders.append(order(number, days, **{**ids, **extra}, **card))
            charges.append(charge(f"ch_{number}", number, days, **card))
    for k in range(50):  # 50 other cards' orders from card B's IP address
        number = str(9000 + k)
        others = {"card_fingerprint": f"fp_other{k}", "customer_ip": "81.2.69.200"}
        orders.append(order(number, 30, **others))
        charges.append(charge(f"ch_{number}", number, 30, card_fingerprint=f"fp_other{k}"))
    ce3, bodies = verdicts(tmp_path / "in", orders, charges, ["5000", "5010", "5020", "5030"])
    for pid in ("dp_5000", "dp_5010", "dp_5020"):
        assert not ce3[pid].qualifies, (pid, ce3[pid].text)
        assert "visa_ce3" not in bodies[pid]["additional_evidence"]
    assert ce3["dp_5030"].qualifies, ce3["dp_5030"].text
