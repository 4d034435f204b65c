"""Issue 44 item 11, the letter's header: the acquirer reference number (ARN) and the issuer's
authorisation code, the references a reviewer finds the transaction by, are printed beside the
disputed charge when the payments export gives them (as processors name the columns), and no
such line is printed when it gives none. The real CLI against the local API; the letter read
from the PDF the API received. The ARN's 23 digits are a reference, never taken for a card
number."""

from __future__ import annotations

import pytest

from tests.integration.flows.test_case_wins import _letter, _rows
from tests.integration.flows.test_reasons import ELM, ORDERS, PAYMENTS
from tests.support.cli_helpers import run_cli, use_sandbox
from tests.support.engine_helpers import write_rows

ARN = "74537606307000123456789"
CHARGE = ["ch_A", "5000", "2026-10-01 10:00", "129", "usd", "Paid", "Visa", "4242", "US",
          "pass", "pass", "pass"]  # fmt: skip


def _inbox(tmp_path, references: dict[str, str]):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    write_rows(
        inbox / "disputes.csv",
        ["provider_dispute_id", "order_number", "reason", "amount", "currency"],
        [["dp_test_0", "#5000", "product_not_received", 129.0, "USD"]],
    )
    write_rows(
        inbox / "orders.csv",
        ORDERS,
        [[5000, "Camera", "129", 1, "USD", "c@example.com", "C", ELM, ELM, "2026-10-01"]],
    )
    write_rows(inbox / "payments.csv", [*PAYMENTS, *references], [[*CHARGE, *references.values()]])
    write_rows(
        inbox / "shipments.csv",
        ["order_number", "tracking_number", "carrier", "shipped_at", "delivered_at"],
        [[5000, "1Z0", "UPS", "2026-10-02", "2026-10-04"]],
    )
    return inbox


@pytest.mark.parametrize(
    "columns",
    [
        {"ARN": ARN, "Authorization Code": "0A1B2C"},
        {"Acquirer Reference Number": ARN, "Auth Code": "0A1B2C"},
    ],
)
def test_the_arn_and_authorisation_code_are_in_the_header(
    sandbox_factory, tmp_path, monkeypatch, columns
):
    sb = sandbox_factory(rows=_rows(1))
    use_sandbox(sb, monkeypatch)
    run_cli("--inbox", str(_inbox(tmp_path, columns)))
    letter = _letter(sb, "dp_test_0")
    head = letter.split("To the reviewer of this dispute,", 1)[0]
    assert f"Network references ARN {ARN} · authorisation code 0A1B2C" in head
    assert "ending" not in head.split("Network references", 1)[1].split("Disputed amount")[0]


def test_no_reference_line_without_them(sandbox_factory, tmp_path, monkeypatch):
    sb = sandbox_factory(rows=_rows(1))
    use_sandbox(sb, monkeypatch)
    run_cli("--inbox", str(_inbox(tmp_path, {})))
    letter = _letter(sb, "dp_test_0")
    assert "Disputed charge ch_A" in letter
    assert "Network references" not in letter and "ARN" not in letter


STRIPE = ["id", "Created date (UTC)", "Amount", "Amount Refunded", "Currency", "Captured",
          "Status", "Card Brand", "Card Last4", "Card AVS Line1 Status", "Card AVS Zip Status",
          "Card CVC Status", "Customer Email", "order_id (metadata)"]  # fmt: skip


def test_a_stripe_payments_export_carries_them_too(sandbox_factory, tmp_path, monkeypatch):
    """Stripe's payments export is read by its own mapping (ingest/layouts.py STRIPE_PAYMENTS):
    docs/letters' run showed no reference line although its export had both columns."""
    sb = sandbox_factory(rows=_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, {})
    charge = ["ch_A", "2026-10-01 10:00:00", "129.00", "0.00", "usd", "true", "Paid", "Visa",
              "4242", "pass", "pass", "pass", "c@example.com", "5000"]  # fmt: skip
    write_rows(
        inbox / "payments.csv",
        [*STRIPE, "ARN", "Authorization Code"],
        [[*charge, ARN, "0A1B2C"]],
    )
    run_cli("--inbox", str(inbox))
    head = _letter(sb, "dp_test_0").split("To the reviewer of this dispute,", 1)[0]
    assert "Disputed charge ch_A" in head, head  # read as Stripe's export, joined to its order
    assert f"Network references ARN {ARN} · authorisation code 0A1B2C" in head, head
