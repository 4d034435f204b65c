"""Issue 44 item 8, what the regenerated letters still showed (docs/letters duplicate.pdf),
through the real CLI against the local API: a duplicate claim's other charge is the one charge
the cardholder says duplicated the disputed one (same card, same amount, nearest in time,
another order's own purchase with its items and shipment), shown alone beside it; never a
renewal of an unrelated subscription, never two orders after "the other charge". When no
single charge is certain, the analyst is told which it could be and the letter shows none."""

from __future__ import annotations

import pytest

from tests.integration.flows.test_case_wins import _letter, _rows
from tests.integration.flows.test_reasons import ELM, _inbox
from tests.support.cli_helpers import approve_cli, latest_disputes, run_cli, use_sandbox

DISPUTE = [["dp_test_0", "#5000", "duplicate", 129.0, "USD", "2026-10-20"]]


def _order(n: int, title: str, day: str = "2026-10-02") -> list[object]:
    return [n, title, "129", 1, "USD", "c@example.com", "C", ELM, ELM, day]


def _charge(pid: str, order: int, at: str) -> list[object]:
    return [pid, str(order), at, "129", "usd", "Paid", "Visa", "4242", "US", "", "", ""]


@pytest.fixture
def sb(sandbox_factory, monkeypatch):
    sandbox = sandbox_factory(rows=_rows(1))
    use_sandbox(sandbox, monkeypatch)
    return sandbox


def test_the_other_charge_is_the_nearest_purchase_of_its_own_never_a_renewal(sb, tmp_path):
    """Four same-card 129.00 charges that day besides the disputed one: a subscription's
    renewal a minute later (its first charge a month before), an order with no lines in the
    orders export, an order shipped in the disputed order's own parcel, and two orders shipped
    on their own, 5 minutes and 5 hours away. The one 5 minutes away is the other charge."""
    inbox = _inbox(
        tmp_path,
        DISPUTE,
        [_order(5000, "Skateboard deck"), _order(5001, "Wheel set"),
         _order(5002, "Grip tape"), _order(5003, "Box (monthly subscription)", "2026-09-02"),
         _order(5005, "Bearings")],
        [_charge("ch_A", 5000, "2026-10-02 10:00"), _charge("ch_R1", 5003, "2026-09-02 10:01"),
         _charge("ch_R2", 5003, "2026-10-02 10:01"), _charge("ch_N", 5004, "2026-10-02 10:02"),
         _charge("ch_S", 5005, "2026-10-02 10:03"), _charge("ch_B", 5001, "2026-10-02 10:05"),
         _charge("ch_C", 5002, "2026-10-02 15:00")],
        [[5000, "1Z0", "UPS", "2026-10-03", "2026-10-05"], [5001, "1Z1", "UPS", "2026-10-04", ""],
         [5002, "1Z2", "UPS", "2026-10-04", ""], [5005, "1Z0", "UPS", "2026-10-03", ""]],
    )  # fmt: skip
    run_cli("--inbox", str(inbox))
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1
    letter = _letter(sb, "dp_test_0")
    assert ("the charge disputed, ch_A (129.00 USD, 2026-10-02), paid for order 5000; the other "
            "charge of 129.00 USD that day paid for order 5001 (ch_B): two separate purchases "
            "of different items, each shipped on its own") in letter, letter  # fmt: skip
    for other in ("5002", "5003", "5004", "5005", "ch_R2", "ch_C", "Grip tape", "subscription"):
        assert other not in letter, (other, letter)  # exactly the two purchases, side by side
    assert " and order " not in letter
    sent = sb.snapshot()["dp_test_0"]["evidence"]["additional_evidence"]["other_purchases"]
    assert [p["order_number"] for p in sent] == ["5001"]


def test_no_single_other_charge_certain_goes_to_the_analyst_not_the_letter(sb, tmp_path):
    """Two orders shipped on their own were paid at the same second: which one the cardholder
    calls the duplicate is not certain. The letter shows neither; the analyst is told both."""
    orders = [_order(5000, "Skateboard deck"), _order(5001, "Wheel set"), _order(5002, "Grip tape")]
    charges = [_charge("ch_A", 5000, "2026-10-02 10:00"), _charge("ch_B", 5001, "2026-10-02 11:00"),
               _charge("ch_C", 5002, "2026-10-02 11:00")]  # fmt: skip
    ships = [[5000 + i, f"1Z{i}", "UPS", "2026-10-03", ""] for i in range(3)]
    inbox = _inbox(tmp_path, DISPUTE, orders, charges, ships)
    run_cli("--inbox", str(inbox))
    row = latest_disputes(tmp_path).loc["dp_test_0"]
    said = " ".join(str(v) for v in row.to_dict().values())
    assert "other charge not certain" in said or "equally near" in said, row.to_dict()
    assert "ch_B (order 5001)" in said and "ch_C (order 5002)" in said, row.to_dict()
    # it waits for the analyst to name the other charge, or to approve it as it is
    assert row["Status"].startswith("waiting for your approval"), row["Status"]
    assert not sb.snapshot()["dp_test_0"]["files"]
    approve_cli(inbox, "dp_test_0")
    letter = _letter(sb, "dp_test_0")
    assert "the other charge" not in letter and "5001" not in letter and "5002" not in letter
    assert "other_purchases" not in sb.snapshot()["dp_test_0"]["evidence"]["additional_evidence"]


def test_the_merchants_statement_naming_one_settles_it(sb, tmp_path):
    orders = [_order(5000, "Skateboard deck"), _order(5001, "Wheel set"), _order(5002, "Grip tape")]
    charges = [_charge("ch_A", 5000, "2026-10-02 10:00"), _charge("ch_B", 5001, "2026-10-02 11:00"),
               _charge("ch_C", 5002, "2026-10-02 11:00")]  # fmt: skip
    ships = [[5000 + i, f"1Z{i}", "UPS", "2026-10-03", ""] for i in range(3)]
    inbox = _inbox(tmp_path, DISPUTE, orders, charges, ships)
    (inbox / "5000 statement.txt").write_text(
        "The second charge the customer saw is ch_C, her order of grip tape.", encoding="utf-8"
    )
    run_cli("--inbox", str(inbox))
    letter = _letter(sb, "dp_test_0")
    assert "the other charge of 129.00 USD that day paid for order 5002 (ch_C)" in letter, letter
    assert "5001" not in letter
