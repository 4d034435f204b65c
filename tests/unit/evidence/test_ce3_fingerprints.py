"""Visa CE 3.0's minimum lengths (issue 46 item 7): a device ID is used from 15 characters and
a device fingerprint from 20 (Stripe's fields, ../shared/spec/monitoring-programs.md); a
shorter one is not used, in the letter's check and in the coverage alike."""

from __future__ import annotations

import pandas as pd

import tests.unit.evidence.test_ce3_identifiers as helpers
from dispute_evidence.evidence.ce3 import transactions
from dispute_evidence.evidence.ce3_identifiers import device_element
from dispute_evidence.ingest import ingest_paths
from dispute_evidence.standing.ce3_coverage import coverage
from tests.support.export_layouts import write_csv
from tests.unit.evidence.test_ce3_identifiers import (
    DISPUTED_AT,
    ORDERS,
    PAYMENTS,
    charge,
    order,
    verdicts,
)

FINGERPRINTED = [*ORDERS, "device_fingerprint"]


def _history(fingerprints: dict[str, str]) -> tuple[list[dict], list[dict]]:
    """Per card: a fraud dispute's order and two earlier ones (150 and 200 days before), each
    with the same customer account and device fingerprint, no IP and no device ID."""
    orders, charges = [], []
    for n, (card, printed) in enumerate(fingerprints.items()):
        for i, days in enumerate((0, 150, 200)):
            number = str(6000 + n * 10 + i)
            ids = {
                "customer_ip": "",
                "device_id": "",
                "customer_account_id": f"cus_{card}",
                "device_fingerprint": printed,
                "card_fingerprint": f"fp_{card}",
            }
            orders.append(order(number, days, **ids))
            charges.append(charge(f"ch_{number}", number, days, card_fingerprint=f"fp_{card}"))
    return orders, charges


def test_a_device_fingerprint_counts_from_20_characters_and_not_below(tmp_path, monkeypatch):
    """Card A: a 19-character fingerprint and the same account: one element, no IP or device:
    not CE 3.0. Card B: a 20-character one and the same account: two elements, one of them the
    device: CE 3.0 qualifies."""
    short, enough = "fp-0123456789abcdef", "fp-0123456789abcdefg"
    assert (len(short), len(enough)) == (19, 20)
    orders, charges = _history({"A": short, "B": enough})
    monkeypatch.setattr(helpers, "ORDERS", FINGERPRINTED)
    ce3, bodies = verdicts(tmp_path / "in", orders, charges, ["6000", "6010"])
    assert not ce3["dp_6000"].qualifies, ce3["dp_6000"].text
    assert ce3["dp_6010"].qualifies, ce3["dp_6010"].text
    assert "visa_ce3" in bodies["dp_6010"]["additional_evidence"]


def test_the_device_element_takes_an_id_from_15_else_a_fingerprint_from_20():
    device = pd.Series(["d" * 15, "d" * 14, "", "", "d" * 14])
    printed = pd.Series(["f" * 20, "f" * 20, "f" * 20, "f" * 19, "f" * 19])
    assert list(device_element(device, printed)) == ["d" * 15, "f" * 20, "f" * 20, "", "d" * 14]


def test_the_coverage_counts_a_fingerprint_only_from_20_characters(tmp_path):
    """10 orders, no IP and no device ID: 6 carry a 20-character device fingerprint, 4 a
    19-character one. The coverage's device share: 6 of 10."""
    orders = [
        order(
            str(7000 + i),
            200,
            customer_ip="",
            device_id="",
            device_fingerprint=f"print-{i:02d}-abcdefghijklmnop"[: 20 if i < 6 else 19],
            card_fingerprint=f"fp_{i}",
        )
        for i in range(10)
    ]
    charges = [
        charge(f"ch_{7000 + i}", str(7000 + i), 200, card_fingerprint=f"fp_{i}") for i in range(10)
    ]
    files = [
        write_csv(tmp_path / "orders.csv", FINGERPRINTED, orders),
        write_csv(tmp_path / "payments.csv", PAYMENTS, charges),
    ]
    records = ingest_paths(files, tmp_path).records
    found = coverage(transactions(records, shown=False), DISPUTED_AT)
    assert (found.with_element["device_id"], found.orders) == (6, 10)
