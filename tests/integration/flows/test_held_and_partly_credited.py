"""Issue 44, what docs/letters' held and partly credited letters still said, through the real
CLI against the local API (the letter read from the PDF the API received):

- a case our own records concede is held as "advice: accept"; its letter never asks for the
  reversal under what concedes (nor "makes no claim" and then asks for one): it says the
  merchant does not contest, also once a person approves sending it;
- credit not processed with a partial credit asks only for the rest (disputed less credited,
  its currency), and the partial refund is stated as what it is, never a reason the payment
  stands."""

from __future__ import annotations

from support.docfixtures import text_pdf
from tests.integration.flows.test_case_wins import (
    ARGUING,
    _approve_and_read,
    _arguing,
    _letter,
    _rows,
)
from tests.support.cli_helpers import latest_disputes, run_cli, use_sandbox
from tests.support.engine_helpers import write_rows

ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "customer_email",
          "customer_name", "shipping_address", "order_date", "fulfillment_status",
          "refunded_amount"]  # fmt: skip
SHIPS = ["order_number", "tracking_number", "carrier", "shipped_at", "delivered_at"]
DISPUTES = ["provider_dispute_id", "order_number", "reason", "amount", "currency"]
ELM = "1 Elm St, Boston, MA 02108"
POLICY = ["Acme refund policy",
          "Returns are accepted within 30 days of delivery for unused items in their original "
          "packaging."]  # fmt: skip


def _order(n: int, fulfilled: str = "fulfilled", refunded: str = "0.00") -> list[object]:
    return [n, "Skateboard deck", "129", 1, "USD", f"c{n}@example.com", "C", ELM, "2026-10-01",
            fulfilled, refunded]  # fmt: skip


def test_a_conceding_letter_never_asks_for_the_reversal(sandbox_factory, tmp_path, monkeypatch):
    sb = sandbox_factory(rows=_rows(2))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    write_rows(inbox / "disputes.csv", DISPUTES,
               [["dp_test_0", "#5000", "product_not_received", 129.0, "USD"],
                ["dp_test_1", "#5001", "product_unacceptable", 129.0, "USD"]])  # fmt: skip
    write_rows(inbox / "orders.csv", ORDERS, [_order(5000, "unfulfilled"), _order(5001)])
    write_rows(inbox / "shipments.csv", SHIPS, [[5001, "1Z1", "UPS", "2026-10-02", "2026-10-05"]])
    text_pdf(inbox / "5001 email.pdf", [["From: c5001@example.com", "Date: 2026-10-07",
             "Subject: my order", "The deck arrived cracked down the middle. I want my money "
             "back."]])  # fmt: skip
    run_cli("--inbox", str(inbox))
    table = latest_disputes(tmp_path)
    for pid in ("dp_test_0", "dp_test_1"):
        assert table.loc[pid, "Status"].startswith("advice: accept"), table.loc[pid].to_dict()
        assert sb.snapshot()[pid]["evidence_updates"] == 0  # held: nothing sent
        letter = _approve_and_read(sb, inbox, pid)  # a person sends it as it is
        assert "What our records show" in letter and ARGUING not in letter, letter
        assert "reversed" not in letter and "payment of 129.00 USD stand" not in letter, letter
        assert ("We do not contest this dispute: our own records, stated above under “What our "
                "records show”, support the cardholder's claim.") in letter, letter  # fmt: skip
        assert "makes no claim" not in letter, letter  # it says what it is once, not twice


def test_credit_not_processed_with_a_partial_credit_asks_only_for_the_rest(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    write_rows(inbox / "disputes.csv", DISPUTES,
               [["dp_test_0", "#5000", "credit_not_processed", 129.0, "USD"]])  # fmt: skip
    write_rows(inbox / "orders.csv", ORDERS, [_order(5000, refunded="25.00")])
    write_rows(inbox / "shipments.csv", SHIPS, [[5000, "1Z0", "UPS", "2026-10-02", "2026-10-05"]])
    text_pdf(inbox / "5000 refund policy.pdf", [POLICY])
    run_cli("--inbox", str(inbox))
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1
    letter = _letter(sb, "dp_test_0")
    points = _arguing(letter)
    assert "25.00" not in points.split("Timeline")[0], points  # never a reason the payment stands
    assert ("A credit of 25.00 USD was already issued on this order; this response contests the "
            "remaining 104.00 USD.") in letter, letter  # fmt: skip
    assert (
        "we ask that the dispute be reversed and the remaining 104.00 USD of the payment "
        "stand (the 129.00 USD disputed, less the 25.00 USD already credited)."
    ) in letter
    assert "the payment of 129.00 USD stand" not in letter


def test_a_complaint_taken_back_is_said_to_be_withdrawn_first(
    sandbox_factory, tmp_path, monkeypatch
):
    """The retraction letter's first lines say in our words that the cardholder withdrew the
    complaint, then quote the message whole; a plain supportive message is only 'wrote'."""
    sb = sandbox_factory(rows=_rows(2))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    write_rows(inbox / "disputes.csv", DISPUTES,
               [["dp_test_0", "#5000", "product_unacceptable", 129.0, "USD"],
                ["dp_test_1", "#5001", "product_unacceptable", 129.0, "USD"]])  # fmt: skip
    write_rows(inbox / "orders.csv", ORDERS, [_order(5000), _order(5001)])
    write_rows(inbox / "shipments.csv", SHIPS, [[5000, "1Z0", "UPS", "2026-10-02", "2026-10-05"],
                                                [5001, "1Z1", "UPS", "2026-10-02", "2026-10-05"]])  # fmt: skip
    text_pdf(inbox / "5000 email.pdf", [["From: c5000@example.com", "Date: 2026-10-07",
             "Subject: my order", "The deck wobbles and one truck seems loose, this is not what "
             "I paid for. Update: never mind, it works fine now, I had not tightened the "
             "truck. Thanks!"]])  # fmt: skip
    text_pdf(inbox / "5001 email.pdf", [["From: c5001@example.com", "Date: 2026-10-07",
             "Subject: my order", "The board is fine, I just changed my mind. Can I send it "
             "back?"]])  # fmt: skip
    run_cli("--inbox", str(inbox))
    first = _letter(sb, "dp_test_0").split("To the reviewer of this dispute,", 1)[1]
    assert (
        first.split(" The order ", 1)[0]
        .strip()
        .startswith(
            "The cardholder says the goods were not as described or were defective; "
            "c5000@example.com withdrew the complaint in writing on 2026-10-07 (Exhibit A): "
            "“The deck wobbles"
        )
    ), first
    other = _letter(sb, "dp_test_1")
    assert "c5001@example.com wrote on 2026-10-07" in other and "withdrew" not in other, other
