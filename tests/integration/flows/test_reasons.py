"""Issue 44 items 7 to 9, through the real CLI against the local API: a subscription letter
argues the renewal the dispute names (a sixth charge is never lost, the timeline keeps what
matters); a duplicate claim answered by another order's purchase, a split payment or the
merchant's statement is argued and asks for the reversal; a fraud case with a failed address
check, a freight forwarder or a bare country code is never argued as a match, Visa's April 2026
AVS rule leads where it applies, and the checkout's IP and device are argued without CE 3.0."""

from __future__ import annotations

import pytest

from tests.integration.flows.test_case_wins import ARGUING, _arguing, _letter, _rows
from tests.support.cli_helpers import latest_disputes, run_cli, use_sandbox
from tests.support.engine_helpers import write_rows

ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "customer_email",
          "customer_name", "shipping_address", "billing_address", "order_date"]  # fmt: skip
PAYMENTS = ["payment_id", "order_number", "paid_at", "payment_amount", "currency",
            "payment_status", "card_brand", "card_last4", "card_country", "avs_line1_check",
            "avs_zip_check", "cvc_check"]  # fmt: skip
SHIPS = ["order_number", "tracking_number", "carrier", "shipped_at", "delivered_at"]
DISPUTES = ["provider_dispute_id", "order_number", "reason", "amount", "currency",
            "dispute_date"]  # fmt: skip
ELM = "1 Elm St, Boston, MA 02108"


@pytest.fixture
def sb(sandbox_factory, monkeypatch):
    """The local API, holding one dispute of 129.00 USD, as the API each run here sends to."""
    sandbox = sandbox_factory(rows=_rows(1))
    use_sandbox(sandbox, monkeypatch)
    return sandbox


def _inbox(tmp_path, disputes, orders, payments=(), ships=()):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    write_rows(inbox / "disputes.csv", DISPUTES, list(disputes))
    write_rows(inbox / "orders.csv", ORDERS, list(orders))
    if payments:
        write_rows(inbox / "payments.csv", PAYMENTS, list(payments))
    if ships:
        write_rows(inbox / "shipments.csv", SHIPS, list(ships))
    return inbox


def _sent_and_argued(sb, tmp_path, inbox) -> str:
    """Run the CLI on `inbox`: dp_test_0 is not held, its evidence goes once, and what its
    letter argues is returned."""
    run_cli("--inbox", str(inbox))
    row = latest_disputes(tmp_path).loc["dp_test_0"]
    assert not row["Status"].startswith("advice: accept"), row.to_dict()
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1
    return _arguing(_letter(sb, "dp_test_0"))


def _email(path, day: str, body: str) -> None:
    from support.docfixtures import text_pdf

    text_pdf(path, [["From: customer@example.com", f"Date: {day}", "Subject: my plan", body]])


def _renewals() -> list[list[object]]:
    """A monthly plan's six charges, oldest first, the last the renewal of 12 November."""
    months = ["06", "07", "08", "09", "10", "11"]
    return [[f"ch_{i + 1}", "5000", f"2026-{m}-12 09:00", "129", "usd", "Paid", "Visa", "4242",
             "US", "", "", ""] for i, m in enumerate(months)]  # fmt: skip


def test_item_7_the_renewal_disputed_is_argued_and_never_lost_from_letter_or_payload(sb, tmp_path):
    inbox = _inbox(
        tmp_path,
        [["dp_test_0", "#5000", "subscription_canceled", 129.0, "USD", "2026-11-20"]],
        [[5000, "Pro plan (monthly)", "129", 1, "USD", "c@example.com", "C", "", "",
          "2026-06-12"]],
        _renewals(),
    )  # fmt: skip
    _email(inbox / "5000 email.pdf", "2026-11-15", "Please cancel my subscription.")
    _email(inbox / "5000 email 2.pdf", "2026-11-18", "Why was I charged on the 12th?")
    run_cli("--inbox", str(inbox))
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1
    sent = sb.snapshot()["dp_test_0"]["evidence"]["additional_evidence"]["payments"]
    assert [c["payment_id"] for c in sent] == [f"ch_{i}" for i in range(1, 7)]  # none lost
    letter = _letter(sb, "dp_test_0")
    head = letter.split("To the reviewer")[0]
    assert "ch_6 · 2026-11-12 · 129.00 USD" in head, head  # the header names the renewal argued
    thesis = letter.split("To the reviewer of this dispute,", 1)[1].split(" The order ", 1)[0]
    assert thesis.strip() == (  # the renewal and no cancellation before it lead (issue 44)
        "The cardholder says they were charged after cancelling a subscription; the disputed "
        "charge ch_6 is the subscription's renewal of 2026-11-12, and the customer's first "
        "request to cancel on record (Exhibit A) is dated 2026-11-15, after the renewal of "
        "2026-11-12: no cancellation came before the disputed charge."
    ), thesis
    points = _arguing(letter)
    assert points.strip().startswith("• The disputed charge is the renewal of 2026-11-12: ch_6 "
                                     "(129.00 USD, 2026-11-12). It follows 5 earlier charges of "
                                     "the same subscription, the first on 2026-06-12 (ch_1)."), points  # fmt: skip
    # no cancellation before the renewal is said once, in the first lines (the thesis above)
    assert "no cancellation came before" not in points, points
    assert (
        "ch_5 (129.00 USD, 2026-10-12)" not in points.split("•")[1]
    )  # the October charge is not the one
    timeline = letter.split("Timeline", 1)[1]
    for event in ("2026-06-12: Order 5000 placed.", "2026-06-12: Charge ch_1 paid.",
                  "2026-11-12: Charge ch_6 paid.",
                  "2026-11-15: customer@example.com wrote.", "2026-11-18: customer@example.com wrote."):  # fmt: skip
        assert event in timeline, timeline
    # the key events (the order, the first and the disputed charges, the messages, the dispute's
    # opening) are always kept: two earlier renewals are left out, and said
    assert "2 other charges (2026-07-12 to 2026-08-12) not listed here." in timeline, timeline
    assert "ch_2" not in timeline
    assert "For these reasons we ask that the dispute be reversed" in letter


def test_item_8_two_orders_paid_alike_on_one_day_are_two_purchases_side_by_side(sb, tmp_path):
    inbox = _inbox(
        tmp_path,
        [["dp_test_0", "#5000", "duplicate", 129.0, "USD", "2026-10-20"]],
        [[5000, "Skateboard deck", "129", 1, "USD", "c@example.com", "C", ELM, ELM, "2026-10-02"],
         [5001, "Wheel set", "129", 1, "USD", "c@example.com", "C", ELM, ELM, "2026-10-02"]],
        [["ch_A", "5000", "2026-10-02 10:00", "129", "usd", "Paid", "Visa", "4242", "US", "", "", ""],
         ["ch_B", "5001", "2026-10-02 10:05", "129", "usd", "Paid", "Visa", "4242", "US", "", "", ""]],
        [[5000, "1Z0", "UPS", "2026-10-03", "2026-10-05"], [5001, "1Z1", "UPS", "2026-10-04", ""]],
    )  # fmt: skip
    points = _sent_and_argued(sb, tmp_path, inbox)
    letter = _letter(sb, "dp_test_0")  # the thesis: the two purchases answer the claim
    assert ("the charge disputed, ch_A (129.00 USD, 2026-10-02), paid for order 5000; the other "
            "charge of 129.00 USD that day paid for order 5001 (ch_B)") in letter, letter  # fmt: skip
    assert "one charge for this order" not in points
    # side by side: orders, items, tracking, amounts
    for cell in ("Order 5000", "Order 5001", "Skateboard deck", "Wheel set", "1Z0", "1Z1"):
        assert cell in points, (cell, points)
    other = sb.snapshot()["dp_test_0"]["evidence"]["additional_evidence"]["other_purchases"]
    assert other[0]["order_number"] == "5001" and other[0]["items"] == ["Wheel set"]


def test_item_8_one_order_paid_in_two_halves_is_no_duplicate(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=[{**r, "amount": 6400} for r in _rows(1)])
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(
        tmp_path,
        [["dp_test_0", "#5000", "duplicate", 64.0, "USD", "2026-10-20"]],
        [[5000, "Lamp", "64", 1, "USD", "c@example.com", "C", ELM, ELM, "2026-10-02"],
         [5000, "Shade", "64", 1, "USD", "", "", "", "", ""]],
        [["ch_A", "5000", "2026-10-02 10:00", "64", "usd", "Paid", "Visa", "4242", "US", "", "", ""],
         ["ch_B", "5000", "2026-10-02 10:00", "64", "usd", "Paid", "Visa", "4242", "US", "", "", ""]],
    )  # fmt: skip
    points = _sent_and_argued(sb, tmp_path, inbox)
    assert ("Order 5000 came to 128.00 USD and was paid in 2 parts: ch_A (64.00 USD, 2026-10-02) "
            "and ch_B (64.00 USD, 2026-10-02).") in points, points  # fmt: skip


def test_item_8_a_duplicate_answered_by_the_merchant_statement_asks_for_the_reversal(sb, tmp_path):
    inbox = _inbox(
        tmp_path,
        [["dp_test_0", "#5000", "duplicate", 129.0, "USD", "2026-10-20"]],
        [[5000, "Skateboard deck", "129", 1, "USD", "c@example.com", "C", ELM, ELM, "2026-10-02"]],
    )  # fmt: skip
    said = (
        "The customer bought a second deck for her brother the same day; order 5001 shipped apart."
    )
    (inbox / "5000 statement.txt").write_text(said, encoding="utf-8")
    run_cli("--inbox", str(inbox))
    row = latest_disputes(tmp_path).loc["dp_test_0"]
    assert "no claim" not in row["Status"] and "no claims" not in row.to_dict().get("Letter", ""), (
        row
    )
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1
    letter = _letter(sb, "dp_test_0")
    assert ARGUING in letter and said in letter
    assert (
        "For these reasons we ask that the dispute be reversed and the payment of 129.00 USD stand."
        in letter
    )


FRAUD = [["dp_test_0", "#5000", "fraudulent", 129.0, "USD", "2026-11-20"]]


def test_item_9_a_failed_street_check_and_a_freight_forwarder_are_never_argued(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(2))
    use_sandbox(sb, monkeypatch)
    forwarder = "Shipito, 1 Elm St Suite 4411, Torrance, CA 90501"
    inbox = _inbox(
        tmp_path,
        [*FRAUD, ["dp_test_1", "#5001", "fraudulent", 129.0, "USD", "2026-11-20"]],
        [[5000, "Camera", "129", 1, "USD", "c@example.com", "C", ELM, ELM, "2026-11-01"],
         [5001, "Camera", "129", 1, "USD", "d@example.com", "D", forwarder, forwarder, "2026-11-01"]],
        [["ch_A", "5000", "2026-11-01", "129", "usd", "Paid", "Visa", "4242", "US", "fail", "pass", "pass"],
         ["ch_B", "5001", "2026-11-01", "129", "usd", "Paid", "Visa", "4343", "US", "pass", "pass", "pass"]],
        [[5000, "1Z0", "UPS", "2026-11-02", "2026-11-04"], [5001, "1Z1", "UPS", "2026-11-02", "2026-11-04"]],
    )  # fmt: skip
    run_cli("--inbox", str(inbox))
    table = latest_disputes(tmp_path)
    for pid, why in (("dp_test_0", "the billing street address check fail"),
                     ("dp_test_1", "shipped to a freight forwarder (shipito)")):  # fmt: skip
        assert table.loc[pid, "Status"].startswith("advice: accept"), table.loc[pid].to_dict()
        assert why in table.loc[pid, "Status"], table.loc[pid, "Status"]
        assert sb.snapshot()[pid]["evidence_updates"] == 0  # nothing sent until a person says so


def test_item_9_a_bare_country_code_is_no_address_match(sb, tmp_path):
    inbox = _inbox(
        tmp_path, FRAUD,
        [[5000, "Camera", "129", 1, "USD", "c@example.com", "C", "IN", "IN", "2026-11-01"]],
        [["ch_A", "5000", "2026-11-01", "129", "usd", "Paid", "Visa", "4242", "IN", "", "", "pass"]],
    )  # fmt: skip
    run_cli("--inbox", str(inbox))
    letter = _letter(sb, "dp_test_0")
    assert "billing address" not in letter.lower(), letter


@pytest.mark.parametrize("country", ["US", ""])
def test_item_9_visas_avs_rule_leads_and_the_ip_and_device_are_argued(
    sb, tmp_path, monkeypatch, country
):
    """The rule leads where the merchant's country makes the charge domestic (without the
    setting it is never claimed); the IP and device are argued either way, CE 3.0 or not."""
    if country:
        monkeypatch.setenv("DISPUTE_EVIDENCE_MERCHANT__COUNTRY", country)
    inbox = _inbox(
        tmp_path, FRAUD,
        [[5000, "Camera", "129", 1, "USD", "c@example.com", "C", ELM, ELM, "2026-11-01"]],
        [["ch_A", "5000", "2026-11-01 10:00", "129", "usd", "Paid", "Visa", "4242", "US", "pass", "pass", "pass"]],
        [[5000, "1Z0", "UPS", "2026-11-02", "2026-11-04"]],
    )  # fmt: skip
    write_rows(inbox / "orders.csv", [*ORDERS, "customer_ip", "device_id"], [
        [5000, "Camera", "129", 1, "USD", "c@example.com", "C", ELM, ELM, "2026-11-01",
         "203.0.113.7", "dev-7f3a9c2e11"]])  # fmt: skip
    run_cli("--inbox", str(inbox))
    points = _arguing(_letter(sb, "dp_test_0"))
    first = points.split("•")[1]
    assert "IP address 203.0.113.7 and device dev-7f3a9c2e11" in points, points
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1
    if not country:
        assert "Visa's April 2026 rule" not in points, points
        return
    assert first.strip().startswith("Visa's April 2026 rule for reason 10.4 makes"), points
    assert "Charge ch_A meets each condition: a Visa card issued in the US" in first, first
