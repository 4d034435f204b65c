"""Issue 44 findings 4 and 9, the fraud letter's first sentence, through the real CLI against
the local API: where Visa's April 2026 AVS rule applies the thesis says the dispute is invalid
under it, short and plain, naming the transaction and the match, and the merits follow; where
Visa CE 3.0 qualifies the thesis leads with the qualification (the two earlier undisputed
orders and the device they share), not with the address check and delivery; where CE 3.0 does
not qualify, the IP and device are stated as observed and never called CE 3.0."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.conftest import seed_rows
from tests.integration.evidence.test_ce3 import HISTORY, write_scenario
from tests.integration.flows.test_case_wins import ARGUING, _arguing, _letter, _rows
from tests.integration.flows.test_reasons import ELM, ORDERS, PAYMENTS
from tests.support.cli_helpers import run_cli, use_sandbox
from tests.support.engine_helpers import write_rows

CLAIM = "The cardholder says they did not authorise this payment; "


def _thesis(letter: str) -> str:
    """The body's first sentence (what comes before the order's paragraph)."""
    body = letter.split("To the reviewer of this dispute,", 1)[1]
    return body.split(" The order ", 1)[0].strip()


def _avs_case(tmp_path, paid: str = "2026-11-01 10:00"):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    write_rows(
        inbox / "disputes.csv",
        ["provider_dispute_id", "order_number", "reason", "amount", "currency", "dispute_date"],
        [["dp_test_0", "#5000", "fraudulent", 129.0, "USD", "2026-11-20"]],
    )
    write_rows(
        inbox / "orders.csv",
        ORDERS,
        [[5000, "Camera", "129", 1, "USD", "c@example.com", "C", ELM, ELM, paid[:10]]],
    )
    write_rows(
        inbox / "payments.csv",
        PAYMENTS,
        [
            [
                "ch_A",
                "5000",
                paid,
                "129",
                "usd",
                "Paid",
                "Visa",
                "4242",
                "US",
                "pass",
                "pass",
                "pass",
            ]
        ],
    )
    write_rows(
        inbox / "shipments.csv",
        ["order_number", "tracking_number", "carrier", "shipped_at", "delivered_at"],
        [[5000, "1Z0", "UPS", "2026-11-02", "2026-11-04"]],
    )
    return inbox


def test_visas_avs_rule_is_the_thesis_short_and_plain_then_the_merits(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(1))
    use_sandbox(sb, monkeypatch)
    monkeypatch.setenv("DISPUTE_EVIDENCE_MERCHANT__COUNTRY", "US")
    run_cli("--inbox", str(_avs_case(tmp_path)))
    letter = _letter(sb, "dp_test_0")
    thesis = _thesis(letter)
    assert thesis == (
        "This dispute is invalid under Visa's April 2026 rule for reason 10.4: charge ch_A of "
        "2026-11-01 is a card-absent US domestic Visa transaction whose address check fully "
        "matched (street and postcode)."
    ), thesis
    assert len(thesis.split()) < 35, len(thesis.split())
    # then the merits: the rule's conditions shown for the charge, in two plain sentences, and
    # the delivery to the verified address after them
    first, *rest = _arguing(letter).split("•")[1:]
    assert first.strip().startswith(
        "Visa's April 2026 rule for reason 10.4 makes a card-absent fraud dispute invalid"
    ), first
    assert "Charge ch_A meets each condition: a Visa card issued in the US" in first, first
    assert all(len(s.split()) < 40 for s in first.split(". ")), first
    assert any("delivered on 2026-11-04" in p for p in rest), rest
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1


def test_before_the_rules_date_the_address_check_and_delivery_lead(
    sandbox_factory, tmp_path, monkeypatch
):
    """A charge of 2026-10-22, the day before the rule: the rule is never claimed."""
    sb = sandbox_factory(rows=_rows(1))
    use_sandbox(sb, monkeypatch)
    monkeypatch.setenv("DISPUTE_EVIDENCE_MERCHANT__COUNTRY", "US")
    run_cli("--inbox", str(_avs_case(tmp_path, paid="2026-10-22 10:00")))
    letter = _letter(sb, "dp_test_0")
    assert _thesis(letter).startswith(CLAIM + "the card issuer's address check passed"), letter
    assert "invalid" not in letter and "Visa's April 2026 rule" not in letter, letter


def _ce3_inbox(tmp_path, history=HISTORY):
    """The CE 3.0 scenario (Shopify and Stripe layouts), with the issuer's address checks
    passed and the parcel delivered to the billing address: AVS + delivery could lead too."""
    inbox = tmp_path / "inbox"
    write_scenario(inbox, history)
    pay = pd.read_csv(inbox / "payments.csv", dtype=str, keep_default_na=False)
    pay["Card AVS Line1 Status"] = pay["Card AVS Zip Status"] = pay["Card CVC Status"] = "pass"
    pay.to_csv(inbox / "payments.csv", index=False)
    orders = pd.read_csv(inbox / "orders_export_1.csv", dtype=str, keep_default_na=False)
    for side in ("Billing", "Shipping"):
        orders[f"{side} Address1"], orders[f"{side} City"] = "1 Main St", "Boston"
        orders[f"{side} Zip"], orders[f"{side} Country"] = "02108", "US"
    orders.to_csv(inbox / "orders_export_1.csv", index=False)
    write_rows(
        inbox / "shipments.csv",
        ["order_number", "tracking_number", "carrier", "shipped_at", "delivered_at"],
        [[3000, "1Z3", "UPS", "2025-06-02", "2025-06-04"]],
    )
    return inbox


def test_a_qualifying_ce3_leads_the_thesis(sandbox_factory, tmp_path, monkeypatch):
    sb = sandbox_factory(rows=seed_rows(1, prefix="dp_ce3_"))
    use_sandbox(sb, monkeypatch)
    run_cli("--inbox", str(_ce3_inbox(tmp_path)))
    letter = _letter(sb, "dp_ce3_0")
    assert _thesis(letter) == (
        CLAIM + "it qualifies for Visa Compelling Evidence 3.0: the same card paid for orders "
        "2001 (2024-11-13) and 2002 (2024-08-05), never disputed, from the same device ID as "
        "this one (table below)."
    ), letter
    points = _arguing(letter).split("•")[1:]
    # the thesis says it once: its bullet is the table's, the orders side by side
    assert points[0].strip().startswith("The disputed order and the two earlier orders"), points
    # the address check and the delivery are still argued, after it
    assert any("the billing address the card issuer verified" in p for p in points[1:]), points


@pytest.mark.parametrize("kept", [("2001",), ()])
def test_ip_and_device_are_never_called_ce3_when_it_does_not_qualify(
    sandbox_factory, tmp_path, monkeypatch, kept
):
    """One earlier order that matches, or none: the device is what was observed at checkout,
    stated as such, and neither the letter nor the payload calls it CE 3.0."""
    sb = sandbox_factory(rows=seed_rows(1, prefix="dp_ce3_"))
    use_sandbox(sb, monkeypatch)
    history = {k: v for k, v in HISTORY.items() if k in kept or k not in ("2001", "2002")}
    run_cli("--inbox", str(_ce3_inbox(tmp_path, history)))
    letter = _letter(sb, "dp_ce3_0")
    assert "Compelling Evidence" not in letter and "CE 3.0" not in letter, letter
    assert "device dev-1-4f8a2c7e9" in letter.split(ARGUING, 1)[1], letter  # as observed
    assert not _thesis(letter).startswith(CLAIM + "it qualifies"), letter
