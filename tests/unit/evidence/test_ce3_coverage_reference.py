"""The vectorised CE 3.0 coverage (Arrow membership, integer card codes, bincount) gives the
same counts as a plain-Python reference that follows each order and card one by one, on a
generated history that goes through every join the orders and charges can take: a charge
naming its order as written, under a prefix ("SO-1004"), through the order's payment reference,
or no order at all; placeholders, private IPs, short device IDs, other brands, refunds, disputes
from the list and from the charge, undated and future orders."""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest

from dispute_evidence.evidence.ce3 import (
    ELEMENTS,
    PAID,
    REFUNDED,
    SHOWN,
    History,
    is_placeholder,
    is_public_ip,
)
from dispute_evidence.evidence.ce3 import transactions as ce3_transactions
from dispute_evidence.evidence.ce3_identifiers import (
    SHARED_CARDS,
)
from dispute_evidence.standing.ce3_coverage import coverage

NOW = datetime(2026, 11, 1, 12, tzinfo=UTC)
# "{card}": the card's own value (one buyer's); the others are shared by many cards (over
# SHARED_CARDS: identify no one), placeholders, private or too short
IPS = (
    "",
    "81.2.{card}.160",
    "81.2.{card}.160",
    "81.2.{card}.161",
    "81.2.69.160",
    "10.0.0.1",
    "0.0.0.0",
)
DEVICES = ("", "device-{card:0>16}", "short-dev", "unknown", "device-fedcba9876543210",
           "device-{card:0>15}x")  # fmt: skip
ACCOUNTS = ("", "acct_1", "acct_2", "n/a")
ADDRESSES = ("", "1 Main St", "2 Elm Rd", "unknown")
BRANDS = ("Visa", "Visa", "Visa", "MasterCard", "")  # by card: fp3 is a Mastercard


def generated(seed: int) -> dict[str, pd.DataFrame]:
    rng = random.Random(seed)
    orders, charges, disputed = [], [], []
    for n in range(400):
        number, card = str(1000 + n), f"fp{rng.randrange(60)}"
        when = NOW - timedelta(days=rng.randrange(-5, 420))
        date = "" if rng.random() < 0.03 else when.strftime("%Y-%m-%dT%H:%M:%SZ")
        status = rng.choice(("paid", "paid", "paid", "refunded", "pending", "partially_refunded"))
        ref = f"pi_{n}" if rng.random() < 0.2 else ""
        orders.append({"order_number": number, "order_date": date, "financial_status": status,
                       "order_total": rng.choice((50.0, 0.0, 20.0)), "price": 50.0, "quantity": 1,
                       "currency_code": "USD", "payment_reference": ref,
                       "card_fingerprint": card if rng.random() < 0.3 else "",
                       **_elements(rng, card), "_seq": 1})  # fmt: skip
        if rng.random() < 0.1:
            disputed.append(number)
        if rng.random() < 0.7:
            named = rng.choice((number, number, f"SO-{number}", ""))
            charges.append(_charge(rng, f"ch_{n}", named, ref if not named else "", card, date))
    for n in range(30):  # charges no order claims
        when = (NOW - timedelta(days=rng.randrange(0, 400))).strftime("%Y-%m-%dT%H:%M:%SZ")
        charges.append(_charge(rng, f"ch_x{n}", "", "", f"fp{rng.randrange(60)}", when))
    return {"orders": pd.DataFrame(orders), "payments": pd.DataFrame(charges),
            "disputes": pd.DataFrame({"order_number": disputed})}  # fmt: skip


def _elements(rng: random.Random, card: str) -> dict[str, str]:
    number = card[2:]
    return {"customer_ip": rng.choice(IPS).format(card=number),
            "device_id": rng.choice(DEVICES).format(card=number),
            "customer_account_id": rng.choice(ACCOUNTS),
            "shipping_address": rng.choice(ADDRESSES)}  # fmt: skip


def _charge(
    rng: random.Random, pid: str, named: str, intent: str, card: str, date: str
) -> dict[str, object]:
    own = _elements(rng, card) if rng.random() < 0.5 else dict.fromkeys(ELEMENTS, "")
    return {"payment_id": pid, "payment_intent": intent, "order_number": named, "paid_at": date,
            "payment_amount": 50.0, "amount_refunded": 0.0, "currency": "usd",
            "payment_status": rng.choice(("Paid", "Paid", "Failed", "refunded")),
            "dispute_status": "", "dispute_reason": "fraudulent" if rng.random() < 0.05 else "",
            "card_brand": BRANDS[int(card[2:]) % len(BRANDS)], "card_fingerprint": card,
            **own}  # fmt: skip


def reference(records: dict[str, pd.DataFrame]) -> tuple[int, int, dict[str, int]]:
    """(active cards, cards that qualify, per element the cards that would), one row at a time."""
    rows = _joined(records)
    other = {r["card"] for r in rows if r["brand"] not in ("visa", "")}
    today = (NOW - datetime(1970, 1, 1, tzinfo=UTC)).days
    active = {r["card"] for r in rows if r["card"] and r["card"] not in other
              and r["day"] is not None and 0 <= today - r["day"] <= 365}  # fmt: skip

    def qualifying(forced: str) -> int:
        per_card: dict[str, int] = defaultdict(int)
        for r in rows:
            has = {e: r[e] or e == forced for e in ELEMENTS}
            age = today - r["day"] if r["day"] is not None else -1
            eligible = r["paid"] and not r["disputed"] and not r["refunded"] and r["amount"] > 0
            if (eligible and r["card"] and r["card"] not in other and 120 <= age <= 365
                    and (has["customer_ip"] or has["device_id"]) and sum(has.values()) >= 2):  # fmt: skip
                per_card[r["card"]] += 1
        return sum(1 for c, n in per_card.items() if n >= 2 and c in active)

    return len(active), qualifying(""), {e: qualifying(e) for e in ELEMENTS}


def _joined(records: dict[str, pd.DataFrame]) -> list[dict[str, object]]:
    """One dict per order (its charge's facts beside its own) or per unclaimed charge."""
    orders = {o["order_number"]: o for o in records["orders"].to_dict("records")}
    refs = {o["payment_reference"]: k for k, o in orders.items() if o["payment_reference"]}
    listed = set(records["disputes"]["order_number"])
    charge_of: dict[str, dict[str, object]] = {}
    for c in records["payments"].to_dict("records"):
        key = str(c["order_number"]).removeprefix("SO-") or refs.get(str(c["payment_intent"]), "")
        charge_of[key or f"charge {c['payment_id']}"] = c
    rows = []
    for key in [*orders, *(k for k in charge_of if k not in orders)]:
        o, c = orders.get(key, {}), charge_of.get(key, {})
        date = str(o.get("order_date") or c.get("paid_at") or "")
        row: dict[str, object] = {
            "card": c.get("card_fingerprint") or o.get("card_fingerprint") or "",
            "brand": str(c.get("card_brand", "")).lower(),
            "day": (datetime.fromisoformat(date[:10]).replace(tzinfo=UTC)
                    - datetime(1970, 1, 1, tzinfo=UTC)).days if date else None,
            "amount": float(o.get("order_total", c.get("payment_amount", 0))),  # type: ignore[arg-type]
            "paid": o.get("financial_status") in PAID or str(c.get("payment_status", "")).lower() in PAID,
            "refunded": o.get("financial_status") in REFUNDED
            or str(c.get("payment_status", "")).lower() in REFUNDED,
            "disputed": key in listed or bool(c.get("dispute_reason")),
        }  # fmt: skip
        for e in ELEMENTS:
            value = str(o.get(e) or c.get(e) or "")
            usable = is_public_ip(value) if e == "customer_ip" else not is_placeholder(value)
            row[e] = usable and (e != "device_id" or len(value) >= 15)
            row[f"value_{e}"] = value
        rows.append(row)
    for e in ("customer_ip", "device_id"):  # a value more than SHARED_CARDS cards used: none
        cards: dict[str, set[object]] = defaultdict(set)
        for r in rows:
            if r[e] and r["card"]:
                cards[str(r[f"value_{e}"])].add(r["card"])
        for r in rows:
            r[e] = r[e] and len(cards[str(r[f"value_{e}"])]) <= SHARED_CARDS
    return rows


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_fast_coverage_counts_what_a_one_by_one_reference_counts(seed):
    records = generated(seed)
    fast = coverage(ce3_transactions(records), NOW)
    active, qualify, if_captured = reference(records)
    assert active > 10 and 0 < qualify < active  # the history exercises both answers
    assert (fast.active_cards, fast.qualify, fast.if_captured) == (active, qualify, if_captured)


@pytest.mark.parametrize("listed", ["in order", "reversed"])
def test_same_day_priors_are_cited_by_order_number_whatever_the_exports_order(listed):
    """Four earlier orders on the same day all qualify: the two cited are the first by order
    number, as before the join kept its rows unsorted, however the export lists them."""
    day = (NOW - timedelta(days=150)).strftime("%Y-%m-%d")
    rows = [{"order_number": n, "order_date": d, "financial_status": "paid", "order_total": 50.0,
             "price": 50.0, "quantity": 1, "card_fingerprint": "fp1", "customer_ip": "81.2.69.160",
             "shipping_address": "1 Main St", "_seq": 1}
            for n, d in (("1003", day), ("1001", day), ("1004", day), ("1002", day),
                         ("2000", NOW.strftime("%Y-%m-%d")))]  # fmt: skip
    orders = pd.DataFrame(rows if listed == "in order" else rows[::-1])
    payments = pd.DataFrame([{"payment_id": f"ch_{r['order_number']}", "paid_at": r["order_date"],
                              "order_number": r["order_number"], "payment_amount": 50.0,
                              "payment_status": "Paid", "card_brand": "Visa",
                              "card_fingerprint": "fp1"} for r in rows])  # fmt: skip
    records = {"orders": orders, "payments": payments,
               "disputes": pd.DataFrame({"order_number": ["2000"]})}  # fmt: skip
    verdict = History.from_records(records, NOW).check("2000")
    assert verdict.qualifies
    assert [p.order_number for p in verdict.priors] == ["1001", "1002"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_coverages_history_is_the_letters_without_the_values_as_exported(seed):
    records = generated(seed)
    full, narrow = ce3_transactions(records), ce3_transactions(records, shown=False)
    assert set(SHOWN) <= set(full.columns) and not set(SHOWN) & set(narrow.columns)
    pd.testing.assert_frame_equal(narrow, full.drop(columns=list(SHOWN)))
    assert coverage(narrow, NOW) == coverage(full, NOW)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_charges_that_all_name_their_order_as_written_count_as_the_reference_counts(seed):
    records = generated(seed)  # the join then reuses where each charge's order was found
    charges = records["payments"]
    records["payments"] = charges.loc[
        charges["order_number"].isin(records["orders"]["order_number"])
    ]
    fast = coverage(ce3_transactions(records, shown=False), NOW)
    active, qualify, if_captured = reference(records)
    assert active > 10 and 0 < qualify < active
    assert (fast.active_cards, fast.qualify, fast.if_captured) == (active, qualify, if_captured)
